"""``homefabric bench compare RUN…``: several runs side by side — success (with its 95 % bootstrap interval) per
kind and overall, pass^k, tokens — as a table, ``compare.json`` and a grouped bar plot."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmark.reports.report import _percent, build_report, ci_text
from emulator.files import write_atomically


def compare_runs(run_dirs: list[Path]) -> dict[str, Any]:
    reports = [build_report(run) for run in run_dirs]
    names = _labels(reports, run_dirs)
    kinds = sorted({kind for report in reports for kind in report["by_kind"]})
    rows = []
    for kind in [*kinds, "overall"]:
        cells = {}
        for name, report in zip(names, reports, strict=True):
            summary = report["overall"] if kind == "overall" else report["by_kind"].get(kind)
            cells[name] = (
                None
                if summary is None
                else {
                    key: summary.get(key)
                    for key in (
                        "evaluated",
                        "success_rate",
                        "success_ci95",
                        "success_trial_std",
                        "pass_hat_k",
                        "tokens_mean",
                        "infra_errors",
                    )
                }
            )
        rows.append({"kind": kind, "runs": cells})
    return {
        "schema": "homefabric-run-comparison/1",
        "runs": [
            {
                "name": name,
                "run_dir": str(path),
                "agent": report.get("agent"),
                "spec_sha256": report.get("spec_sha256"),
                "trials": report.get("trials"),
            }
            for name, path, report in zip(names, run_dirs, reports, strict=True)
        ],
        "rows": rows,
    }


def _labels(reports: list[dict[str, Any]], run_dirs: list[Path]) -> list[str]:
    """Each run's column name: its run id, made unique with the directory when two share one."""
    names = [str(report.get("run_id") or path.name) for report, path in zip(reports, run_dirs, strict=True)]
    return [name if names.count(name) == 1 else str(path) for name, path in zip(names, run_dirs, strict=True)]


def render_comparison(comparison: dict[str, Any]) -> str:
    console = Console(record=True, width=60 + 34 * len(comparison["runs"]), force_terminal=False, file=io.StringIO())
    table = Table(title="success by kind (95% bootstrap CI, n evaluated runs)")
    table.add_column("kind")
    for run in comparison["runs"]:
        table.add_column(f"{run['name']} ({run['agent']})", justify="right")
    for row in comparison["rows"]:
        cells = []
        for run in comparison["runs"]:
            cell = row["runs"][run["name"]]
            cells.append(
                "–"
                if cell is None
                else f"{_percent(cell['success_rate'])} [{ci_text(cell['success_ci95'])}] n={cell['evaluated']}"
            )
        table.add_row(row["kind"], *cells)
    console.print(table)
    return console.export_text()


def write_comparison_plot(comparison: dict[str, Any], path: Path) -> Path:
    import matplotlib  # here, not at the top: 0.44 s CPU to import (measured), paid only when plots are drawn

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows, runs = comparison["rows"], comparison["runs"]
    width = 0.8 / max(1, len(runs))
    figure, axis = plt.subplots(figsize=(max(8, len(rows) * 0.9), 4.5))
    for index, run in enumerate(runs):
        cells = [row["runs"][run["name"]] for row in rows]
        rates = [100 * ((cell or {}).get("success_rate") or 0.0) for cell in cells]
        intervals = [
            [100 * x for x in (cell or {}).get("success_ci95") or [rate / 100, rate / 100]]
            for rate, cell in zip(rates, cells, strict=True)
        ]
        errors = [
            [rate - low for rate, (low, _) in zip(rates, intervals, strict=True)],
            [high - rate for rate, (_, high) in zip(rates, intervals, strict=True)],
        ]
        positions = [i + (index - (len(runs) - 1) / 2) * width for i in range(len(rows))]
        bars = axis.bar(positions, rates, width, yerr=errors, capsize=2, label=f"{run['name']} ({run['agent']})")
        labels = [
            "–" if not cell or not cell.get("evaluated") else f"{rate:.0f}\nn={cell['evaluated']}"
            for rate, cell in zip(rates, cells, strict=True)
        ]
        axis.bar_label(bars, labels=labels, fontsize=6, padding=1)
    axis.set_xticks(range(len(rows)), [row["kind"] for row in rows], rotation=45, ha="right")
    axis.set_ylabel("success rate (%)")
    axis.set_ylim(0, 120)
    axis.set_title("success by kind, runs side by side (bars: 95% bootstrap CI)")
    axis.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    figure.tight_layout()
    figure.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(figure)
    return path


def write_comparison(comparison: dict[str, Any], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    write_atomically(out / "compare.json", json.dumps(comparison, indent=2, ensure_ascii=False) + "\n")
    return [out / "compare.json", write_comparison_plot(comparison, out / "compare.png")]
