"""``homefabric episodes generate --executor ray``: the command's side that runs on an executor."""

from __future__ import annotations

import time
from pathlib import Path

import typer


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def generate_with_executor(
    out: Path,
    qt: str,
    per_type: int,
    seed: int,
    typo_rate: float,
    *,
    executor: str,
    address: str | None,
    workers: int | None,
    resume: bool,
    progress: bool,
) -> None:
    from benchmark.execution.executor_choice import opened_executor
    from benchmark.execution.executors import ExecutorError
    from benchmark.generation.generate import MAX_PER_TYPE, GeneratorInputError, parse_kinds
    from benchmark.training.episode_units import EpisodeRun, generate_on
    from benchmark.training.unit_progress import UnitProgress
    from emulator.output_paths import output_dir_problem

    if problem := output_dir_problem(out, "--out"):
        _fail(problem)
    try:
        kinds = [f"{q}_{case}" for q, case in parse_kinds(qt)]
    except GeneratorInputError as error:
        _fail(str(error))
        return
    if not 1 <= per_type <= MAX_PER_TYPE:
        _fail(f"--per-type must be 1..{MAX_PER_TYPE}, got {per_type}")
    if not 0 <= typo_rate <= 0.5:
        _fail(f"--typo-rate must be 0..0.5, got {typo_rate}")
    run = EpisodeRun(kinds, per_type, seed, typo_rate)
    started = time.perf_counter()
    try:
        with (
            opened_executor(executor, address=address, workers=workers) as runner,
            UnitProgress(len(run.units()), runner, enabled=progress, label="generating episode units") as bar,
        ):
            written, kept = generate_on(runner, run, out, resume=resume, on_unit=bar.advance, on_kept=bar.skip)
    except ExecutorError as error:
        _fail(str(error))
        return
    typer.echo(
        f"wrote {written} episodes to {out} ({kept} units kept) in {time.perf_counter() - started:.1f} s (wall time)"
    )
