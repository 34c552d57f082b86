"""The run report's PNG plots, built as figures (tested as such) and written into the run directory.

* ``success_by_kind.png`` — one bar per kind with its value and n written on it; a kind with nothing
  evaluated (only infrastructure errors) is drawn as a hatched "no data" bar, never as 0 %, and a 0 % bar
  still carries its label, so an all-zero run is not an empty frame.
* ``tokens_per_episode.png`` — agent tokens per evaluated run, named by episode (and trial), integer ticks;
  not drawn for agents that use no tokens (oracle, null).

Titles name the run, the agent and its model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

SUCCESS_PNG = "success_by_kind.png"
TOKENS_PNG = "tokens_per_episode.png"
NO_DATA = "no data"


def _pyplot() -> Any:
    import matplotlib  # here, not at the top: 0.44 s CPU to import (measured), paid only when plots are drawn

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def run_label(report: dict[str, Any]) -> str:
    parts = [f"run {report.get('run_id')}", f"agent {report.get('agent')}"]
    if report.get("model"):
        parts.append(f"model {report['model']}")
    return " · ".join(parts)


def success_figure(report: dict[str, Any]) -> Any:
    plt = _pyplot()
    kinds = list(report["by_kind"])
    figure, axis = plt.subplots(figsize=(max(6, 0.9 * len(kinds) + 2), 4.5))
    for x, kind in enumerate(kinds):
        row = report["by_kind"][kind]
        rate = row["success_rate"]
        if rate is None:  # nothing evaluated: say so, do not draw a 0
            # a pale hatched column across the whole range: "nothing measured here", unlike any bar height
            axis.bar(x, 100, color="#f4f4f4", edgecolor="#cccccc", hatch="//", linewidth=0)
            axis.text(
                x,
                50,
                f"{NO_DATA}\n({row['infra_errors']} infra)",
                ha="center",
                va="center",
                fontsize=8,
                color="#444444",
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 1},
            )
            continue
        low, high = row.get("success_ci95") or [rate, rate]  # the 95 % bootstrap interval as an error bar
        axis.bar(x, 100 * rate, color="#4c72b0", yerr=[[100 * (rate - low)], [100 * (high - rate)]], capsize=3)
        axis.text(
            x, 100 * rate + 1.5, f"{100 * rate:.0f} %\nn={row['evaluated']}", ha="center", va="bottom", fontsize=8
        )
    axis.axhline(0, color="#333333", linewidth=0.8)  # the baseline a 0 % bar sits on
    axis.set_xticks(range(len(kinds)), kinds, rotation=45, ha="right")
    axis.set_xlim(-0.6, len(kinds) - 0.4)
    axis.set_ylabel("success rate (%)")
    axis.set_ylim(0, 115)
    axis.set_yticks(range(0, 101, 20))
    axis.set_title(f"success by kind — {run_label(report)}", fontsize=10)
    figure.tight_layout()
    return figure


def token_rows(records: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """(label, agent tokens) of each evaluated run, sorted; the trial is named only when there are several."""
    evaluated = sorted(
        (r for r in records if r.get("status") in ("passed", "failed")),
        key=lambda r: (r["episode_id"], int(r.get("trial", 0))),
    )
    several = any(int(r.get("trial", 0)) > 0 for r in evaluated)
    return [
        (
            f"{r['episode_id']} #{r.get('trial', 0)}" if several else r["episode_id"],
            int(((r.get("tokens") or {}).get("agent") or {}).get("total_tokens", 0)),
        )
        for r in evaluated
    ]


def tokens_figure(report: dict[str, Any], records: list[dict[str, Any]]) -> Any | None:
    from matplotlib.ticker import MaxNLocator

    rows = token_rows(records)
    if not any(tokens for _, tokens in rows):
        return None  # an agent without a model: an empty plot would say nothing
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(max(6, 0.35 * len(rows) + 2), 4.8))
    axis.bar(range(len(rows)), [tokens for _, tokens in rows], color="#55a868")
    axis.set_xticks(range(len(rows)), [label for label, _ in rows], rotation=60, ha="right", fontsize=7)
    axis.yaxis.set_major_locator(MaxNLocator(integer=True))
    axis.set_ylabel("agent tokens (prompt + completion)")
    axis.set_title(f"tokens per episode run — {run_label(report)}", fontsize=10)
    figure.tight_layout()
    return figure


def write_plots(report: dict[str, Any], records: list[dict[str, Any]], run_dir: str | Path) -> list[Path]:
    plt = _pyplot()
    run = Path(run_dir)
    written = []
    figures = [
        (SUCCESS_PNG, success_figure(report) if report["by_kind"] else None),
        (TOKENS_PNG, tokens_figure(report, records)),
    ]
    for name, figure in figures:
        if figure is None:
            continue
        path = run / name
        figure.savefig(path, dpi=100, metadata={"Software": None})
        plt.close(figure)
        written.append(path)
    return written
