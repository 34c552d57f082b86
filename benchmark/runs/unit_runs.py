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

import os
from collections.abc import Iterator, Mapping, Sequence

from benchmark.execution.executors import Executor, UnitTask, WorkUnit
from benchmark.runs.records import RunRecord
from benchmark.runs.spec import RunSpec
from benchmark.suites.simuhome.episode import Episode


def episode_units(todo: Sequence[tuple[Episode, int]]) -> list[WorkUnit]:
    """One unit per (episode, trial), in the run's order: kind = the episode id, first = the trial."""
    return [WorkUnit(number, episode.episode_id, trial, 1) for number, (episode, trial) in enumerate(todo)]


def forwarded_environment(spec: RunSpec) -> dict[str, str]:
    """The API-key variables the spec's agent and judge read, as set here (a cluster's workers lack them)."""
    names = [model.api_key_env for model in (spec.agent.model, spec.judge.model) if model is not None]
    return {name: os.environ[name] for name in names if name and name in os.environ}


def records_on(
    executor: Executor,
    run_unit: UnitTask[tuple[RunRecord, float]],
    spec: RunSpec,
    todo: Sequence[tuple[Episode, int]],
    hashes: Mapping[str, str],
) -> Iterator[tuple[Episode, int, RunRecord, float]]:
    """Run ``todo`` on ``executor``: (episode, trial, record, wall time) of each unit as it comes back, in unit
    order. ``run_unit(shared, unit)`` runs one (the runner's ``run_unit``: this module does not import the runner,
    which imports it); ``shared`` holds the spec, the episodes by id and ``hashes``, each episode's sha256 taken
    once by the runner."""
    episodes = {episode.episode_id: episode for episode, _ in todo}
    shared = {"spec": spec, "episodes": episodes, "hashes": dict(hashes)}
    for unit, (record, wall_time_s) in executor.map(run_unit, shared, episode_units(todo)):
        yield episodes[unit.kind], unit.first, record, wall_time_s
