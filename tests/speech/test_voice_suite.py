"""The voice suite without audio: placement in the home model, spatial references from two positions,
temporal tasks through automations in virtual time, determinism, oracle 100 % and null 0 %."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from benchmark.agents.base import AgentOutcome, AgentStep, AgentTask, ToolCaller
from benchmark.agents.null import NullAgent
from benchmark.suites.voice.spatial import Placed, Unresolved, resolve
from benchmark.suites.voice.voice_episode import VoiceEpisode, VoiceTurn, dumps_voice_episode, load_voice_episodes
from benchmark.suites.voice.voice_generate import (
    build_home,
    generate_voice_episode,
    generate_voice_episodes,
    lights,
    preserve_others,
    spatial_request,
)
from benchmark.suites.voice.voice_hearing import Hearing
from benchmark.suites.voice.voice_oracle import VoiceOracleAgent
from benchmark.suites.voice.voice_run import run_voice_episode
from benchmark.suites.voice.voices import seeded_rng
from emulator.emulated_home import EmulatedHome
from emulator.home_config import HomeConfigError, dump_home, validate_home
from emulator.placement import PLACEMENT_KEY, DevicePlacement, UserPosition, home_placement
from tests.speech.test_speech_cli import homefabric


def run(episode: VoiceEpisode, agent=None) -> dict:
    return asyncio.run(run_voice_episode(episode, agent or VoiceOracleAgent(), Hearing()))


class ReplayCalls:
    """Carries out fixed tool calls on every turn (a wrong-device or impatient agent, for the tests)."""

    name = "replay-calls"

    def __init__(self, calls: list[dict]) -> None:
        self.calls = calls

    async def run(self, task: AgentTask, tools: ToolCaller) -> AgentOutcome:
        steps = [
            AgentStep(i, None, c["tool"], c["args"], tools.call(c["tool"], c["args"])) for i, c in enumerate(self.calls)
        ]
        return AgentOutcome("Done.", steps, "finished")


# --- the home model ------------------------------------------------------------------------------------------


def test_placement_is_validated_with_its_path_and_kept_by_a_running_fabric() -> None:
    home = build_home(5, seeded_rng("t", 5))
    data = home.model_dump(mode="json")
    data["extensions"][PLACEMENT_KEY]["devices"]["ghost_lamp"] = {"x": 1, "y": 1}
    data["extensions"][PLACEMENT_KEY]["user"] = {"room": "attic", "x": 1, "y": 1}
    with pytest.raises(HomeConfigError) as error:
        validate_home(data)
    assert "extensions.placement.devices.ghost_lamp: unknown device 'ghost_lamp'" in str(error.value)
    assert "extensions.placement.user.room: unknown room 'attic'" in str(error.value)
    saved = EmulatedHome(home).to_config()  # a running home saves its placements back
    assert home_placement(saved.extensions) == home_placement(home.extensions)
    assert home_placement(home.extensions).devices["living_room_light_1"].anchor


def test_a_home_without_placement_loads_and_dumps_as_before() -> None:
    env = {"temperature": 2100, "humidity": 4500, "illuminance": 150, "pm10": 12}
    home = validate_home(
        {
            "name": "plain",
            "base_time": "2026-01-01 08:00:00",
            "rooms": [{"id": "den", "name": "Den", "type": "den", "environment": env}],
            "devices": [{"id": "lamp", "type": "on_off_light", "room": "den"}],
        }
    )
    assert "placement" not in dump_home(home)
    assert home_placement(home.extensions).devices == {}


# --- spatial references -----------------------------------------------------------------------------------


def _two_positions(home) -> tuple[UserPosition, UserPosition, str, str]:
    rng = seeded_rng("positions")
    for _ in range(500):
        a, b = (
            UserPosition(room="living_room", x=round(rng.uniform(0.3, 5.7), 1), y=round(rng.uniform(0.3, 4.2), 1))
            for _ in range(2)
        )
        try:
            first, second = (resolve("next_to_me", p, lights(home)) for p in (a, b))
        except Unresolved:
            continue
        if first != second:
            return a, b, first, second
    raise AssertionError("no two positions with different nearest lights")


def test_the_same_words_from_two_positions_act_on_two_devices() -> None:
    data = build_home(11, seeded_rng("home", 11)).model_dump(mode="json")
    for device in data["devices"]:  # every light off: the words are "turn on the light next to me" from anywhere
        if device["type"] == "dimmable_light":
            device["attributes"]["1.OnOff.OnOff"] = False
    home = validate_home(data)
    here, there, near_here, near_there = _two_positions(home)
    episodes = []
    for position in (here, there):
        text, gold, checks, target = spatial_request(home, "next_to_me", position, seeded_rng("words"))
        episodes.append(
            VoiceEpisode(
                episode_id=f"voice_spatial_{target}",
                seed=11,
                task_type="spatial",
                variant="one_request",
                home=home,
                turns=[VoiceTurn(text=text, position=position, act="execute", gold=gold)],
                checks=checks,
                preserve=preserve_others(home, {target}),
            )
        )
    assert episodes[0].turns[0].text == episodes[1].turns[0].text  # the same utterance …
    assert {episodes[0].turns[0].gold[0].args["device_id"], episodes[1].turns[0].gold[0].args["device_id"]} == {
        near_here,
        near_there,
    }  # … meant two different lights
    for episode in episodes:
        assert run(episode)["passed"]
    # acting on the light near the *other* position fails: the target unchanged, another light changed
    wrong = run(episodes[0], ReplayCalls([c.model_dump() for c in episodes[1].turns[0].gold]))
    assert not wrong["passed"] and not wrong["exec_match"]
    assert {c["device_id"] for c in wrong["preserve_failures"]} == {near_there}


def test_references_resolve_from_where_the_user_stands_and_faces() -> None:
    lamps = [
        Placed("window", "den", DevicePlacement(x=1, y=3, anchor="by the window")),
        Placed("sofa", "den", DevicePlacement(x=4, y=1, anchor="next to the sofa")),
        Placed("hall", "hall", DevicePlacement(x=1, y=1)),
    ]
    facing_north = UserPosition(room="den", x=3.5, y=2, facing_deg=0)
    assert resolve("behind_me", facing_north, lamps) == "sofa"
    assert resolve("behind_me", facing_north.model_copy(update={"facing_deg": 180}), lamps) == "window"
    assert resolve("anchor", facing_north, lamps, "by the window") == "window"
    assert resolve("in_here", UserPosition(room="hall", x=2, y=1), lamps) == "hall"
    with pytest.raises(Unresolved):
        resolve("in_here", facing_north, lamps)  # two lights in the den


# --- temporal through automations, in virtual time -------------------------------------------------------


def _variant(task_type: str, variant: str) -> VoiceEpisode:
    for seed in range(1, 200):
        episode = generate_voice_episode(task_type, seed)
        if episode.variant == variant:
            return episode
    raise AssertionError(f"no {task_type} {variant} episode")


@pytest.mark.parametrize("variant", ["delay", "leave_room", "washer_done", "weekday_routine"])
def test_temporal_requests_are_carried_by_automations_and_checked_in_virtual_time(variant: str) -> None:
    episode = _variant("temporal", variant)
    record = run(episode)
    assert record["passed"], record["checks"]
    call, finish = record["turns"][0]["invocations"]
    assert call["tool"] == "create_automation" and call["ok"] and finish["tool"] == "finish"
    times = sorted(c["virtual_time"] for c in record["checks"])
    assert times[0] < times[-1] and record["virtual_end"] > episode.home.base_time  # it ran forward in time
    # doing it at once instead of at the right moment fails the check before the moment
    actions = [{"tool": a["tool"], "args": a["args"]} for a in episode.turns[0].gold[0].args["actions"]]
    impatient = run(episode, ReplayCalls(actions))
    assert not impatient["passed"] and any(not c["ok"] for c in impatient["checks"])


def test_a_weekday_routine_fires_on_weekdays_only() -> None:
    episode = _variant("temporal", "weekday_routine")
    cron = episode.turns[0].gold[0].args["trigger"]["cron"]
    assert cron.endswith("? * MON-FRI *")
    record = run(episode)
    assert record["passed"] and len(record["checks"]) == 7
    assert sorted(c["value"] for c in record["checks"]) == [False, False, True, True, True, True, True]
    daily = json.loads(json.dumps([c.model_dump() for c in episode.turns[0].gold]))
    daily[0]["args"]["trigger"]["cron"] = cron.replace("MON-FRI", "*")  # every day: wrong on the weekend
    wrong = run(episode, ReplayCalls(daily))
    assert not wrong["passed"] and sorted(c["value"] for c in wrong["checks"] if not c["ok"]) == [False, False]


# --- the generated suite -----------------------------------------------------------------------------------


def test_generation_is_byte_identical_per_seed_through_the_cli(tmp_path: Path) -> None:
    for name in ("a", "b"):
        result = homefabric(
            "episodes", "generate", "--suite", "voice", "--per-type", "3", "--seed", "4", "--out", str(tmp_path / name)
        )
        assert result.returncode == 0, result.stderr
    files = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert len(files) == 9
    assert all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files)
    other = [dumps_voice_episode(e) for e in generate_voice_episodes(3, 5)]
    assert other != [(tmp_path / "a" / f).read_text() for f in files]
    assert [e.episode_id for e in load_voice_episodes(tmp_path / "a")] == [f.removesuffix(".json") for f in files]
    bad = homefabric("episodes", "generate", "--suite", "voice", "--qt", "weather", "--out", str(tmp_path / "c"))
    assert bad.returncode == 2 and "unknown voice task type(s) ['weather']" in bad.stderr
    assert not (tmp_path / "c").exists()


def test_the_oracle_solves_the_whole_suite_and_the_null_agent_none() -> None:
    episodes = generate_voice_episodes(8, 7)
    assert {e.task_type for e in episodes} == {"spatial", "temporal", "clarify"}
    assert {
        "two_requests",
        "delay",
        "leave_room",
        "washer_done",
        "weekday_routine",
        "which_device",
        "missing_level",
    } <= {e.variant for e in episodes}
    oracle = [run(e) for e in episodes]
    assert all(r["passed"] for r in oracle), [r["episode_id"] for r in oracle if not r["passed"]]
    clarify = [r for r in oracle if r["task_type"] == "clarify"]
    assert all([t["act"] for t in r["turns"]] == ["clarify", "execute"] for r in clarify)  # asked, then acted
    null = [run(e, NullAgent()) for e in episodes]
    assert not any(r["passed"] for r in null)
    assert all(not r["act_match"] for r in null if r["task_type"] == "clarify")  # it never asks


# --- home systems (opt-in) -------------------------------------------------------------------------------------


def test_home_systems_are_opt_in_and_scored_when_the_world_acts() -> None:
    """``home_systems`` is generated only when named; its home gains the button, the leak sensor and the valve;
    the oracle's rule passes, the null agent fails, and doing it at once fails the check before the press/leak."""
    assert {e.task_type for e in generate_voice_episodes(1, 7)} == {"spatial", "temporal", "clarify"}
    episodes = generate_voice_episodes(6, 7, "home_systems")
    assert {e.variant for e in episodes} == {"button_light", "leak_valve"}
    for episode in episodes:
        types = {d.id: d.type for d in episode.home.devices}
        assert types["hallway_button"] == "generic_switch" and types["main_water_valve"] == "water_valve"
        assert [e.kind for e in episode.events] == [
            "press_button" if episode.variant == "button_light" else "sense_water"
        ]
        record = run(episode)
        assert record["passed"], record["checks"]
        assert not run(episode, NullAgent())["passed"]
        actions = [{"tool": a["tool"], "args": a["args"]} for a in episode.turns[0].gold[0].args["actions"]]
        impatient = run(episode, ReplayCalls(actions))
        assert not impatient["passed"] and not impatient["checks"][0]["ok"]
