"""The values a home's last snapshot read of each device, read again only where they may have changed since.

A device is read again in full when a stored value of one of its servers was written (every stored write raises the
device's :class:`clusters.attribute_values.WriteMark`, whether or not the server told its listeners), and its servers
whose values are read live (a bound source such as a physics sensor or a countdown, a ``read`` of its own such as
ColorControl's moves) are read again at every snapshot. The rest of the device's values are the last reading's: the
same values ``HomeDevices.read_all`` gives, in the same order. The dicts are the caller's own; the values in them,
lists included, are shared with the home and other snapshots (the globals' lists with every server of a shape: see
``ClusterServer.read_all``'s ``shared_lists``), as stored values always were: never changed in place.

Homes built from one config may share :class:`BuiltReadings`: a device no write reached since its home was built
holds the values every home built from that config holds, so it is read once for them all.

A device's endpoints and servers are fixed once it is built (a device that changes them is a new Device object,
read in full).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from clusters import ClusterServer
from clusters.attribute_values import WriteMark
from emulator.device import Device
from emulator.home_devices import read_device

_NOTHING_LIVE: tuple[tuple[str, ClusterServer], ...] = ()


class BuiltReadings:
    """Device id → its values as a home built from one config holds them before anything writes to the device:
    filled by the first snapshot of such a device in any home built from the config, read by the others."""

    __slots__ = ("values",)

    def __init__(self) -> None:
        self.values: dict[str, dict[str, Any]] = {}


class _Reading(WriteMark):
    """One device's last reading, and the mark its servers raise on a stored write (``written``): its values (None:
    watched since its home was built, not read yet), its servers read live (by key prefix). The values are never
    changed once kept (they may be shared with :class:`BuiltReadings`): a reading of live values is a new dict."""

    __slots__ = ("device", "live", "values")

    def __init__(self, device: Device, values: dict[str, Any] | None = None) -> None:
        """Watch ``device`` from now on; ``values``: its reading, taken after this (else None: not read yet)."""
        super().__init__()
        self.device = device
        live = [
            (f"{endpoint_id}.{cluster_name}.", server)
            for endpoint_id, endpoint in sorted(device.endpoints.items())
            for cluster_name, server in endpoint.clusters.items()
            if server.watch_writes(self)
        ]
        self.live = tuple(live) if live else _NOTHING_LIVE
        self.values = values

    def keep(self, values: dict[str, Any]) -> dict[str, Any]:
        """Keep ``values`` (read before any write since) with the servers read live read again, and give them."""
        if self.live:
            values = dict(values)
            for prefix, server in self.live:
                server.read_all(prefix, into=values, shared_lists=True)  # the same keys: their places are kept
        self.values = values
        return values


class DeviceReadings:
    """Every device's values as of the last ``read``, kept to answer the next one from what did not change."""

    __slots__ = ("_built", "_last")  # one per home: no instance dict

    def __init__(self) -> None:
        self._last: dict[str, _Reading] = {}
        self._built: BuiltReadings | None = None

    def watch_built(self, devices: Iterable[Device], built: BuiltReadings) -> None:
        """Watch the devices of a home just built from the config of ``built`` (nothing is read yet): those no
        write reaches before their first reading share their values with the other homes built from it."""
        self._built = built
        self._last = {device.device_id: _Reading(device) for device in devices}

    def read(self, devices: Iterable[Device]) -> list[dict[str, Any]]:
        """Each device's attributes now (a new dict each, as ``HomeDevices.read_all`` gives them), in order; the
        readings of devices not in ``devices`` are dropped."""
        last, kept = self._last, {}
        found = []
        for device in devices:
            reading = last.get(device.device_id)
            if reading is None or reading.device is not device or reading.written:
                reading = _Reading(device)  # watched from here: a write while it is read raises its mark
                values = reading.values = read_device(device, shared_lists=True)
            elif reading.values is None:  # watched since its home was built, no write since
                values = reading.keep(self._as_built(device))
            else:
                values = reading.keep(reading.values)
            kept[device.device_id] = reading
            found.append(dict(values))
        self._last = kept
        return found

    def _as_built(self, device: Device) -> dict[str, Any]:
        assert self._built is not None  # only watch_built leaves readings unread
        built = self._built.values
        values = built.get(device.device_id)
        if values is None:
            values = built[device.device_id] = read_device(device, shared_lists=True)
        return values
