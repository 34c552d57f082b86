"""Several acoustic conditions in one ``bench run`` (``--condition`` repeated, or ``grid``): one ordinary
run per condition under ``OUT/<condition>/`` (each resumable and reportable on its own), then the voice
report over all of them side by side."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmark.run_spec import RunSpec, parse_spec
from benchmark.speech.conditions import Condition


def per_condition(spec: RunSpec, conditions: tuple[Condition, ...]) -> list[tuple[str, RunSpec]]:
    """The spec once per condition, each with its own ``out`` and ``run_id``."""
    assert spec.out is not None and spec.speech is not None
    result = []
    for condition in conditions:
        data = spec.model_dump(mode="json", by_alias=True)
        data["speech"]["condition"] = condition.id
        data["out"] = str(Path(spec.out) / condition.id)
        data["run_id"] = f"{spec.run_id or Path(spec.out).name}-{condition.id}"
        result.append((condition.id, parse_spec(data, f"<{condition.id}>")))
    return result


def run_conditions(spec: RunSpec, conditions: tuple[Condition, ...],
                   run_one: Callable[[RunSpec], Any]) -> tuple[list[Any], str]:
    """Run every condition; the summaries and the side-by-side report text."""
    from benchmark.report import write_report
    from benchmark.speech.report import build_voice_report, load_runs, render_voice_tables

    subs = per_condition(spec, conditions)
    summaries = []
    for _, sub in subs:
        summaries.append(run_one(sub))
        write_report(summaries[-1].out)  # each condition's run reports on its own too (bench report OUT/<c>)
    report = build_voice_report(load_runs([Path(sub.out or "") for _, sub in subs]))
    return summaries, render_voice_tables(report)
