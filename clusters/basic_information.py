"""Basic Information (0x0028) of a node and Bridged Device Basic Information (0x0039) of a bridged
device: who made it, what it is, and a user-settable label."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from typing import Any

from clusters.base import ClusterServer
from clusters.status import HomeError, Status

TEST_VENDOR_ID = 0xFFF1  # Matter's test vendor id: this is an emulator, not a certified product
DATA_MODEL_REVISION = 17  # Matter 1.3
SPECIFICATION_VERSION = 0x01030000  # 1.3.0
MAX_LABEL = 32
MAX_NAME = 32
USER_SETTABLE = ("NodeLabel", "Location", "LocalConfigDisabled")  # writable by a controller: kept across restarts


def _check_text(cluster: str, name: str, value: Any) -> None:
    if name == "NodeLabel" and len(value) > MAX_LABEL:
        raise HomeError.refused(
            Status.CONSTRAINT_ERROR,
            f"{cluster}.NodeLabel is {len(value)} characters long",
            allowed={"max_length": MAX_LABEL},
        )
    if name == "Location" and (len(value) != 2 or not value.isascii() or not value.isalpha()):
        raise HomeError.refused(
            Status.CONSTRAINT_ERROR,
            f"{cluster}.Location={value!r} is not an ISO 3166-1 alpha-2 code",
            allowed={"format": "two letters, e.g. 'KR', or 'XX' for unknown"},
        )


def default_unique_id(vendor_id: int, product_id: int, serial_number: str) -> str:
    """A stable UniqueID that is not the SerialNumber (Core §11.1.5.18/19 forbid that)."""
    return hashlib.sha256(f"unique-id/{vendor_id}/{product_id}/{serial_number}".encode()).hexdigest()[:32]


@functools.lru_cache(maxsize=4096)  # read, not held: homes built from one config (or generated) repeat their ids
def device_unique_id(device_id: str) -> str:
    """An emulated device's UniqueID: stable as its id is, never its SerialNumber (Core §11.1.5.18)."""
    return hashlib.sha256(f"homefabric-unique-id/{device_id}".encode()).hexdigest()[:32]


_IDENTITY_NAMES = ("NodeLabel", "SerialNumber", "UniqueID")
_IDENTITY_SET = frozenset(_IDENTITY_NAMES)


class DeviceIdentity(Mapping[str, str]):
    """An emulated device's own BasicInformation values, derived when read from its id and its initial label:
    NodeLabel (the label), SerialNumber (the id, up to 32 characters) and UniqueID (``device_unique_id``).

    A home holds dozens of devices and their identity is rarely written: the device's server reads these values
    from here (:meth:`BasicInformationServer.read_identity`) and shares the rest of its values with every server of
    its device type, holding no dict or hash string of its own until a write (a controller's NodeLabel) takes one."""

    __slots__ = ("device_id", "node_label")

    def __init__(self, device_id: str, node_label: str) -> None:
        self.device_id = device_id
        self.node_label = node_label

    def __getitem__(self, name: str) -> str:
        if name == "NodeLabel":
            return self.node_label
        if name == "SerialNumber":
            return self.device_id[:32]
        if name == "UniqueID":
            return device_unique_id(self.device_id)
        raise KeyError(name)

    # The server's reads ask ``in`` and ``len`` of every attribute read: the built-in methods of the names, called
    # without a Python frame (a third of the time of a method of this class)
    __contains__ = _IDENTITY_SET.__contains__
    __iter__ = _IDENTITY_NAMES.__iter__
    __len__ = _IDENTITY_NAMES.__len__


