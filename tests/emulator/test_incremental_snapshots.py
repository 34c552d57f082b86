"""A home's snapshot reads again only the devices a stored write marked, and the servers read live
(emulator/device_readings.py): at every step of real oracle episodes of every kind, of a fast-forward with room
physics, moving covers and colours and running cycles, and of writes that tell no listener, it is byte for byte the
snapshot that reads every server afresh."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import emulator.device_readings as device_readings
import emulator.home_devices as home_devices
from agent_tools.toolbox import ToolBox
from benchmark.generation.generate import episode_file_name, generate_episodes
from benchmark.runs.runner import Runner
from benchmark.runs.spec import parse_spec
from benchmark.scoring.evaluators.state_comparison import fresh_fabric
from benchmark.suites.simuhome.episode import Episode, load_episodes, parse_episode
from clusters.attribute_values import AttributeValues, WriteMark
from clusters.base import _SharedValues
from emulator.catalogue import CATALOGUE
from emulator.device_readings import BuiltReadings
from emulator.emulated_home import EmulatedHome, prepared_home
from emulator.home_config import DeviceConfig
from tests.benchmark.fixture_episodes import EPISODE_DIR
from tests.emulator.helpers import MOVING_COMMANDS, every_type_home
from tests.emulator.helpers import home as home_config


def _full_snapshot(home: EmulatedHome, kept: dict[str, Any]) -> dict[str, Any]:
    """``kept`` with every device's attributes read afresh, server by server (``HomeAPI.read_all``)."""
    devices = {
        device_id: {**device, "attributes": home.read_all(device_id)} for device_id, device in kept["devices"].items()
    }
    return {**kept, "devices": devices}


