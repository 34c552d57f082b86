"""The voice suite's report: success, exec match, dialogue-act accuracy, over-triggering and WER, per
condition and per task type (the figures MIST reports, as far as they are published)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any


def _cell(records: list[dict[str, Any]]) -> dict[str, Any]:
    wers = [r["wer"] for r in records if r.get("wer") is not None]
    count = len(records)
    return {
        "episodes": count,
        "success": round(sum(r["passed"] for r in records) / count, 4),
        "exec_match": round(sum(r["exec_match"] for r in records) / count, 4),
        "act_accuracy": round(sum(r["act_accuracy"] for r in records) / count, 4),
        "over_triggering": round(sum(r["over_triggered"] for r in records) / count, 4),
        "wer": round(sum(wers) / len(wers), 4) if wers else None,
    }


def summarise(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Figures over the scored records; infrastructure errors (no verdict on the agent) are only counted."""
    by_condition: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_cell: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    every = list(records)
    records = [r for r in every if r.get("status") != "infra_error"]
    for record in records:
        by_condition[record["condition"]].append(record)
        by_cell[(record["condition"], record["task_type"])].append(record)
    agents = sorted({r["agent"] for r in every})
    inputs = sorted({r["input"] for r in every})
    return {
        "schema": "homefabric-voice-report/1",
        "agents": agents,
        "inputs": inputs,
        "infra_errors": len(every) - len(records),
        "overall": _cell(records) if records else None,
        "conditions": {c: _cell(rs) for c, rs in by_condition.items()},
        "task_types": {f"{c}/{t}": _cell(rs) for (c, t), rs in sorted(by_cell.items())},
    }


def format_report(summary: dict[str, Any]) -> str:
    lines = [
        f"voice suite — agent {', '.join(summary['agents'])}, input {', '.join(summary['inputs'])}",
        f"{'condition':22} {'n':>4} {'success':>8} {'exec':>6} {'act acc':>8} {'over-trig':>9} {'WER':>6}",
    ]
    for name, cell in [*summary["conditions"].items(), *summary["task_types"].items()]:
        wer = "-" if cell["wer"] is None else f"{cell['wer']:.3f}"
        lines.append(
            f"{name:22} {cell['episodes']:>4} {cell['success']:>8.1%} {cell['exec_match']:>6.1%} "
            f"{cell['act_accuracy']:>8.1%} {cell['over_triggering']:>9.1%} {wer:>6}"
        )
    if summary.get("infra_errors"):
        lines.append(
            f"{summary['infra_errors']} episode run(s) were infrastructure errors (not scored; "
            "--resume runs them again)"
        )
    return "\n".join(lines)
