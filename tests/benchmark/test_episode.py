"""Episode model: the 12 kinds load, unknown fields survive a round trip, bad files are reported and skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark.suites.simuhome.episode import (
    KINDS,
    DirectionGoal,
    ScheduleGoal,
    TargetGoal,
    kind_counts,
    load_episodes,
    parse_episode,
)
from emulator.simuhome.shapes import shape_disagreements, shared_paths
from tests.benchmark.fixture_episodes import EPISODE_DIR, build_all


def test_fixture_files_match_their_builder():
    built = build_all()
    on_disk = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in EPISODE_DIR.glob("*.json")}
    assert on_disk == built


def test_fixture_homes_carry_simuhome_published_shapes():
    for episode_id, episode in build_all().items():
        home = episode["initial_home_config"]
        assert shape_disagreements(home) == [], episode_id
        assert shared_paths(home) > 200


def test_every_kind_loads_with_its_goal_shapes():
    episodes, problems = load_episodes(EPISODE_DIR)
    assert problems == []
    counts = kind_counts(episodes)
    assert all(counts[kind] >= 1 for kind in KINDS), counts
    by_id = {e.episode_id: e for e in episodes}
    assert isinstance(by_id["qt3_feasible_seed_7"].goals[0], TargetGoal)
    assert isinstance(by_id["qt4-2_feasible_seed_12"].goals[0], ScheduleGoal)
    assert by_id["qt4-2_feasible_seed_12"].goals[0].when.at_tick == 8800
    nonexistence = by_id["qt2_infeasible_seed_6"]
    assert nonexistence.meta.model_extra["infeasible_family"] == "nonexistence"
    assert isinstance(nonexistence.goals[0], DirectionGoal) and nonexistence.goals[0].feasibility is None
    assert by_id["qt4-3_infeasible_seed_17"].temporal_conflict.type == "completion_vs_pause"
    assert by_id["qt1_feasible_seed_1"].kind == "qt1_feasible"


def test_round_trip_keeps_unknown_fields_at_every_level():
    data = build_all()["qt4-2_feasible_seed_12"]
    data["x_top"] = {"note": 1}
    data["meta"]["x_meta"] = [1, 2]
    data["eval"]["x_eval"] = True
    data["eval"]["required_actions"][0]["x_ra"] = "kept"
    goal = data["eval"]["goals"][0]
    goal["x_goal"] = "g"
    goal["when"]["x_when"] = 3
    goal["anchor"]["x_anchor"] = None
    goal["targets"][0]["asserts"][0]["x_assert"] = 0.5
    data["homefabric"] = {"format": "homefabric-episode/1", "generator": {"version": 2}}
    episode = parse_episode(data)
    assert episode.to_json_dict() == data
    again = parse_episode(json.loads(episode.dumps()))
    assert again.to_json_dict() == data


def test_malformed_files_are_reported_by_name_and_path_and_skipped(tmp_path: Path):
    good = build_all()["qt3_feasible_seed_7"]
    (tmp_path / "qt3_feasible_seed_7.json").write_text(json.dumps(good), encoding="utf-8")
    bad_value = json.loads(json.dumps(good))
    bad_value["eval"]["goals"][1]["asserts"][0].pop("attribute")
    (tmp_path / "qt3_feasible_seed_99.json").write_text(json.dumps(bad_value), encoding="utf-8")
    wrong_shape = build_all()["qt4-1_feasible_seed_10"]
    wrong_shape["eval"]["goals"][0]["when"]["at_tick"] = "soon"
    (tmp_path / "qt4-1_feasible_seed_98.json").write_text(json.dumps(wrong_shape), encoding="utf-8")
    (tmp_path / "broken.json").write_text("{not json", encoding="utf-8")
    bad_home = build_all()["qt1_feasible_seed_1"]
    bad_home["initial_home_config"]["rooms"]["kitchen"]["devices"][0]["device_type"] = "toaster"
    (tmp_path / "qt1_feasible_seed_97.json").write_text(json.dumps(bad_home), encoding="utf-8")
    episodes, problems = load_episodes(tmp_path)
    assert [e.episode_id for e in episodes] == ["qt3_feasible_seed_7"]
    where = {(Path(p.file).name, p.json_path) for p in problems}
    assert ("qt3_feasible_seed_99.json", "eval.goals[1].target.asserts[0].attribute") in where or any(
        f == "qt3_feasible_seed_99.json" and "asserts[0].attribute" in j for f, j in where
    )
    assert any(f == "qt4-1_feasible_seed_98.json" and j.endswith("when.at_tick") for f, j in where)
    assert any(f == "broken.json" and j == "" for f, j in where)
    assert any(f == "qt1_feasible_seed_97.json" and j.startswith("initial_home_config") for f, j in where)


def test_goal_shape_must_fit_the_query_type():
    data = build_all()["qt3_feasible_seed_7"]
    data["eval"]["goals"].append({"room_id": "kitchen", "room_state": "pm10", "direction": "decrease"})
    with pytest.raises(ValueError) as error:
        parse_episode(data, "x.json")
    assert "eval.goals[3]" in str(error.value)