class BasicInformationServer(ClusterServer):
    """Endpoint-0 identity of a node.

    Constructor options: ``vendor_name``, ``vendor_id``, ``product_name``, ``product_id``,
    ``node_label``, ``location``, ``hardware_version``, ``hardware_version_string``,
    ``software_version``, ``software_version_string``, ``serial_number``, ``unique_id`` (default: a
    hash of vendor, product and serial — never the serial itself; give a unique one per device), ``product_label``, plus
    ``values``. NodeLabel (≤ 32 chars) and Location (2 letters) are writable.
    """

    __slots__ = ()

    cluster_name = "BasicInformation"
    revision = 3
    events = ("StartUp",)  # emitted by the node at start-up
    defaults = {
        "DataModelRevision": DATA_MODEL_REVISION,
        "VendorName": "HomeFabric",
        "VendorID": TEST_VENDOR_ID,
        "ProductName": "",
        "ProductID": 0x8000,
        "NodeLabel": "",
        "Location": "XX",
        "HardwareVersion": 1,
        "HardwareVersionString": "1.0",
        "SoftwareVersion": 1,
        "SoftwareVersionString": "1.0.0",
        "SerialNumber": "",
        "UniqueID": "",
        "ProductLabel": "",
        "LocalConfigDisabled": False,
        "Reachable": True,
        "CapabilityMinima": {"caseSessionsPerFabric": 3, "subscriptionsPerFabric": 3},
        "SpecificationVersion": SPECIFICATION_VERSION,
        "MaxPathsPerInvoke": 1,
    }

    def __init__(
        self,
        *,
        vendor_name: str = "HomeFabric",
        vendor_id: int = TEST_VENDOR_ID,
        product_name: str = "",
        product_id: int = 0x8000,
        node_label: str = "",
        location: str = "XX",
        hardware_version: int = 1,
        hardware_version_string: str = "1.0",
        software_version: int = 1,
        software_version_string: str = "1.0.0",
        serial_number: str = "",
        unique_id: str | None = None,
        product_label: str | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        given = {
            "VendorName": vendor_name,
            "VendorID": vendor_id,
            "ProductName": product_name,
            "ProductID": product_id,
            "NodeLabel": node_label,
            "Location": location,
            "HardwareVersion": hardware_version,
            "HardwareVersionString": hardware_version_string,
            "SoftwareVersion": software_version,
            "SoftwareVersionString": software_version_string,
            "SerialNumber": serial_number,
            "ProductLabel": product_label or product_name,
            "UniqueID": unique_id or default_unique_id(vendor_id, product_id, serial_number),
        }
        for name, value in {**given, **(values or {})}.items():
            self.restore(name, value)

    def check_write(self, name: str, value: object) -> None:
        _check_text(self.cluster_name, name, value)

    def read_identity(self, identity: DeviceIdentity) -> None:
        """Read NodeLabel, SerialNumber and UniqueID from ``identity`` until written — what restoring its values
        gives (each at most 32 characters) — for a server holding no changes of its own yet."""
        self._values.derive_changes(identity)

    def restore(self, name: str, value: object) -> None:
        if (
            name in ("VendorName", "ProductName", "SerialNumber", "UniqueID")
            and isinstance(value, str)
            and len(value) > MAX_NAME
        ):
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"BasicInformation.{name} is longer than {MAX_NAME} characters",
                allowed={"max_length": MAX_NAME},
            )
        super().restore(name, value)


class BridgedDeviceBasicInformationServer(ClusterServer):
    """Identity of a device behind a bridge (one per bridged endpoint).

    Constructor options: ``vendor_name``, ``vendor_id``, ``product_name``, ``product_id``,
    ``node_label``, ``serial_number``, ``unique_id`` (required in Matter 1.3: make it unique),
    ``software_version``, ``software_version_string``, ``reachable``, plus ``features`` and
    ``values``. :meth:`set_reachable` is for scenarios (the device drops off the bridge).
    """

    __slots__ = ()

    cluster_name = "BridgedDeviceBasicInformation"
    revision = 3
    events = ("StartUp", "ReachableChanged")  # emitted by the bridge at start-up / by set_reachable
    defaults = {
        "VendorName": "",
        "VendorID": TEST_VENDOR_ID,
        "ProductName": "",
        "ProductID": 0x8000,
        "NodeLabel": "",
        "SoftwareVersion": 1,
        "SoftwareVersionString": "1.0.0",
        "SerialNumber": "",
        "Reachable": True,
        "UniqueID": "",
    }

    def __init__(
        self,
        *,
        vendor_name: str = "HomeFabric",
        vendor_id: int = TEST_VENDOR_ID,
        product_name: str = "",
        product_id: int = 0x8000,
        node_label: str = "",
        serial_number: str = "",
        unique_id: str = "",
        software_version: int = 1,
        software_version_string: str = "1.0.0",
        reachable: bool = True,
        features: int | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(features=features)
        given = {
            "VendorName": vendor_name,
            "VendorID": vendor_id,
            "ProductName": product_name,
            "ProductID": product_id,
            "NodeLabel": node_label,
            "SerialNumber": serial_number,
            "UniqueID": unique_id or default_unique_id(vendor_id, product_id, serial_number),
            "SoftwareVersion": software_version,
            "SoftwareVersionString": software_version_string,
            "Reachable": reachable,
        }
        for name, value in {**given, **(values or {})}.items():
            self.restore(name, value)

    def check_write(self, name: str, value: object) -> None:
        _check_text(self.cluster_name, name, value)

    def set_reachable(self, reachable: bool) -> None:
        if bool(reachable) != self.read("Reachable"):
            self.set("Reachable", bool(reachable))
            self.emit_event("ReachableChanged", {"reachableNewValue": bool(reachable)})
