"""A server's values: a shared table plus its own changes, answering as a plain dict of the same values would,
and never changing a table it shares (the class's defaults, a catalogue entry's table)."""

from __future__ import annotations

import contextlib
import copy
import json
import sys
from typing import Any

import pytest

from clusters import attribute_values
from clusters.attribute_values import AttributeValues
from clusters.descriptor import DescriptorServer
from clusters.endpoint import Endpoint
from clusters.groups import GroupsServer
from clusters.on_off import OnOffServer
from clusters.registry import SERVER_CLASSES
from clusters.values import coerce
from emulator.catalogue import CATALOGUE, ClusterSpec
from emulator.device import DEFAULT_DESCRIPTOR
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from tests.emulator.helpers import home


def test_it_answers_as_a_dict_of_the_same_values_and_leaves_the_table_alone() -> None:
    table = {"A": 1, "B": [1, 2], "C": None, "D": 0.0}
    pristine = copy.deepcopy(table)
    values, plain = AttributeValues(table), dict(table)
    steps: list[tuple[str, Any]] = [
        ("set", ("A", 2)),
        ("set", ("A", 1)),  # back to the shared value: nothing of its own left
        ("set", ("D", -0.0)),  # equal to 0.0 but not the same value: kept as its own
        ("set", ("B", [3])),
        ("pop", "C"),  # dropping a name: its own copy of the table, in order
        ("set", ("E", True)),
        ("update", {"A": 5, "C": "back"}),
        ("pop", "missing"),
    ]
    for kind, argument in steps:
        if kind == "set":
            values[argument[0]] = argument[1]
            plain[argument[0]] = argument[1]
        elif kind == "pop":
            assert values.pop(argument, "default") == plain.pop(argument, "default")
        else:
            values.update(argument)
            plain.update(argument)
        assert list(values) == list(plain) and len(values) == len(plain)
        assert [(k, repr(v)) for k, v in values.items()] == [(k, repr(v)) for k, v in plain.items()]
        assert all(values[k] is plain[k] and values.get(k) is plain[k] and k in values for k in plain)
        assert values.get("missing", 7) == 7 and "missing" not in values
    assert json.dumps(table) == json.dumps(pristine) and repr(table) == repr(pristine)


def test_a_change_is_kept_apart_until_it_matches_the_table_again() -> None:
    table = {"A": 1, "B": "x"}
    values = AttributeValues(table)
    values["A"] = 2
    assert values["A"] == 2 and table["A"] == 1
    values["A"] = 1
    assert values.shared_with(table) is table  # equal again: it reads the table itself
    values["B"] = "y"
    assert values.shared_with(table) is table and values["B"] == "y"  # differs: keeps its own value
    assert AttributeValues({"A": True, "B": "x"}).shared_with(table) is table  # True == 1, but not the same value


def _prepared(spec: ClusterSpec) -> Any:
    """The values and own attributes of the server that the entry's later servers are copied from."""
    server = spec._prepared.get("server")
    return None if server is None else [server._values.as_dict(), server._own_attributes()]


def _tables() -> str:
    defaults = {name: server.defaults for name, server in sorted(SERVER_CLASSES.items())}
    built = {
        f"{kind}/{ep.endpoint_id}/{spec.cluster}": _prepared(spec)
        for kind, device in sorted(CATALOGUE.items())
        for ep in device.endpoints
        for spec in ep.clusters
    }
    built["default descriptor"] = _prepared(DEFAULT_DESCRIPTOR)
    return json.dumps({"defaults": defaults, "built": built}, default=repr, sort_keys=True)


