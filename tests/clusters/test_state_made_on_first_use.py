"""State most servers never use is made on first use, and values alike are read from one object (issue 24: a home
costs what it holds): an Identify server's countdown and effect, a Groups server's table and listeners, a
ScenesManagement server's tables and listeners. Until then a server holds None or () — immutable, so a catalogue
entry's servers are copies of its first — and what one copy makes is its own: nothing it does reaches another copy
(another home's device)."""

from __future__ import annotations

from typing import Any

from clusters import ClusterServer
from clusters.attribute_values import WriteMark
from clusters.base import _ALIKE, _SharedValues
from clusters.channel import DEFAULT_CHANNELS, ChannelServer
from clusters.groups import GroupsServer
from clusters.identify import IdentifyServer
from clusters.laundry_controls import WASHER_OPTIONS_BY_MODE, LaundryWasherControlsServer
from clusters.requester import Requester, acting_as
from clusters.scenes_management import ScenesManagementServer
from emulator.catalogue import CATALOGUE, ClusterSpec
from emulator.emulated_home import EmulatedHome
from emulator.home_generation.generator import generate_home


def _copied_pair(cluster: str) -> tuple[Any, Any, ClusterSpec]:
    """Two servers built from the first catalogue entry of ``cluster`` that is copied (not constructed again)."""
    for device in CATALOGUE.values():
        for endpoint in device.endpoints:
            for spec in endpoint.clusters:
                if spec.cluster == cluster:
                    first = spec.build()
                    if spec._plan[0] is not None:
                        return first, spec.build(), spec
    raise AssertionError(f"no copied {cluster} entry")


def test_identify_holds_nothing_until_it_identifies_and_a_copy_keeps_its_own(mount: Any, clock: Any) -> None:
    first, second, spec = _copied_pair("Identify")
    assert isinstance(first, IdentifyServer) and first._doing is None and second._doing is None
    mount(first)
    mount(second)
    first.invoke("Identify", {"IdentifyTime": 5})
    first.invoke("TriggerEffect", {"EffectIdentifier": 1, "EffectVariant": 0})
    assert first._doing is not None and first.active_effect == 1 and first.effect_ends_at == 15.0
    assert second._doing is None and second.active_effect is None and second.effect_ends_at is None
    assert second.read("IdentifyTime") == 0 and not second.identifying
    clock.advance_to(20)
    assert first.read("IdentifyTime") == 3 and second.read("IdentifyTime") == 0
    second.invoke("TriggerEffect", {"EffectIdentifier": 0xFF, "EffectVariant": 0})  # stop, with none running
    assert second._doing is None and first.active_effect == 1
    third = spec.build()  # the entry's next copy: idle
    assert isinstance(third, IdentifyServer) and third._doing is None


def test_identify_type_is_a_stored_value_given_values_win() -> None:
    assert IdentifyServer().read("IdentifyType") == 2
    assert IdentifyServer(identify_type=1).read("IdentifyType") == 1
    assert IdentifyServer(identify_type=1, values={"IdentifyType": 3}).read("IdentifyType") == 3
    assert list(IdentifyServer(identify_type=1).read_all()) == list(IdentifyServer().read_all())


def test_groups_and_their_listeners_are_each_copy_s_own() -> None:
    first, second, spec = _copied_pair("Groups")
    assert isinstance(first, GroupsServer) and isinstance(second, GroupsServer)
    assert first._groups is None and first._membership_listeners == ()
    heard: list[Any] = []
    first.on_membership.append(heard.append)
    with acting_as(Requester(1, lambda group: True)):
        first.invoke("AddGroup", {"groupID": 7, "groupName": "Kitchen"})
        assert second.invoke("GetGroupMembership", {"groupList": []}) == {"capacity": 4, "groupList": []}
        assert first.invoke("GetGroupMembership", {"groupList": []}) == {"capacity": 3, "groupList": [7]}
    assert heard == [first] and first.memberships() == {1: {7: "Kitchen"}}
    assert second.memberships() == {} and second._groups is None and second._membership_listeners == ()
    assert second.on_membership == [] and second.on_membership is second.on_membership  # its own, once asked for
    third = spec.build()
    assert isinstance(third, GroupsServer) and third._groups is None


def test_scene_tables_and_their_listeners_are_each_copy_s_own(mount: Any) -> None:
    first, second, spec = _copied_pair("ScenesManagement")
    assert isinstance(first, ScenesManagementServer) and isinstance(second, ScenesManagementServer)
    assert first._fabrics is None and first._scenes_listeners == ()
    mount(first)
    mount(second)
    heard: list[Any] = []
    first.on_scenes.append(heard.append)
    with acting_as(Requester(1, lambda group: True)):
        added = {"groupID": 0, "sceneID": 1, "transitionTime": 0, "sceneName": "a", "extensionFieldSets": []}
        assert first.invoke("AddScene", added)["status"] == 0
    assert heard == [first] and first.export_scenes() != {}
    assert second._fabrics is None and second.export_scenes() == {} and second.read("FabricSceneInfo") == []
    third = spec.build()
    assert second._scenes_listeners == () and isinstance(third, ScenesManagementServer) and third._fabrics is None