class ReadCounter:
    """How many devices the snapshots read again in full (a write marked them, or they were new)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.full_reads = 0
        read = home_devices.read_device

        def counted(device: Any, *, shared_lists: bool) -> dict[str, Any]:
            self.full_reads += 1
            return read(device, shared_lists=shared_lists)

        monkeypatch.setattr(device_readings, "read_device", counted)


def assert_same_as_full(home: EmulatedHome) -> dict[str, Any]:
    snapshot = home.snapshot()
    assert repr(snapshot) == repr(_full_snapshot(home, snapshot))  # repr: the same types (1, 1.0, True) and order
    return snapshot


def _run_checking_every_step(
    episodes: list[Episode], out: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, list[str]]:
    """The oracle over ``episodes``, the snapshot compared with a full one after every tool call."""
    steps = 0
    call, snapshot = ToolBox.call, EmulatedHome.snapshot

    def every_snapshot_checked(home: EmulatedHome) -> dict[str, Any]:  # before, after, the no-agent worlds'
        taken = snapshot(home)
        assert repr(taken) == repr(_full_snapshot(home, taken))
        return taken

    def checked(toolbox: ToolBox, name: str, arguments: object = None) -> dict[str, Any]:
        nonlocal steps
        envelope = call(toolbox, name, arguments)
        assert isinstance(toolbox.fabric, EmulatedHome)
        assert_same_as_full(toolbox.fabric)
        steps += 1
        return envelope

    monkeypatch.setattr(ToolBox, "call", checked)
    monkeypatch.setattr(EmulatedHome, "snapshot", every_snapshot_checked)
    spec = parse_spec(
        {"episodes": {"path": str(out)}, "agent": {"name": "oracle"}, "judge": {"kind": "rules"}, "concurrency": 1}
    )
    asyncio.run(Runner(spec, out / "run", progress=False).run(episodes))
    lines = (out / "run" / "records.jsonl").read_text().splitlines()
    return steps, lines


def test_every_step_of_oracle_episodes_of_every_kind_matches_a_full_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fixtures, problems = load_episodes(str(EPISODE_DIR))
    assert not problems
    generated = []
    for data in generate_episodes("all", 2, 7):
        name = episode_file_name(data).removesuffix(".json")
        generated.append(parse_episode(data, name, episode_id=name, check_home=False))
    episodes = fixtures + generated
    assert {episode.kind for episode in fixtures} == {episode.kind for episode in generated}
    assert len({episode.kind for episode in episodes}) == 12
    devices = len(fresh_fabric(episodes[0].initial_home_config).devices())
    counter = ReadCounter(monkeypatch)
    steps, lines = _run_checking_every_step(episodes + episodes[:12], tmp_path, monkeypatch)  # some built again
    assert len(lines) == len(episodes) + 12
    assert steps > 2 * len(episodes)
    assert 0 < counter.full_reads < steps * devices / 4  # most steps re-read a few devices, some re-read one


def _moving_home() -> EmulatedHome:
    home = every_type_home()
    assert_same_as_full(home)
    for device_id, endpoint, cluster, command, args in MOVING_COMMANDS:
        home.invoke(device_id, endpoint, cluster, command, args)
        assert_same_as_full(home)
    return home


def test_a_fast_forward_with_physics_and_running_cycles_matches_a_full_snapshot_at_every_step(
    monkeypatch: pytest.MonkeyPatch,
):
    counter = ReadCounter(monkeypatch)
    home = _moving_home()
    first = assert_same_as_full(home)
    changed_between_steps = 0
    previous = first
    for _ in range(40):  # 40 steps of 7.3 virtual seconds: moves under way, cycles counting down
        home.run_until(home.tick + 73)
        now = assert_same_as_full(home)
        changed_between_steps += bool(EmulatedHome.diff(previous, now))
        previous = now
    for _ in range(6):  # then whole hours at a time: cycles end, rooms drift towards their baselines
        home.run_until(home.tick + 36_000)
        now = assert_same_as_full(home)
        changed_between_steps += bool(EmulatedHome.diff(previous, now))
        previous = now
    assert changed_between_steps >= 30
    assert EmulatedHome.diff(first, previous)
    assert counter.full_reads < len(home.devices()) * 47  # not every device at every step


def test_writes_that_tell_no_listener_and_sources_bound_later_show_in_the_next_snapshot():
    home = _moving_home()
    before = assert_same_as_full(home)
    lock = next(d for d in home.devices() if d.find(1, "DoorLock") is not None)
    server = lock.cluster(1, "DoorLock")
    assert type(server._held) is _SharedValues  # watched, yet still reading the values its copies share
    values = server._values  # a stored write below the listeners, as some servers make in their own state
    values["AutoRelockTime"] = values["AutoRelockTime"] + 60
    after = assert_same_as_full(home)
    assert [c["path"] for c in EmulatedHome.diff(before, after)] == ["1.DoorLock.AutoRelockTime"]
    server.bind_source("AutoRelockTime", lambda: 7)  # a value read live from now on
    assert assert_same_as_full(home)["devices"][lock.device_id]["attributes"]["1.DoorLock.AutoRelockTime"] == 7


def test_watching_for_writes_keeps_the_values_copied_servers_share():
    """A snapshot watches every server for writes; servers copied from a catalogue entry keep reading its values
    until their first change (clusters/base.py ``_RareHooks.write_mark``: the mark goes to their own values when they
    take them), so a snapshotted home costs no more memory than an unread one."""
    home = _moving_home()
    servers = [s for d in home.devices() for e in d.endpoints.values() for s in e.clusters.values()]
    sharing = sum(type(s._held) is _SharedValues for s in servers)
    assert sharing > len(servers) // 2
    home.snapshot()
    assert sum(type(s._held) is _SharedValues for s in servers) == sharing


def test_a_snapshot_hands_out_dicts_of_the_callers_own():
    home = _moving_home()
    first = home.snapshot()
    device_id = next(iter(first["devices"]))
    first["devices"][device_id]["attributes"].clear()
    assert assert_same_as_full(home)["devices"][device_id]["attributes"]


def test_every_change_of_stored_values_raises_the_mark_and_a_copy_starts_without_one():
    values = AttributeValues({"a": 1, "b": 2})
    mark = values.mark = WriteMark()
    for change in (
        lambda: values.__setitem__("a", 1),  # the same value: raised all the same (marks are cheap, misses are not)
        lambda: values.__setitem__("a", 3),
        lambda: values.update({"b": 4}),
        lambda: values.__setitem__("c", 5),
        lambda: values.pop("c"),
        lambda: values.pop("absent"),  # binding a live source drops the stored name first, present or not
    ):
        mark.written = False
        change()
        assert mark.written
    assert values.copy().mark is None


def test_homes_built_from_one_config_share_what_their_untouched_devices_hold(monkeypatch: pytest.MonkeyPatch):
    config, built = home_config([(name, name, "living") for name in sorted(CATALOGUE)]), BuiltReadings()
    first = prepared_home(config, built)
    lock = next(d.device_id for d in first.devices() if d.find(1, "DoorLock") is not None)
    first.invoke(lock, 1, "DoorLock", "UnlockDoor", {})  # written before its first snapshot: not as built
    assert_same_as_full(first)
    assert sorted(built.values) == sorted(d.device_id for d in first.devices() if d.device_id != lock)
    counter = ReadCounter(monkeypatch)
    second = prepared_home(config, built)
    second.run_until(second.tick + 600)  # a minute on: live values move, stored ones stay as built
    assert_same_as_full(second)
    assert 1 <= counter.full_reads < len(second.devices()) / 2  # the lock, and the devices the minute wrote to
    assert lock in built.values  # read as built this time
    counter.full_reads = 0
    third = prepared_home(config, built)
    assert_same_as_full(third)
    assert counter.full_reads == 0
    third.invoke(lock, 1, "DoorLock", "UnlockDoor", {})
    assert_same_as_full(third)
    assert counter.full_reads == 1


def test_a_device_removed_and_added_again_under_its_id_is_read_afresh():
    home = _moving_home()
    assert assert_same_as_full(home)["devices"]["dimmable_light"]["attributes"]["1.OnOff.OnOff"] is False
    home.remove_device("dimmable_light")  # no snapshot in between: the new device is another object, no mark raised
    home.add_device(
        DeviceConfig(id="dimmable_light", type="dimmable_light", room="living", attributes={"1.OnOff.OnOff": True})
    )
    assert assert_same_as_full(home)["devices"]["dimmable_light"]["attributes"]["1.OnOff.OnOff"] is True
