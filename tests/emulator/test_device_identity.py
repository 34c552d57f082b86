"""A device's BasicInformation identity (NodeLabel, SerialNumber, UniqueID) is derived from its id and name when
read: the values every face reads are what restoring them gave, an untouched server shares its values with every
server of its device type and holds no dict of its own, and a written NodeLabel is the device's own, saved and
restored with its home."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from clusters.attribute_values import AttributeValues, WriteMark
from clusters.basic_information import DeviceIdentity
from emulator.catalogue import CATALOGUE
from emulator.device import Device
from emulator.emulated_home import EmulatedHome
from tests.emulator.helpers import home

LONG_ID = "hallway_ceiling_light_with_a_very_long_identifier_1"  # over Matter's 32 characters


@pytest.mark.parametrize(
    ("device_id", "name", "expected"),
    [
        # The values the device used to restore at build (pinned: a changed rule would change every face's reads)
        (
            "bathroom_air_conditioner_1",
            None,
            ("bathroom_air_conditioner_1", "bathroom_air_conditioner_1", "64a5d705fa162d443cf253375d095ce6"),
        ),
        ("lamp", "Desk lamp", ("Desk lamp", "lamp", "5293ca778d1e2352d754adb428935418")),
        (LONG_ID, None, (LONG_ID[:32], LONG_ID[:32], "b9b2759104a1987ee13b7ab8cc8bacab")),
    ],
)
def test_identity_values_read_as_they_were_restored(device_id: str, name: str | None, expected: tuple) -> None:
    device = Device(device_id, CATALOGUE["on_off_light"], "room", name)
    basic = device.cluster(0, "BasicInformation")
    read = tuple(basic.read(attribute) for attribute in ("NodeLabel", "SerialNumber", "UniqueID"))
    assert read == expected
    every = basic.read_all()
    assert (every["NodeLabel"], every["SerialNumber"], every["UniqueID"]) == expected
    assert list(every) == basic.attribute_names()


def test_untouched_servers_share_their_values_and_hold_no_dict_of_their_own() -> None:
    first = EmulatedHome(home([("lamp_a", "on_off_light", "room"), ("lamp_b", "on_off_light", "room")]))
    second = EmulatedHome(home([("lamp_c", "on_off_light", "room")]))
    servers = [home_.device(d).cluster(0, "BasicInformation") for home_, d in ((first, "lamp_a"), (first, "lamp_b"))]
    servers.append(second.device("lamp_c").cluster(0, "BasicInformation"))
    tables = {id(server._held.table) for server in servers}
    assert len(tables) == 1  # one table for every light, in every home
    assert all(type(server._held.changed) is DeviceIdentity for server in servers)
    assert [server.read("SerialNumber") for server in servers] == ["lamp_a", "lamp_b", "lamp_c"]


def test_a_written_node_label_is_the_devices_own_and_survives_a_reload() -> None:
    config = home([("lamp_a", "on_off_light", "room"), ("lamp_b", "on_off_light", "room")])
    fabric = EmulatedHome(config)
    serial, unique = (fabric.read("lamp_a", 0, "BasicInformation", name) for name in ("SerialNumber", "UniqueID"))
    result = fabric.write("lamp_a", 0, "BasicInformation", "NodeLabel", "Kitchen lamp")
    assert (result.old_value, result.new_value) == ("lamp_a", "Kitchen lamp")
    assert fabric.read("lamp_a", 0, "BasicInformation", "NodeLabel") == "Kitchen lamp"
    assert fabric.read("lamp_a", 0, "BasicInformation", "SerialNumber") == serial
    assert fabric.read("lamp_a", 0, "BasicInformation", "UniqueID") == unique
    assert fabric.read("lamp_b", 0, "BasicInformation", "NodeLabel") == "lamp_b"  # its neighbour's is its own
    assert EmulatedHome(config).read("lamp_a", 0, "BasicInformation", "NodeLabel") == "lamp_a"
    saved = fabric.to_config()
    attributes = {device.id: device.attributes for device in saved.devices}
    assert attributes["lamp_a"]["0.BasicInformation.NodeLabel"] == "Kitchen lamp"
    assert not any(path.startswith("0.BasicInformation") for path in attributes["lamp_b"])
    reloaded = EmulatedHome(saved)
    assert reloaded.read_all("lamp_a") == fabric.read_all("lamp_a")
    assert reloaded.read("lamp_a", 0, "BasicInformation", "NodeLabel") == "Kitchen lamp"
    fabric.write("lamp_a", 0, "BasicInformation", "NodeLabel", "lamp_a")  # back to its initial label: not saved
    assert not any(path.startswith("0.BasicInformation") for path in fabric.to_config().devices[0].attributes)


def test_derived_changes_are_read_until_a_write_copies_them() -> None:
    table = {"A": 1, "B": "x", "C": "y"}
    derived = MappingProxyType({"B": "own b", "C": "own c"})
    values = AttributeValues(table)
    mark = values.mark = WriteMark()
    values.derive_changes(derived)
    assert mark.written  # a change of what it reads
    assert values.as_dict() == {"A": 1, "B": "own b", "C": "own c"} and values.get("B") == "own b"
    other = values.copy()
    assert other.changed is derived  # read-only: shared by a copy
    values["B"] = "x"  # the table's value again: its own changes, copied from the derived ones, drop it
    values["C"] = "new c"
    assert values.as_dict() == {"A": 1, "B": "x", "C": "new c"} and type(values.changed) is dict
    assert derived == {"B": "own b", "C": "own c"} and other.as_dict() == {"A": 1, "B": "own b", "C": "own c"}
    with pytest.raises(AssertionError, match="no changes of their own"):
        values.derive_changes(derived)
    with pytest.raises(AssertionError, match="not in the table"):
        AttributeValues(table).derive_changes({"Z": 1})
