"""``bench run --executor ray``: each (episode, trial) still to run is a unit, run as a task with an agent and a
judge of its own made from the run's spec; the driver keeps the records **in unit order** through the runner's
own writer (``Runner._run_all``, each unit fetched in a thread), so ``records.jsonl`` is byte-identical to the
local run's whatever the number of workers, and ``--resume`` keeps what a killed run wrote (``runs.store``), as
it does locally.

The agents a spec names (oracle, null, replay, a model) are made again in every task: nothing of the driver's
process travels but the spec and the episodes. A model's API key travels as the job's environment
(:func:`forwarded_environment`).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from benchmark.runs.records import RunRecord
from benchmark.runs.spec import RunSpec
from benchmark.suites.simuhome.episode import Episode
from benchmark.training.executors import Executor
from benchmark.training.spec import WorkUnit


def episode_units(todo: Sequence[tuple[Episode, int]]) -> list[WorkUnit]:
    """One unit per (episode, trial), in the run's order: kind = the episode id, first = the trial."""
    return [WorkUnit(number, episode.episode_id, trial, 1) for number, (episode, trial) in enumerate(todo)]


def run_unit(shared: dict[str, Any], unit: WorkUnit) -> tuple[RunRecord, float]:
    """One (episode, trial) on a fresh fabric: its record and wall time (a task: runs in any process)."""
    from benchmark.runs.runner import make_agent, make_judge, run_episode, timed_record

    spec: RunSpec = shared["spec"]
    episode: Episode = shared["episodes"][unit.kind]
    hashed = shared["hashes"].get(unit.kind)
    agent = make_agent(spec)
    running = run_episode(episode, unit.first, agent, make_judge(spec), spec, episode_hash=hashed)
    return asyncio.run(timed_record(running, episode, unit.first, agent.name, hashed))


def forwarded_environment(spec: RunSpec) -> dict[str, str]:
    """The API-key variables the spec's agent and judge read, as set here (a cluster's workers lack them)."""
    names = [model.api_key_env for model in (spec.agent.model, spec.judge.model) if model is not None]
    return {name: os.environ[name] for name in names if name and name in os.environ}


def records_on(
    executor: Executor, spec: RunSpec, todo: Sequence[tuple[Episode, int]], hashes: Mapping[str, str]
) -> Iterator[tuple[Episode, int, RunRecord, float]]:
    """Run ``todo`` on ``executor``: (episode, trial, record, wall time) of each unit as it comes back, in unit
    order (``hashes``: each episode's sha256, taken once by the runner)."""
    episodes = {episode.episode_id: episode for episode, _ in todo}
    shared = {"spec": spec, "episodes": episodes, "hashes": dict(hashes)}
    for unit, (record, wall_time_s) in executor.map(run_unit, shared, episode_units(todo)):
        yield episodes[unit.kind], unit.first, record, wall_time_s
