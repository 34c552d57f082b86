"""The seeded episode generator: all 12 kinds, SimuHome's format, determinism, and goals that hold up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmark.generation.episode_layout import KINDS
from benchmark.generation.generate import (
    GeneratorInputError,
    dumps_episode,
    episode_file_name,
    generate_episode,
    generate_episodes,
    parse_kinds,
    write_episodes,
)
from benchmark.generation.grammar import DEVICE_LABELS, device_number
from benchmark.generation.homes import build_home, export_initial_home_config
from benchmark.generation.qt2 import ACTORS, HORIZON_S, THRESHOLD, drive
from benchmark.generation.targets import _same
from emulator.emulated_home import EmulatedHome
from emulator.simuhome.import_home import from_simuhome
from emulator.simuhome.paths import our_path

PER_TYPE = 3


@pytest.fixture(scope="module")
def episodes() -> list[dict[str, Any]]:
    return generate_episodes("all", PER_TYPE, 7)


def by_kind(episodes: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in episodes if e["homefabric"]["kind"] == kind]


def fabric_of(episode: dict[str, Any]) -> EmulatedHome:
    config, _ = from_simuhome(episode["initial_home_config"])
    return EmulatedHome(config)


def test_all_twelve_kinds_in_simuhome_layout(episodes):
    assert len(episodes) == 12 * PER_TYPE
    assert sorted({e["homefabric"]["kind"] for e in episodes}) == sorted(KINDS)
    for episode in episodes:
        assert list(episode)[:5] == ["meta", "query", "user_location", "eval", "initial_home_config"]
        meta = episode["meta"]
        assert {"seed", "query_type", "case", "num_rooms", "num_devices"} <= set(meta)
        assert f"{meta['query_type']}_{meta['case']}" == episode["homefabric"]["kind"]
        assert episode["homefabric"]["format"] == "homefabric-episode/1"
        assert isinstance(episode["query"], str) and episode["query"]
        assert episode["user_location"] in episode["initial_home_config"]["rooms"]
        home = episode["initial_home_config"]
        assert home["tick_interval"] == 0.1 and len(home["rooms"]) == 5
        for room in home["rooms"].values():
            assert set(room["state"]) == {"temperature", "humidity", "illuminance", "pm10"}
            for device in room["devices"]:
                assert set(device) == {"device_id", "device_type", "attributes"}
        assert ("temporal_conflict" in episode) == (
            meta["query_type"].startswith("qt4") and meta["case"] == "infeasible"
        )
        for action in episode["eval"]["required_actions"]:
            assert action["tool"] in ("get_room_states", "get_room_devices")
            assert set(action["params"]) == {"room_id"}


def test_files_load_with_the_episode_model(episodes, tmp_path):
    write_episodes(episodes, tmp_path)
    from benchmark.suites.simuhome.episode import load_episodes

    loaded, problems = load_episodes(tmp_path)
    assert problems == []
    assert len(loaded) == len(episodes)
    assert {e.kind for e in loaded} == set(KINDS)


def test_same_seed_gives_byte_identical_files(tmp_path):
    first = write_episodes(generate_episodes(["qt2", "qt3_feasible", "qt4-3"], 2, 3), tmp_path / "a")
    second = write_episodes(generate_episodes(["qt2", "qt3_feasible", "qt4-3"], 2, 3), tmp_path / "b")
    assert [p.name for p in first] == [p.name for p in second]
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes()
    assert all(p.read_text(encoding="utf-8").endswith("}\n") for p in first)
    other = generate_episodes(["qt3_feasible"], 2, 4)
    assert [e["query"] for e in other] != [json.loads(p.read_text())["query"] for p in first if "qt3_f" in p.name]


def test_file_names_and_seed_ranges():
    episode = generate_episode("qt1", "feasible", 5003, base_seed=5)
    assert episode_file_name(episode) == "qt1_feasible_seed_5003.json"
    assert dumps_episode(episode) == dumps_episode(json.loads(dumps_episode(episode)))
    assert parse_kinds("qt4-2") == [("qt4-2", "feasible"), ("qt4-2", "infeasible")]
    assert parse_kinds("qt1_infeasible,qt1_feasible") == [("qt1", "feasible"), ("qt1", "infeasible")]
    with pytest.raises(GeneratorInputError):
        parse_kinds("qt9")
    with pytest.raises(GeneratorInputError):
        generate_episodes("all", 0, 1)


def test_episode_home_loads_back_identically():
    generating, home = build_home(12345)
    reloaded = home.fabric()
    assert [d.device_id for d in reloaded.devices()] == [d.device_id for d in generating.devices()]
    for device in generating.devices():
        expected = generating.read_all(device.device_id)
        actual = reloaded.read_all(device.device_id)
        exported = {
            our_path(p): v
            for room in home.initial_home_config["rooms"].values()
            for d in room["devices"]
            if d["device_id"] == device.device_id
            for p, v in d["attributes"].items()
        }
        for path in set(exported) & set(expected):  # (SimuHome's constants for paths we lack are not ours)
            if exported[path] is None and path not in actual:
                continue  # SimuHome's null for an attribute its device lacks (a humidity sensor's Tolerance)
            assert actual[path] == expected[path], (device.device_id, path)
    for room in generating.rooms():
        assert reloaded.room_state(room.room_id) == generating.room_state(room.room_id)
    # Exporting the reloaded home gives the same file again.
    assert export_initial_home_config(reloaded) == home.initial_home_config


def _mentioned(query: str, device_id: str, device_type: str) -> bool:
    number = device_number(device_id)
    return any(f"{label.lower()} {number}" in query.lower() for label in DEVICE_LABELS[device_type])


def test_every_query_names_its_targets(episodes):
    for episode in episodes:
        query = episode["query"].lower()
        mentions = episode["homefabric"]["mentions"]
        for room in mentions["rooms"]:
            assert room in query, (episode["query"], room)
        for goal in episode["eval"]["goals"]:
            entries = goal.get("targets", [goal])
            for entry in entries:
                if "device_id" in entry and episode["meta"]["query_type"] != "qt2":
                    assert _mentioned(query, entry["device_id"], entry["device_type"]), episode["query"]
                assert entry["room_id"].replace("_", " ") in query, episode["query"]
            if goal.get("anchor"):
                assert _mentioned(query, goal["anchor"]["device_id"], goal["anchor"]["device_type"])
        for clock in mentions["times"]:
            assert clock.lower() in query


def test_qt2_queries_never_state_the_action(episodes):
    words = {label.lower() for labels in DEVICE_LABELS.values() for label in labels} | {"turn", "switch", "lights"}
    for episode in by_kind(episodes, "qt2_feasible") + by_kind(episodes, "qt2_infeasible"):
        tokens = set(episode["query"].lower().replace(",", " ").split())
        assert not tokens & words, episode["query"]


def _apply_solution(fabric: EmulatedHome, solution: list[dict[str, Any]]) -> None:
    for call in solution:
        params = call["params"]
        ours = our_path(f"{params['endpoint_id']}.{params['cluster_id']}.X").split(".")[1]
        if call["tool"] == "execute_command":
            fabric.invoke(params["device_id"], params["endpoint_id"], ours, params["command_id"], params["args"])
        else:
            fabric.write(params["device_id"], params["endpoint_id"], ours, params["attribute_id"], params["value"])


def _read(fabric: EmulatedHome, device_id: str, simuhome_attribute: str) -> Any:
    path = our_path(simuhome_attribute)
    assert path is not None, simuhome_attribute
    return fabric.read_path(device_id, path)


def test_qt3_feasible_goals_are_reachable_and_not_already_satisfied(episodes):
    for episode in by_kind(episodes, "qt3_feasible"):
        before = fabric_of(episode)
        for goal in episode["eval"]["goals"]:
            asserts = goal["asserts"]
            assert any(not _same(_read(before, goal["device_id"], a["attribute"]), a["value"]) for a in asserts)
        after = fabric_of(episode)
        _apply_solution(after, episode["homefabric"]["solution"])
        for goal in episode["eval"]["goals"]:
            for a in goal["asserts"]:
                assert _same(_read(after, goal["device_id"], a["attribute"]), a["value"]), (goal["device_id"], a)


def test_infeasible_device_goals_name_removed_devices(episodes):
    for kind in ("qt1_infeasible", "qt3_infeasible"):
        for episode in by_kind(episodes, kind):
            present = {d.device_id for d in fabric_of(episode).devices()}
            named = [g["device_id"] for g in episode["eval"]["goals"] if "device_id" in g]
            assert named and not set(named) & present


def test_qt1_feasible_values_are_what_the_agent_reads(episodes):
    for episode in by_kind(episodes, "qt1_feasible"):
        fabric = fabric_of(episode)
        for goal in episode["eval"]["goals"]:
            if goal["variant"] == "room_state":
                raw = fabric.room_state(goal["room_id"])[goal["room_state"]]
                scale = 100 if goal["room_state"] in ("temperature", "humidity") else 1
                assert goal["current_value"] == round(raw / scale, 2)
            else:
                assert _read(fabric, goal["device_id"], goal["attribute"]) == goal["current_value"]


def _moved(episode: dict[str, Any], goal: dict[str, Any], *, act: bool) -> float:
    fabric = fabric_of(episode)
    baseline = fabric_of(episode)
    if act:
        drive(fabric, goal["room_id"], goal["room_state"], goal["direction"])
    fabric.advance(HORIZON_S)
    baseline.advance(HORIZON_S)
    delta = (
        fabric.room_state(goal["room_id"], exact=True)[goal["room_state"]]
        - baseline.room_state(goal["room_id"], exact=True)[goal["room_state"]]
    )
    return delta if goal["direction"] == "increase" else -delta


def test_qt2_feasible_goals_are_achievable(episodes):
    for episode in by_kind(episodes, "qt2_feasible"):
        fabric = fabric_of(episode)
        baseline = fabric_of(episode)
        _apply_solution(fabric, episode["homefabric"]["solution"])
        fabric.advance(HORIZON_S)
        baseline.advance(HORIZON_S)
        for goal in episode["eval"]["goals"]:
            assert goal["feasibility"] is True
            delta = (
                fabric.room_state(goal["room_id"], exact=True)[goal["room_state"]]
                - baseline.room_state(goal["room_id"], exact=True)[goal["room_state"]]
            )
            signed = delta if goal["direction"] == "increase" else -delta
            assert signed >= THRESHOLD[goal["room_state"]], (episode["query"], goal, delta)


def test_qt2_infeasible_families(episodes):
    families = set()
    extra = [generate_episode("qt2", "infeasible", 9000 + i, base_seed=9) for i in range(6)]
    for episode in by_kind(episodes, "qt2_infeasible") + extra:
        family = episode["meta"]["infeasible_family"]
        families.add(family)
        goal = episode["eval"]["goals"][0]
        if family == "contextual_saturation":
            assert goal["feasibility"] is False and episode["meta"]["feasibility"] is False
            assert _moved(episode, goal, act=True) == pytest.approx(0.0, abs=1e-6)
        else:
            room_types = {d.device_type for d in fabric_of(episode).devices(goal["room_id"])}
            assert not room_types & set(ACTORS[goal["room_state"]])
            assert goal["device_id"].startswith(goal["room_id"])
    assert families == {"contextual_saturation", "nonexistence"}


def _schedule_solution(fabric: EmulatedHome, solution: list[dict[str, Any]]) -> None:
    from emulator.workflows import WorkflowStep

    now = [c for c in solution if c["tool"] != "schedule_workflow"]
    _apply_solution(fabric, now)
    for call in solution:
        if call["tool"] != "schedule_workflow":
            continue
        steps = []
        for step in call["params"]["steps"]:
            args = step["args"]
            cluster = our_path(f"{args['endpoint_id']}.{args['cluster_id']}.X").split(".")[1]
            if step["tool"] == "execute_command":
                steps.append(
                    WorkflowStep(
                        kind="invoke",
                        device_id=args["device_id"],
                        endpoint=args["endpoint_id"],
                        cluster=cluster,
                        name=args["command_id"],
                        args=args["args"],
                    )
                )
            else:
                steps.append(
                    WorkflowStep(
                        kind="write",
                        device_id=args["device_id"],
                        endpoint=args["endpoint_id"],
                        cluster=cluster,
                        name=args["attribute_id"],
                        value=args["value"],
                    )
                )
        fabric.schedule(call["params"]["start_time"], steps)


def _goal_holds(fabric: EmulatedHome, goal: dict[str, Any]) -> bool:
    return all(
        _same(_read(fabric, t["device_id"], a["attribute"]), a["value"]) for t in goal["targets"] for a in t["asserts"]
    )


def _window_results(episode: dict[str, Any], *, act: bool) -> list[bool]:
    """For each goal, does it hold at some tick of its window (checked every second)?"""
    goals = sorted(episode["eval"]["goals"], key=lambda g: g["when"]["at_tick"])
    results = []
    for goal in goals:
        fabric = fabric_of(episode)
        if act:
            _schedule_solution(fabric, episode["homefabric"]["solution"])
        w = goal["when"]
        ticks = range(max(0, w["at_tick"] - w["tolerance_ticks"]), w["at_tick"] + w["tolerance_ticks"] + 1, 10)
        held = False
        for tick in ticks:
            fabric.run_until(tick)
            if _goal_holds(fabric, goal):
                held = True
                break
        results.append(held)
    return results


@pytest.mark.parametrize("kind", ["qt4-1_feasible", "qt4-2_feasible", "qt4-3_feasible"])
def test_qt4_feasible_schedules_are_solvable_and_not_free(episodes, kind):
    for episode in by_kind(episodes, kind):
        for goal in episode["eval"]["goals"]:
            w = goal["when"]
            sign = 1 if w["relation"] == "after" else -1
            assert w["at_tick"] == w["reference_tick"] + sign * w["offset_ticks"]
            assert w["tolerance_ticks"] in (0, 300)
        assert all(_window_results(episode, act=True)), episode["query"]
        assert not all(_window_results(episode, act=False)), episode["query"]


def test_qt4_anchor_reference_is_the_countdown(episodes):
    for kind in ("qt4-2_feasible", "qt4-2_infeasible", "qt4-3_feasible", "qt4-3_infeasible"):
        for episode in by_kind(episodes, kind):
            goal = episode["eval"]["goals"][0]
            anchor = goal["anchor"]["device_id"]
            fabric = fabric_of(episode)
            countdown = fabric.read(anchor, 1, "OperationalState", "CountdownTime")
            end = countdown * 10
            ends = {g["when"]["reference_tick"] for g in episode["eval"]["goals"]} | {
                episode.get("homefabric", {}).get("verification", {}).get("anchor_end_tick", end)
            }
            assert end in ends
            fabric.run_until(end - 1)
            assert fabric.read(anchor, 1, "OperationalState", "OperationalState") == 1
            fabric.run_until(end)
            assert fabric.read(anchor, 1, "OperationalState", "OperationalState") == 0
            if "temporal_conflict" in episode:
                assert episode["temporal_conflict"]["anchor_end_at"] == round(end / 600)


def test_qt4_infeasible_conflicts(episodes):
    types = set()
    for kind in ("qt4-1_infeasible", "qt4-2_infeasible", "qt4-3_infeasible"):
        for episode in by_kind(episodes, kind):
            conflict = episode["temporal_conflict"]
            types.add(conflict["type"])
            assert episode["meta"]["conflict_type"] == conflict["type"]
            assert episode["eval"]["required_actions"] == []
            assert conflict["base_time"] == episode["initial_home_config"]["base_time"]
            if "expected_at" in conflict and "conflict_at" in conflict:
                assert 5 <= abs(conflict["conflict_at"] - conflict["expected_at"]) <= 20
    assert {"absolute_time_mismatch_nonop_multi", "timing_mismatch_op_nonop"} <= types


def test_cli_writes_files(tmp_path: Path):
    import typer
    from typer.testing import CliRunner

    app = typer.Typer()
    from benchmark.cli import generate_command

    app.command()(generate_command)
    result = CliRunner().invoke(app, ["--qt", "qt1", "--per-type", "2", "--seed", "2", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "qt1_feasible_seed_2001.json",
        "qt1_feasible_seed_2002.json",
        "qt1_infeasible_seed_2001.json",
        "qt1_infeasible_seed_2002.json",
    ]
    bad = CliRunner().invoke(app, ["--qt", "qt7", "--out", str(tmp_path)])
    assert bad.exit_code == 2