def test_running_every_device_type_changes_no_shared_table() -> None:
    """Every argument-free command of every catalogue type, writes of every writable attribute and a day of time:
    the tables servers share (class defaults, catalogue entries' built values) and the servers later ones are
    copied from stay as they were."""
    fabric = EmulatedHome(home([(name, name, "room") for name in sorted(CATALOGUE)]))
    before = _tables()
    for device in fabric.devices():
        structure = fabric.describe_device(device.device_id)
        for ep_text, endpoint in structure["endpoints"].items():
            for cluster, spec in endpoint["clusters"].items():
                for name, attribute in spec["attributes"].items():
                    if attribute["writable"]:
                        with contextlib.suppress(HomeError):  # refusals are the golden tests' business
                            fabric.write(device.device_id, int(ep_text), cluster, name, attribute["value"])
                for name, command in spec["commands"].items():
                    if not any(arg.get("required") for arg in command["arguments"]):
                        with contextlib.suppress(HomeError):
                            fabric.invoke(device.device_id, int(ep_text), cluster, name, {})
    fabric.advance(24 * 3600)
    fabric.snapshot()
    again = EmulatedHome(home([(name, name, "room") for name in sorted(CATALOGUE)]))
    assert again.snapshot() != fabric.snapshot()  # the first home did change
    assert _tables() == before


def _state(server: Any) -> str:
    plain = (bool, int, float, str, bytes, type(None), tuple, frozenset)  # objects: by type (their repr has ids)
    own = {k: v if isinstance(v, plain) else type(v).__name__ for k, v in server._own_attributes().items()}
    return repr((type(server), server.feature_map, server._values.as_dict(), own, server.read_all()))


def test_a_built_server_is_what_its_constructor_gives() -> None:
    """Every catalogue entry's server, as ``build`` gives it (copied from the entry's first), is in the state its
    constructor gives; and a copy's own values are its own."""
    specs = [spec for device in CATALOGUE.values() for ep in device.endpoints for spec in ep.clusters]
    copied = 0
    for spec in [*specs, DEFAULT_DESCRIPTOR]:
        built, constructed = spec.build(), spec._construct()
        assert _state(built) == _state(constructed), spec
        copied += spec._prepared["server"].copy_as_built() is not None
    assert copied > len(specs) // 2  # most entries are copied, not constructed again
    light = next(spec for spec in specs if spec.cluster == "OnOff")
    first, second = light.build(), light.build()
    first.set("OnOff", not first.read("OnOff"))
    assert second.read("OnOff") != first.read("OnOff")
    groups = next(spec for spec in specs if spec.cluster == "Groups")  # copied: its empty table is its own
    first, second = groups.build(), groups.build()
    assert isinstance(first, GroupsServer) and isinstance(second, GroupsServer)
    assert spec_copied(groups) and first._groups is None and second._groups is None  # no table until the first group
    first._own_groups().setdefault(1, {})[7] = "kitchen"  # in place, as AddGroup changes it
    assert second.memberships() == {} and first.memberships() == {1: {7: "kitchen"}}
    third = groups.build()
    assert second._groups is None and isinstance(third, GroupsServer) and third.memberships() == {}


def test_every_server_class_keeps_its_state_in_slots() -> None:
    """No server of the package has an instance dict (a home holds hundreds of servers): each class declares the
    attributes it keeps in ``__slots__``, and a copy gets each of them."""
    specs = [spec for device in CATALOGUE.values() for ep in device.endpoints for spec in ep.clusters]
    for name, server_class in SERVER_CLASSES.items():
        assert "__slots__" in vars(server_class), name
        assert all("__slots__" in vars(k) for k in server_class.__mro__[: server_class.__mro__.index(object)]), name
    for spec in specs:
        built = spec.build()
        assert not hasattr(built, "__dict__"), spec.cluster
    identify = next(spec for spec in specs if spec.cluster == "Identify" and spec_copied(spec))
    original, copied = identify._prepared["server"], identify.build()
    assert original._own_attributes() == copied._own_attributes() != {}


