"""Episode.dumps writes the same bytes as json.dumps of its pydantic JSON form (the old, only path): the file text
and every run's episode hash (benchmark.runs.store.episode_sha256) stay what they were, for the fixture episodes,
generated ones (every kind), and homes holding what pydantic's JSON mode turns into other data."""

from __future__ import annotations

import copy
import json
from collections import OrderedDict
from typing import Any

import pytest

from benchmark.generation.generate import generate_episodes
from benchmark.suites.simuhome.episode import Episode, load_episodes, parse_episode
from tests.benchmark.fixture_episodes import EPISODE_DIR, build_all


def _old_dumps(episode: Episode) -> str:
    return json.dumps(episode.to_json_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def test_fixture_episodes_are_written_as_before():
    episodes, problems = load_episodes(EPISODE_DIR)
    assert problems == [] and episodes
    for episode in episodes:
        assert episode._dumps_plain_home() is not None  # the fast path, not the fallback
        assert episode.dumps() == _old_dumps(episode), episode.episode_id


def test_generated_episodes_of_every_kind_are_written_as_before():
    for data in generate_episodes("all", 1, 3):
        episode = parse_episode(data, check_home=False)
        assert episode._dumps_plain_home() is not None
        assert episode.dumps() == _old_dumps(episode), episode.episode_id


def test_extras_and_unset_fields_keep_their_places():
    data = build_all()["qt4-2_feasible_seed_12"]
    data["x_top"] = {"note": 1}
    data["homefabric"] = {"format": "homefabric-episode/1", "generator": {"version": 2}}
    reordered = {"x_first": 0, **{key: data[key] for key in reversed(list(data))}}  # the file's order differs
    for shape in (data, reordered):
        episode = parse_episode(copy.deepcopy(shape))
        assert episode.dumps() == _old_dumps(episode)
        assert list(json.loads(episode.dumps())) == list(episode.to_json_dict())


@pytest.mark.parametrize(
    "odd",
    [
        {"nan": float("nan")},  # pydantic writes null
        {"keys": {1: "a", 2.5: "b", None: "c"}},  # pydantic turns keys into text (None into "None")
        {"tuple": (1, 2)},
        {"ordered": OrderedDict(b=1, a=2)},
    ],
)
def test_homes_pydantic_writes_its_own_way_go_through_pydantic(odd: dict[str, Any]):
    data = build_all()["qt1_feasible_seed_1"]
    episode = parse_episode(data)
    episode.initial_home_config["x_odd"] = odd
    assert episode._dumps_plain_home() is None
    assert episode.dumps() == _old_dumps(episode)
