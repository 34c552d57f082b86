"""Voice report: several runs (text / ASR cascade / audio-native, each under a condition) side by side.

Per (way in, condition): episodes evaluated, success, mean and corpus-free per-turn WER (ASR runs); success
per query type; success as a function of the turn's WER (buckets). Infrastructure errors are excluded
from rates and counted. Plots: success per condition for each way in, and success against WER.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmark.runs.store import RECORDS, read_records_file

WER_BUCKETS = ((0.0, 0.0, "0"), (0.0, 0.2, "(0, 0.2]"), (0.2, 0.5, "(0.2, 0.5]"), (0.5, float("inf"), "> 0.5"))


class VoiceReportError(ValueError):
    pass


def _condition(record: dict[str, Any]) -> str:
    return (record.get("speech") or {}).get("condition") or "text"


def _wer(record: dict[str, Any]) -> float | None:
    return ((record.get("speech") or {}).get("asr") or {}).get("wer")


def _bucket(wer: float) -> str:
    for low, high, name in WER_BUCKETS:
        if (wer == 0.0 and high == 0.0) or (low < wer <= high):
            return name
    return WER_BUCKETS[-1][2]


def _rate(passed: int, total: int) -> float | None:
    return round(passed / total, 4) if total else None


def load_runs(run_dirs: list[Path]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for run_dir in run_dirs:
        path = run_dir / RECORDS
        if not path.is_file():
            raise VoiceReportError(f"{run_dir}: no {RECORDS} (give run directories written by homefabric bench run)")
        records += [{**r, "_run": str(run_dir)} for r in read_records_file(path).records]
    return records


def build_voice_report(records: list[dict[str, Any]]) -> dict[str, Any]:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        groups[(record.get("input") or "text", _condition(record))].append(record)
    rows = []
    for (way, condition), group in sorted(groups.items()):
        scored = [r for r in group if r.get("status") in ("passed", "failed")]
        passed = sum(r["status"] == "passed" for r in scored)
        wers = [w for r in scored if (w := _wer(r)) is not None]
        by_type: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for r in scored:
            by_type[r.get("query_type") or "?"][0] += r["status"] == "passed"
            by_type[r.get("query_type") or "?"][1] += 1
        rows.append(
            {
                "input": way,
                "condition": condition,
                "evaluated": len(scored),
                "passed": passed,
                "success_rate": _rate(passed, len(scored)),
                "infra_errors": len(group) - len(scored),
                "mean_wer": round(sum(wers) / len(wers), 4) if wers else None,
                "by_query_type": {qt: _rate(p, n) for qt, (p, n) in sorted(by_type.items())},
            }
        )
    buckets: dict[str, list[int]] = {name: [0, 0] for _, _, name in WER_BUCKETS}
    for record in records:
        if record.get("status") in ("passed", "failed") and (wer := _wer(record)) is not None:
            buckets[_bucket(wer)][0] += record["status"] == "passed"
            buckets[_bucket(wer)][1] += 1
    return {
        "schema": "homefabric-voice-report/1",
        "rows": rows,
        "success_by_wer": [
            {"wer": name, "evaluated": n, "success_rate": _rate(p, n)} for name, (p, n) in buckets.items()
        ],
    }


def render_voice_tables(report: dict[str, Any]) -> str:
    lines = [f"{'input':6} {'condition':13} {'evaluated':>9} {'success':>8} {'mean WER':>9} {'infra':>6}"]
    for row in report["rows"]:
        success = "–" if row["success_rate"] is None else f"{100 * row['success_rate']:.1f}%"
        wer = "–" if row["mean_wer"] is None else f"{row['mean_wer']:.3f}"
        lines.append(
            f"{row['input']:6} {row['condition']:13} {row['evaluated']:>9} {success:>8} {wer:>9} "
            f"{row['infra_errors']:>6}"
        )
    lines += ["", "success by the turn's WER (ASR cascade):"]
    for bucket in report["success_by_wer"]:
        success = "–" if bucket["success_rate"] is None else f"{100 * bucket['success_rate']:.1f}%"
        lines.append(f"  WER {bucket['wer']:11} {bucket['evaluated']:>5} runs  {success}")
    return "\n".join(lines)


def write_voice_plots(report: dict[str, Any], out: Path) -> list[Path]:
    import matplotlib  # here, not at the top: 0.44 s CPU to import (measured), paid only when plots are drawn

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    written = []
    conditions = sorted({row["condition"] for row in report["rows"]})
    ways = sorted({row["input"] for row in report["rows"]})
    figure, axes = plt.subplots(figsize=(max(6, 1.2 * len(conditions)), 4))
    width = 0.8 / max(1, len(ways))
    for index, way in enumerate(ways):
        rates = {row["condition"]: row["success_rate"] or 0.0 for row in report["rows"] if row["input"] == way}
        axes.bar(
            [c + index * width for c in range(len(conditions))],
            [rates.get(c, 0.0) for c in conditions],
            width,
            label=way,
        )
    axes.set_xticks([c + width * (len(ways) - 1) / 2 for c in range(len(conditions))], conditions, rotation=30)
    axes.set_ylabel("success rate")
    axes.set_ylim(0, 1)
    axes.legend()
    figure.tight_layout()
    written.append(out / "voice_success_by_condition.png")
    figure.savefig(written[-1])
    plt.close(figure)
    buckets = [b for b in report["success_by_wer"] if b["evaluated"]]
    figure, axes = plt.subplots(figsize=(5, 4))
    axes.plot([b["wer"] for b in buckets], [b["success_rate"] for b in buckets], marker="o")
    axes.set_xlabel("turn WER")
    axes.set_ylabel("success rate")
    axes.set_ylim(0, 1)
    figure.tight_layout()
    written.append(out / "voice_success_by_wer.png")
    figure.savefig(written[-1])
    plt.close(figure)
    return written