def test_copies_read_one_shared_values_object_until_their_first_change() -> None:
    """Servers copied from one entry hold no values object of their own until they change one (then only theirs
    changes); the shared one refuses any change."""
    light = next(
        spec
        for device in CATALOGUE.values()
        for ep in device.endpoints
        for spec in ep.clusters
        if spec.cluster == "OnOff"
    )
    first, second = light.build(), light.build()
    assert first._held is second._held
    held = second._held
    first.set("OnOff", not first.read("OnOff"))
    assert first._held is not held and second._held is held and second.read("OnOff") != first.read("OnOff")
    assert second._values is not held and second._held is not held  # a subclass's access takes its own
    with pytest.raises(AssertionError):
        held["OnOff"] = True


def spec_copied(spec: ClusterSpec) -> bool:
    return spec._prepared["server"].copy_as_built() is not None


def test_restoring_the_value_a_server_holds_changes_nothing_and_skips_no_refusal() -> None:
    """``restore`` takes a plain value equal to the one held as it is: every such value of every catalogue server
    is one ``coerce`` accepts unchanged, so skipping the check refuses nothing it would have refused."""
    fabric = EmulatedHome(home([(name, name, "room") for name in sorted(CATALOGUE)]))
    checked = checked_lists = 0
    for device in fabric.devices():
        for endpoint in device.endpoints.values():
            for server in endpoint.clusters.values():
                for name, value in server._held.items():  # its values as read (a shared server has no own)
                    if type(value) in (bool, int, str):
                        coerced = coerce(value, server.model.attributes[name].type, name)
                        assert type(coerced) is type(value) and coerced == value, (server, name)
                        checked += 1
                    elif type(value) in (list, dict):  # lists and structs: alike in JSON with sorted keys
                        coerced = coerce(value, server.model.attributes[name].type, name)
                        assert type(coerced) is type(value) and coerced == value, (server, name)
                        assert json.dumps(coerced, sort_keys=True) == json.dumps(value, sort_keys=True)
                        checked_lists += 1
    assert checked > 500
    assert checked_lists > 50
    server = fabric.device("on_off_light").cluster(1, "OnOff")
    before = server.read("OnOff")
    server.restore("OnOff", before)
    assert server.read("OnOff") is before


def test_a_list_of_structs_written_again_in_another_key_order_changes_nothing_and_a_bool_for_a_number_is_refused():
    """A home file's struct keys may come in any order (SimuHome sorts them): the same list restores as no change;
    a value equal in Python but not in type (``True == 1``) is still checked, and refused."""
    fabric = EmulatedHome(home([("washer", "laundry_washer", "room")]))
    server = fabric.device("washer").cluster(1, "OperationalState")
    held = server.read("OperationalStateList")
    changes: list[str] = []
    server.add_listeners((lambda _server, name, _old, _new: changes.append(name),))
    server.restore("OperationalStateList", [dict(sorted(entry.items())) for entry in held])
    assert server.read("OperationalStateList") == held and changes == []
    as_bools = [{**entry, "operationalStateID": True} if entry["operationalStateID"] == 1 else entry for entry in held]
    assert as_bools == held  # equal in Python
    with pytest.raises(HomeError):
        server.restore("OperationalStateList", as_bools)
    assert server.read("OperationalStateList") == held and changes == []


def test_endpoints_of_one_shape_hold_their_own_servers_in_plain_dicts() -> None:
    """An endpoint's map of its servers shares its names with the endpoints of the same shape, and is still a dict
    of its own: in order, refusing a cluster given twice, changed without touching another endpoint's."""
    first = Endpoint(1, (), [DescriptorServer(), OnOffServer()])
    second = Endpoint(2, (), [DescriptorServer(), OnOffServer()])
    assert type(first.clusters) is dict and list(first.clusters) == ["Descriptor", "OnOff"]
    assert first.clusters["OnOff"] is not second.clusters["OnOff"]
    groups = GroupsServer()
    first.clusters["Groups"] = groups
    del first.clusters["Descriptor"]
    assert list(first.clusters) == ["OnOff", "Groups"] and list(second.clusters) == ["Descriptor", "OnOff"]
    assert first.find("Groups") is groups and second.find("Groups") is None
    with pytest.raises(ValueError, match="has OnOff twice"):
        Endpoint(3, (), [OnOffServer(), DescriptorServer(), OnOffServer()])