def _servers(home: EmulatedHome) -> dict[tuple[str, int, str], ClusterServer]:
    return {
        (device.device_id, endpoint_id, name): server
        for device in home.devices()
        for endpoint_id, endpoint in device.endpoints.items()
        for name, server in endpoint.clusters.items()
    }


def test_servers_holding_their_table_s_values_read_one_object_until_their_first_change() -> None:
    """Servers built alike but not copied (an OperationalState's timers), and sensors without their live reading,
    read one values object in every home (``share_alike``); a change in one home is that server's alone, and a
    watcher's mark is raised by its own server's writes only."""
    config = generate_home("simuhome", 1)
    first, second = _servers(EmulatedHome(config)), _servers(EmulatedHome(config))
    alike = [key for key, server in first.items() if server._held in _ALIKE.values()]
    kinds = {type(first[key]).__name__ for key in alike}
    assert {"OperationalStateServer", "TemperatureMeasurementServer"} <= kinds, kinds
    assert all(second[key]._held is first[key]._held for key in alike)
    changed = 0
    for key in alike:
        mine, theirs = first[key], second[key]
        name = next((n for n in mine._held if type(mine.read(n)) is int), None)
        if name is None:
            continue
        before = theirs.read_all()
        mark, their_mark = WriteMark(), WriteMark()
        mine.watch_writes(mark)
        theirs.watch_writes(their_mark)
        value = mine.read(name)
        mine.set(name, value - 1 if value > 0 else value + 1)
        assert mine._held is not theirs._held and mine.read(name) != value and mark.written
        assert theirs.read_all() == before and not their_mark.written and theirs._held in _ALIKE.values()
        changed += 1
    assert changed > 0


def test_channel_servers_are_copies_and_tuning_one_leaves_another_alone(mount: Any) -> None:
    first, second, spec = _copied_pair("Channel")
    assert isinstance(first, ChannelServer) and isinstance(second, ChannelServer)
    mount(first)
    mount(second)
    before = second.read_all()
    first.skip(1)
    first.skip(1)
    assert first.read("CurrentChannel") != second.read("CurrentChannel") and first.previous_channel()
    assert second.read_all() == before and not second.previous_channel()
    third = spec.build()
    assert isinstance(third, ChannelServer) and third.read_all() == before


def test_without_a_channel_list_tuning_reads_the_channels_given_or_the_default_ones(mount: Any) -> None:
    default, given = ChannelServer(features=0), ChannelServer(features=0, channels=[dict(DEFAULT_CHANNELS[2])])
    mount(default, device_types=())
    assert default.channels == [dict(c) for c in DEFAULT_CHANNELS] and given.channels == [DEFAULT_CHANNELS[2]]
    default.skip(2)
    assert default.read("CurrentChannel") == DEFAULT_CHANNELS[2]
    assert default.channels == [dict(c) for c in DEFAULT_CHANNELS]  # a reader's copy: the default ones unchanged


def test_washer_controls_are_copies_sharing_the_default_options_and_a_mode_change_is_one_s_own(mount: Any) -> None:
    first, second, spec = _copied_pair("LaundryWasherControls")
    assert isinstance(first, LaundryWasherControlsServer) and isinstance(second, LaundryWasherControlsServer)
    assert first.options_by_mode is second.options_by_mode is WASHER_OPTIONS_BY_MODE
    pristine = dict(WASHER_OPTIONS_BY_MODE)
    mount(first)
    mount(second)
    before = second.read_all()
    label = next(name for name, options in WASHER_OPTIONS_BY_MODE.items() if list(options[0]) != before["SpinSpeeds"])
    first.apply_mode(label)
    assert first.read("SpinSpeeds") != before["SpinSpeeds"] and second.read_all() == before
    assert pristine == WASHER_OPTIONS_BY_MODE and spec.build().read_all() == before
    custom = LaundryWasherControlsServer(options_by_mode={"Normal": WASHER_OPTIONS_BY_MODE[label]})
    assert custom.options_by_mode == {"Normal": WASHER_OPTIONS_BY_MODE[label]}


def test_servers_watched_by_one_mark_share_its_hooks_until_one_needs_its_own(mount: Any) -> None:
    """A watcher's mark is kept in the server's hooks: the servers one mark watches share one hooks object (the
    mark's), and a server that then binds a source or gets an event listener takes its own, mark and all."""
    light, other = _copied_pair("OnOff")[:2]
    mount(light)
    mount(other)
    mark = WriteMark()
    assert light.watch_writes(mark) is False and other.watch_writes(mark) is False
    assert light._hooks is other._hooks is mark.hooks and light._hooks.write_mark is mark
    assert type(light._held) is _SharedValues  # watching takes no values of its own
    light.add_event_listener(lambda *_: None)
    assert light._hooks is not mark.hooks and light._hooks.write_mark is mark and other._hooks is mark.hooks
    assert mark.hooks.event_listeners == [] and mark.hooks.sources == {}
    light.set("OnOff", not light.read("OnOff"))
    assert mark.written
    mark.written = False
    other.bind_source("OnOff", lambda: True)
    assert other._hooks is not mark.hooks and mark.hooks.sources == {} and mark.written
    mark.written, later = False, WriteMark()
    light.watch_writes(later)  # its own hooks: the new mark replaces the old
    light.set("OnOff", not light.read("OnOff"))
    assert later.written and not mark.written
