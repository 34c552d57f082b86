"""``homefabric dataset build``: a spec file, or the short form ``--suite --per-type --seed``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from benchmark.execution.executor_options import AddressOption, ExecutorOption, WorkersOption

dataset_app = typer.Typer(
    help="Training datasets (splits, Parquet, chat JSONL) from the benchmark's suites.", no_args_is_help=True
)


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


@dataset_app.command("build")
def build_command(
    spec_file: Annotated[
        Path | None,
        typer.Argument(help="A dataset spec (YAML); or give --suite/--per-type/--seed.", show_default=False),
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", help="The directory to write the dataset to.")] = None,
    suite: Annotated[str | None, typer.Option("--suite", help="simuhome, smh or voice.")] = None,
    per_type: Annotated[int | None, typer.Option("--per-type", help="Examples per kind (before the split).")] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Dataset seed; episode n of a kind gets seed·1000 + n.")
    ] = None,
    kinds: Annotated[
        str | None,
        typer.Option(
            "--kinds",
            help="simuhome: all, query types (qt1,qt4-2) or "
            "kinds; smh: all or subcategories; voice: all or task types.",
        ),
    ] = None,
    conditions: Annotated[
        str | None,
        typer.Option("--conditions", help="voice: acoustic conditions, e.g. clean-dry,10db-reverb (one example each)."),
    ] = None,
    unit_size: Annotated[
        int | None, typer.Option("--unit-size", help="Examples per unit of work (one Ray task).")
    ] = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    workers: WorkersOption = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue a killed build in --out.")] = False,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="A progress bar on stderr.")] = True,
) -> None:
    """Build seeded train/validation/test splits: HF datasets on disk, Parquet, chat JSONL and a dataset card."""
    from benchmark.execution.executor_choice import opened_executor
    from benchmark.execution.executors import ExecutorError
    from benchmark.training.dataset_build import DatasetBuildError, UnitFailed, build_dataset
    from benchmark.training.spec import SUITES, DatasetSpecError, load_spec, parse_spec
    from benchmark.training.splits import SplitLeak
    from benchmark.training.unit_progress import UnitProgress
    from emulator.output_paths import output_dir_problem

    if out is None:
        _fail("--out is required: the directory to write the dataset to")
        return
    if problem := output_dir_problem(out, "--out"):
        _fail(problem)
    short = {
        "suite": suite,
        "per_type": per_type,
        "seed": seed,
        "kinds": kinds,
        "unit_size": unit_size,
        "conditions": conditions,
    }
    try:
        if spec_file is not None:
            if any(value is not None for value in short.values()):
                _fail("give a spec file or --suite/--per-type/--seed/--kinds/--unit-size/--conditions, not both")
            spec = load_spec(spec_file)
        else:
            if suite is not None and suite not in SUITES:
                _fail(f"--suite {suite!r} cannot be built; allowed: {', '.join(SUITES)}")
            spec = parse_spec({key: value for key, value in short.items() if value is not None}, "options")
    except DatasetSpecError as error:
        _fail(str(error))
        return
    started = time.perf_counter()
    try:
        with (
            opened_executor(executor, address=address, workers=workers) as runner,
            UnitProgress(len(spec.units()), runner, enabled=progress) as bar,
        ):
            summary = build_dataset(spec, out, runner, resume=resume, on_unit=bar.advance, on_kept=bar.skip)
    except (DatasetBuildError, ExecutorError, SplitLeak, UnitFailed) as error:
        _fail(str(error))
        return
    sizes = ", ".join(f"{split} {count}" for split, count in summary.sizes.items())
    typer.echo(
        f"wrote {sum(summary.sizes.values())} examples ({sizes}) to {out}: {summary.units_run} units run, "
        f"{summary.units_kept} kept, in {time.perf_counter() - started:.1f} s (wall time)"
    )