def test_servers_changing_the_same_names_share_the_names_of_their_changes() -> None:
    """A server's changes are a plain dict sharing its table of names with those of servers that changed the same
    first name (CPython's key-sharing instance dicts): smaller than a dict of its own, answering as one — other
    names, another order, names dropped."""
    table = {"A": 1, "B": 2, "C": 3}
    alike = [AttributeValues(table) for _ in range(40)]  # CPython sizes the values of the later ones to the names
    for values in alike:
        values["A"], values["B"] = 10, 20
    first, second = alike[-1], AttributeValues(table)
    second["A"], second["C"] = 11, 33
    assert type(first.changed) is dict and first.changed == {"A": 10, "B": 20} and second.changed == {"A": 11, "C": 33}
    assert sys.getsizeof(first.changed) < sys.getsizeof(dict(first.changed))
    second["A"] = 1  # back to the table's value: dropped from its changes
    second["B"] = 22
    assert list(second.changed) == ["C", "B"] and second.as_dict() == {"A": 1, "B": 22, "C": 33}
    assert first.as_dict() == {"A": 10, "B": 20, "C": 3}


def test_copies_that_drop_a_name_share_the_table_without_it() -> None:
    """Servers copied from one catalogue entry that bind a live source (a temperature sensor's reading, fed by room
    physics) drop its stored value: they share one table without it, in order, and the entry's table keeps it."""
    homes = [EmulatedHome(home([(f"sensor_{n}", "temperature_sensor", "room")])) for n in range(2)]
    servers = [fabric.device(f"sensor_{n}").cluster(1, "TemperatureMeasurement") for n, fabric in enumerate(homes)]
    first, second = (server._held for server in servers)
    assert first.table is second.table and "MeasuredValue" not in first.table and not first._owned
    entry = next(
        spec
        for ep in CATALOGUE["temperature_sensor"].endpoints
        for spec in ep.clusters
        if spec.cluster == "TemperatureMeasurement"
    )
    shared = entry._prepared["server"]._held.table
    assert "MeasuredValue" in shared and list(first.table) == [name for name in shared if name != "MeasuredValue"]
    assert servers[0].read("MeasuredValue") == homes[0].read("sensor_0", 1, "TemperatureMeasurement", "MeasuredValue")
    copied = entry._prepared["server"]._held.copy()  # a copy that changed the name before dropping it
    copied["MeasuredValue"] = 1234
    assert copied.pop("MeasuredValue") == 1234 and copied.table is first.table and not copied.changed
    assert "MeasuredValue" in shared


def test_a_copy_of_a_table_no_longer_noted_drops_a_name_from_a_copy_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tables read by copies are noted up to a bound, the oldest forgotten first: a copy of a forgotten table
    that drops a name takes a table of its own (as any server not copied), and the table stays as it was."""
    monkeypatch.setattr(attribute_values, "_COPIED_TABLES", {})
    monkeypatch.setattr(attribute_values, "_COPIED_TABLES_MAX", 1)
    old, new = {"A": 1, "B": 2}, {"A": 1, "B": 3}
    old_copy = AttributeValues(old).copy()
    new_copy = AttributeValues(new).copy()  # forgets ``old``
    assert list(attribute_values._COPIED_TABLES) == [id(new)]
    assert old_copy.pop("A") == 1 and old_copy._owned and old_copy.as_dict() == {"B": 2} and old == {"A": 1, "B": 2}
    assert new_copy.pop("A") == 1 and not new_copy._owned and new_copy.as_dict() == {"B": 3} and new["A"] == 1
