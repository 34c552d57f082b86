"""Several acoustic conditions in one ``bench run`` (``--condition`` repeated, or ``grid``): one ordinary
run per condition under ``OUT/<condition>/`` (each resumable and reportable on its own), then the voice
report over all of them side by side. ``OUT/conditions.json`` names the spec and the conditions, so that
``bench run --resume --out OUT`` alone resumes every condition's run where it stopped."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmark.reports.report import write_report
from benchmark.runs.spec import RunSpec, parse_spec
from benchmark.suites.voice.conditions import Condition
from benchmark.suites.voice.report import build_voice_report, load_runs, render_voice_tables
from emulator.files import write_atomically

CONDITIONS_FILE = "conditions.json"
CONDITIONS_SCHEMA = "homefabric-condition-runs/1"


def write_conditions_file(out: Path, spec: RunSpec, conditions: tuple[Condition, ...]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    body = {
        "schema": CONDITIONS_SCHEMA,
        "spec": spec.model_dump(mode="json", by_alias=True),
        "conditions": [c.id for c in conditions],
    }
    write_atomically(out / CONDITIONS_FILE, json.dumps(body, indent=2, ensure_ascii=False) + "\n")


def stored_conditions(out: Path) -> tuple[dict[str, Any], list[str]] | None:
    """The spec and condition ids a several-condition run was started with (None: not such a run)."""
    try:
        body = json.loads((out / CONDITIONS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (
        not isinstance(body, dict)
        or body.get("schema") != CONDITIONS_SCHEMA
        or not isinstance(body.get("spec"), dict)
        or not all(isinstance(c, str) for c in body.get("conditions") or [None])
    ):
        return None
    return body["spec"], body["conditions"]


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


def run_conditions(
    spec: RunSpec, conditions: tuple[Condition, ...], run_one: Callable[[RunSpec], Any]
) -> tuple[list[Any], str]:
    """Run every condition; the summaries and the side-by-side report text."""
    subs = per_condition(spec, conditions)
    write_conditions_file(Path(spec.out or ""), spec, conditions)
    summaries = []
    for _, sub in subs:
        summaries.append(run_one(sub))
        write_report(summaries[-1].out)  # each condition's run reports on its own too (bench report OUT/<c>)
    report = build_voice_report(load_runs([Path(sub.out or "") for _, sub in subs]))
    return summaries, render_voice_tables(report)
