"""Building a dataset: the units of a spec, run by an executor, written by this driver in unit order, then the
splits and the files (:mod:`benchmark.training.dataset_files`).

    OUT/build.json    the spec and its sha256 (what ``--resume`` checks before it continues)
    OUT/units/        one JSONL file per unit, each written atomically as its unit comes back
                      (:mod:`benchmark.execution.unit_outputs`)

A killed build keeps every unit file written; ``--resume`` runs only the units missing and assembles the rest.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark.execution.executors import Executor, WorkUnit
from benchmark.execution.unit_outputs import UnitOutputs
from benchmark.training.canonical import canonical_json
from benchmark.training.examples import TrainingExample, simuhome_example
from benchmark.training.spec import DatasetSpec

BUILD_SCHEMA = "homefabric-dataset-build/1"
GENERATOR = "homefabric dataset build"


class DatasetBuildError(RuntimeError):
    """The output directory or an earlier build refuses this one: names what and what to do."""


class UnitFailed(RuntimeError):
    """A unit could not be made for a reason outside the code (a missing speech engine): one line."""


def build_unit(spec_data: dict[str, Any], unit: WorkUnit) -> str:
    """The examples of one unit as JSONL text (canonical JSON, one example a line). Pure: the same spec and unit
    give the same text in any process."""
    spec = DatasetSpec.model_validate(spec_data)
    if spec.suite == "smh":
        from benchmark.training.smh_examples import smh_unit

        subcategory, tier = unit.kind.split("/")
        examples = smh_unit(spec.seed, subcategory, tier, unit.first, unit.count)
    elif spec.suite == "voice":
        from benchmark.suites.voice.tts import TTSError
        from benchmark.training.voice_examples import voice_examples

        try:
            examples = [
                example
                for index in range(unit.first, unit.first + unit.count)
                for example in voice_examples(spec.seed, unit.kind, index, spec.conditions, spec.splits)
            ]
        except TTSError as error:
            raise UnitFailed(f"unit {unit.number} ({unit.kind}): {error}") from None
    else:
        examples = [simuhome_example(spec, unit.kind, index) for index in range(unit.first, unit.first + unit.count)]
    lines = [canonical_json(example.to_dict()) for example in examples]
    return "".join(line + "\n" for line in lines)


@dataclass(frozen=True)
class BuildSummary:
    out: Path
    units_run: int
    units_kept: int
    sizes: dict[str, int]


def leak_keys(example: TrainingExample) -> Any:
    from benchmark.training.splits import LeakKeys

    template = (f"template:{example.template_key}",) if example.templates else ()  # SMH: often none picked
    voices = tuple(f"voice:{voice}" for voice in example.voices)
    return LeakKeys(example.example_id, (f"home:{example.home_sha256}", *template, *voices))


def pinned_keys(spec: DatasetSpec) -> dict[str, str]:
    """Keys whose split is fixed before the examples are made: the voices of a spoken set."""
    if spec.suite != "voice":
        return {}
    from benchmark.training.voice_examples import voice_split

    return {f"voice:{voice}": split for voice, split in voice_split(spec.seed).items()}


def provenance(spec: DatasetSpec) -> dict[str, Any]:
    from benchmark.runs.store import package_version

    return {
        "dataset_seed": spec.seed,
        "spec_sha256": spec.sha256(),
        "homefabric_version": package_version() or "",
        "generator": GENERATOR,
    }


def _build_state(spec: DatasetSpec) -> str:
    return (
        json.dumps(
            {"schema": BUILD_SCHEMA, "spec": spec.to_dict(), "spec_sha256": spec.sha256()}, indent=2, sort_keys=True
        )
        + "\n"
    )


def _outputs(out: Path) -> UnitOutputs:
    return UnitOutputs(out / "units", out / "build.json")


def prepare(out: Path, spec: DatasetSpec, *, resume: bool) -> set[int]:
    """Check the directory; return the numbers of the units already written (resume)."""
    outputs = _outputs(out)
    if resume:
        earlier_state = outputs.earlier_state()
        if earlier_state is None:
            raise DatasetBuildError(f"--resume: {out} has no build.json; start a new build without --resume")
        try:
            earlier = json.loads(earlier_state).get("spec_sha256")
        except (ValueError, AttributeError):
            earlier = None
        if earlier != spec.sha256():
            raise DatasetBuildError(
                f"--resume: {out} was built from another spec (sha256 {earlier}); give the same spec or a new --out"
            )
        return outputs.kept(spec.units())
    if out.exists() and any(out.iterdir()):
        raise DatasetBuildError(f"--out {out} is not empty; give a new directory, or --resume to continue a build")
    outputs.begin(_build_state(spec))
    return set()


def read_units(out: Path, units: list[WorkUnit]) -> list[TrainingExample]:
    outputs = _outputs(out)
    return [TrainingExample.from_dict(json.loads(line)) for unit in units for line in outputs.read(unit).splitlines()]


def build_dataset(
    spec: DatasetSpec,
    out: Path,
    executor: Executor,
    *,
    resume: bool = False,
    on_unit: Callable[[WorkUnit], None] | None = None,
    on_kept: Callable[[int], None] | None = None,
) -> BuildSummary:
    from benchmark.training.dataset_files import write_dataset
    from benchmark.training.splits import assign_splits, check_no_leakage

    units = spec.units()
    kept = prepare(out, spec, resume=resume)
    todo = [unit for unit in units if unit.number not in kept]
    if on_kept is not None and kept:
        on_kept(len(kept))
    outputs = _outputs(out)
    for unit, text in executor.map(build_unit, spec.to_dict(), todo):
        outputs.write(unit, text)
        if on_unit is not None:
            on_unit(unit)
    examples = read_units(out, units)
    keys = [leak_keys(example) for example in examples]
    split_of = assign_splits(keys, spec.splits, spec.seed, pinned_keys(spec))
    check_no_leakage(keys, split_of)
    sizes = write_dataset(out, spec, examples, split_of, provenance(spec))
    return BuildSummary(out, len(todo), len(kept), sizes)
