"""Where units of work run: here, one after another (``local``), or as Ray tasks (``ray``, in
:mod:`benchmark.training.ray_executor`, imported only when asked for).

Every executor hands the units' outputs back **in unit order**, whatever order they finished in, so the driver
writes the same files whatever the number of workers. A unit's output is whatever its task returns (picklable): the
JSONL text of a dataset unit's examples, an episode's run records, a rendered episode's turns and WAV bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, TypeVar

from benchmark.training.spec import WorkUnit


class ExecutorError(RuntimeError):
    """The executor could not run (Ray missing, no cluster at the address, a unit failed): a one-line reason."""


class UnitFailed(RuntimeError):
    """A unit could not be made for a reason outside the code (a missing speech engine): one line."""


def build_unit(spec_data: dict[str, Any], unit: WorkUnit) -> str:
    """The examples of one unit as JSONL text (canonical JSON, one example a line). Pure: the same spec and unit
    give the same text in any process."""
    from benchmark.training.canonical import canonical_json
    from benchmark.training.examples import simuhome_example
    from benchmark.training.spec import DatasetSpec

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


Output = TypeVar("Output")
UnitTask = Callable[[Any, WorkUnit], Output]  # (shared data, unit) -> the unit's output; module-level (Ray pickles it)


class Executor(Protocol):
    name: str

    @property
    def workers(self) -> int:
        """How many units can run at once (the cluster's CPUs for Ray)."""
        ...

    def map(self, task: UnitTask[Output], shared: Any, units: Sequence[WorkUnit]) -> Iterator[tuple[WorkUnit, Output]]:
        """``task(shared, unit)`` for each unit, handed back in the order given."""
        ...

    def close(self) -> None: ...


class LocalExecutor:
    name = "local"

    @property
    def workers(self) -> int:
        return 1

    def map(self, task: UnitTask[Output], shared: Any, units: Sequence[WorkUnit]) -> Iterator[tuple[WorkUnit, Output]]:
        for unit in units:
            yield unit, task(shared, unit)

    def close(self) -> None:
        return None
