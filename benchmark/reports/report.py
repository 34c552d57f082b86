"""Run reports: success per query type × feasibility and overall, pass^k, tokens, irrelevant changes, the
SimuHome error taxonomy, infrastructure errors; printed tables, ``report.json`` and PNG plots in the run dir.

Success is reported two ways: ours (every evaluated record counts; running out of steps is a failure) and
SimuHome-style (records that hit the step limit are dropped from the denominator, facts §9, 19).
Infrastructure errors are excluded from both and listed, as are episodes a live Matter home could not start
(``not_runnable_on_this_home``, with the reason).
"""

from __future__ import annotations

import io
import json
import math
import random
import statistics
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmark.reports.plots import write_plots as draw
from benchmark.runs.records import NOT_RUNNABLE, RunReport
from benchmark.runs.runner import read_records
from benchmark.runs.store import (
    RECORDS,
    TIMINGS,
    belonging_records,
    load_manifest,
    read_records_file,
    read_timings_file,
)
from benchmark.suites.simuhome.episode import KINDS
from emulator.files import write_atomically


def pass_hat_k(successes: int, trials: int, k: int) -> float | None:
    """tau-bench's pass^k for one task: C(c, k) / C(n, k) (all k of k sampled trials succeed)."""
    if trials < k:
        return None
    return math.comb(successes, k) / math.comb(trials, k)


BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0  # fixed: the same records always give the same interval


def bootstrap_ci(
    per_episode: list[tuple[int, int]], *, level: float = 0.95, resamples: int = BOOTSTRAP_RESAMPLES
) -> list[float] | None:
    """Percentile bootstrap CI of the success rate, resampling episodes (each with all its trials, so trials
    of one episode are not mistaken for independent evidence). ``per_episode``: (passed, evaluated) each."""
    episodes = [item for item in per_episode if item[1]]
    if not episodes:
        return None
    rng = random.Random(BOOTSTRAP_SEED)
    n = len(episodes)
    rates = []
    for _ in range(resamples):
        sample = rng.choices(episodes, k=n)
        rates.append(sum(p for p, _ in sample) / sum(e for _, e in sample))
    rates.sort()
    tail = (1 - level) / 2
    low = rates[math.floor(tail * (resamples - 1))]
    high = rates[math.ceil((1 - tail) * (resamples - 1))]
    return [round(low, 4), round(high, 4)]


def trial_rates(evaluated: list[dict[str, Any]]) -> dict[str, Any]:
    """Success rate of each trial index, and their spread (how much a single run of the benchmark varies)."""
    by_trial: dict[int, list[bool]] = defaultdict(list)
    for record in evaluated:
        by_trial[int(record.get("trial", 0))].append(record["status"] == "passed")
    rates = [round(sum(v) / len(v), 4) for _, v in sorted(by_trial.items())]
    return {
        "success_by_trial": rates,
        "success_trial_std": round(statistics.stdev(rates), 4) if len(rates) > 1 else None,
    }


def _rate(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


def _end_reason(record: dict[str, Any]) -> str | None:
    return (record.get("outcome") or {}).get("end_reason")


def wall_time_s(record: dict[str, Any], timings: Mapping[tuple[str, int], float]) -> float:
    """An (episode, trial)'s wall-clock seconds: from ``timings.jsonl``, or the record itself for records of
    schema /1, which carried them; 0 when neither has it."""
    key = (record["episode_id"], int(record.get("trial", 0)))
    return timings.get(key, record.get("wall_time_s") or 0.0)


def summarise(
    records: list[dict[str, Any]], trials: int, timings: Mapping[tuple[str, int], float] | None = None
) -> dict[str, Any]:
    evaluated = [r for r in records if r.get("status") in ("passed", "failed")]
    passed = sum(r["status"] == "passed" for r in evaluated)
    step_limited = [r for r in evaluated if _end_reason(r) == "max_steps"]
    simuhome_denominator = len(evaluated) - len(step_limited)
    by_episode: dict[str, list[bool]] = defaultdict(list)
    for record in evaluated:
        by_episode[record["episode_id"]].append(record["status"] == "passed")
    pass_k = {}
    for k in range(1, trials + 1):
        values = [v for v in (pass_hat_k(sum(t), len(t), k) for t in by_episode.values()) if v is not None]
        pass_k[str(k)] = round(statistics.fmean(values), 4) if values else None
    tokens = [((r.get("tokens") or {}).get("agent") or {}).get("total_tokens", 0) for r in evaluated]
    irrelevant = [len((r.get("verdict") or {}).get("irrelevant_changes") or []) for r in evaluated]
    errors: dict[str, int] = defaultdict(int)
    for record in evaluated:
        kind = (record.get("verdict") or {}).get("error_type")
        if kind:
            errors[kind] += 1
    virtual = [(r.get("virtual") or {}).get("duration_s", 0.0) for r in evaluated]
    wall = [wall_time_s(r, timings or {}) for r in records]
    steps = [len((r.get("outcome") or {}).get("steps") or []) for r in evaluated]
    per_episode = [(sum(t), len(t)) for t in by_episode.values()]
    return {
        "episodes": len({r["episode_id"] for r in records}),
        "records": len(records),
        "evaluated": len(evaluated),
        "passed": passed,
        "success_rate": _rate(passed, len(evaluated)),
        "success_ci95": bootstrap_ci(per_episode),
        **trial_rates(evaluated),
        "success_rate_simuhome": _rate(passed, simuhome_denominator),
        "step_limit_runs": len(step_limited),
        "pass_hat_k": pass_k,
        "infra_errors": sum(r.get("status") == "infra_error" for r in records),
        "tokens_total": sum(tokens),
        "tokens_mean": round(statistics.fmean(tokens), 1) if tokens else 0.0,
        "irrelevant_change_runs": sum(1 for n in irrelevant if n),
        "irrelevant_changes_total": sum(irrelevant),
        "error_types": dict(sorted(errors.items())),
        "steps_mean": round(statistics.fmean(steps), 2) if steps else 0.0,
        "virtual_duration_mean_s": round(statistics.fmean(virtual), 1) if virtual else 0.0,
        "wall_time_total_s": round(sum(wall), 3),
    }


def build_report(run_dir: str | Path, *, force: bool = False) -> dict[str, Any]:
    """The report of a run directory (a :class:`benchmark.runs.records.RunReport`, as its JSON shape): only records
    of the manifest's episodes count; every line or record left out is listed (``line_problems``,
    ``dropped_records``). A missing manifest is a RunFileError unless ``force``; a corrupt one always is."""
    run = Path(run_dir)
    loaded = load_manifest(run, force=force)
    read = read_records_file(run / RECORDS)
    timed = read_timings_file(run / TIMINGS)
    timings = timed.wall_time_s
    membership = belonging_records(read.records, read.lines, loaded)
    records, torn = membership.kept, read.torn
    manifest = loaded or {}
    trials = int(manifest.get("trials") or max((int(r.get("trial", 0)) + 1 for r in records), default=1))
    latest: dict[tuple[str, int], dict[str, Any]] = {}
    for record in records:  # a key appears once; if not (a hand-merged file), the last one wins
        latest[(record["episode_id"], int(record.get("trial", 0)))] = record
    records = sorted(latest.values(), key=lambda r: (r["episode_id"], int(r.get("trial", 0))))
    by_kind: dict[str, Any] = {}
    for kind in KINDS:
        subset = [r for r in records if r.get("kind") == kind]
        if subset:
            by_kind[kind] = summarise(subset, trials, timings)
    by_query_type: dict[str, Any] = {}
    for qt in sorted({r["query_type"] for r in records if r.get("query_type")}):
        by_query_type[qt] = summarise([r for r in records if r.get("query_type") == qt], trials, timings)
    infra = [
        {"episode_id": r["episode_id"], "trial": r.get("trial"), "error": r.get("error")}
        for r in records
        if r.get("status") == "infra_error"
    ]
    not_runnable = [
        {"episode_id": r["episode_id"], "trial": r.get("trial"), "error": r.get("error")}
        for r in records
        if r.get("status") == NOT_RUNNABLE
    ]
    state_changing = [r for r in records if r.get("case") == "feasible" and r.get("query_type") != "qt1"]
    return RunReport.model_validate(
        {
            "schema": "homefabric-run-report/1",
            "run_dir": str(run),
            "run_id": manifest.get("run_id"),
            "agent": (manifest.get("spec") or {}).get("agent", {}).get("name"),
            "model": ((manifest.get("spec") or {}).get("agent", {}).get("model") or {}).get("model"),
            "judge": (manifest.get("spec") or {}).get("judge", {}).get("kind"),
            "spec_sha256": manifest.get("spec_sha256"),
            "git_commit": manifest.get("git_commit"),
            "trials": trials,
            "overall": summarise(records, trials, timings),
            "state_changing_feasible": summarise(state_changing, trials, timings) if state_changing else None,
            "by_kind": by_kind,
            "by_query_type": by_query_type,
            "infra_errors": infra,
            "episode_problems": manifest.get("episode_problems", []),
            "torn_lines": torn,
            "line_problems": [p.to_dict() for p in read.problems],
            "dropped_records": membership.dropped,
            "timing_problems": [p.to_dict() for p in timed.problems],
            "manifest_checked": loaded is not None,
            "transcripts": transcript_summary(records),
            **({"not_runnable": not_runnable} if not_runnable else {}),
        }
    ).to_dict()


def transcript_summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    """How many records carry the full conversation, and the tool-schema hashes their models saw (more than one
    means the runs did not all offer the same tools). Records from before transcripts simply count as without."""
    with_transcript = [(r.get("outcome") or {}).get("transcript") for r in records]
    present = [t for t in with_transcript if isinstance(t, dict)]
    hashes = sorted({t["tool_schema_sha256"] for t in present if isinstance(t.get("tool_schema_sha256"), str)})
    return {"records": len(present), "of": len(records), "tool_schema_sha256": hashes}


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def ci_text(interval: list[float] | None) -> str:
    return "–" if not interval else f"{100 * interval[0]:.0f}–{100 * interval[1]:.0f}%"


def render_tables(report: dict[str, Any]) -> str:
    console = Console(record=True, width=170, force_terminal=False, file=io.StringIO())
    table = Table(title=f"run {report.get('run_id')} — agent {report.get('agent')}, judge {report.get('judge')}")
    for column in (
        "kind",
        "episodes",
        "evaluated",
        "passed",
        "success",
        "95% CI",
        "σ trials",
        "SimuHome-style",
        "pass^k",
        "infra",
        "tokens/run",
        "irrelevant runs",
    ):
        table.add_column(column, justify="left" if column == "kind" else "right")
    rows = [*report["by_kind"].items(), ("overall", report["overall"])]
    for name, row in rows:
        pass_k = " ".join(f"{k}:{_percent(v)}" for k, v in row["pass_hat_k"].items() if v is not None)
        table.add_row(
            name,
            str(row["episodes"]),
            str(row["evaluated"]),
            str(row["passed"]),
            _percent(row["success_rate"]),
            ci_text(row.get("success_ci95")),
            _percent(row.get("success_trial_std")),
            _percent(row["success_rate_simuhome"]),
            pass_k,
            str(row["infra_errors"]),
            f"{row['tokens_mean']:.0f}",
            str(row["irrelevant_change_runs"]),
        )
    console.print(table)
    console.print(
        "95% CI: percentile bootstrap over episodes (2,000 resamples, seed 0); σ trials: the standard "
        "deviation of the success rate between trial indices (– with one trial)."
    )
    if report.get("episode_problems"):
        problems = report["episode_problems"]
        files = len({problem.get("file") for problem in problems})
        console.print(
            f"skipped episode files: {files} ({len(problems)} problem(s); not run — fix them and run "
            "again in a new --out)"
        )
        for problem in problems[:20]:
            where = f" {problem.get('json_path')}" if problem.get("json_path") else ""
            console.print(f"  {problem.get('file')}{where}: {problem.get('message')}", markup=False, highlight=False)
    errors = report["overall"]["error_types"]
    if errors:
        taxonomy = Table(title="error taxonomy (SimuHome's names where they exist)")
        taxonomy.add_column("error type")
        taxonomy.add_column("runs", justify="right")
        for name, count in errors.items():
            taxonomy.add_row(name, str(count))
        console.print(taxonomy)
    transcripts = report.get("transcripts") or {}
    if transcripts.get("records"):
        hashes = ", ".join(h[:12] for h in transcripts.get("tool_schema_sha256", []))
        console.print(
            f"full transcripts: {transcripts['records']} of {transcripts['of']} records; tool schema sha256: {hashes}"
        )
    if not report.get("manifest_checked", True):
        console.print("no manifest (--force): records were not checked against the run's episodes and spec")
    left_out = [f"line {p['line']}: {p['message']}" for p in report.get("line_problems", [])] + [
        f"line {d['line']} ({d['episode_id']} trial {d['trial']}): {d['reason']}"
        for d in report.get("dropped_records", [])
    ]
    if left_out:
        console.print(f"records left out: {len(left_out)}")
        for item in left_out[:20]:
            console.print(f"  {item}")
    if report.get("timing_problems"):
        console.print(
            f"{TIMINGS} lines left out of the wall time: "
            + "; ".join(f"line {p['line']}: {p['message']}" for p in report["timing_problems"][:5])
        )
    if report.get("not_runnable"):
        console.print(f"not runnable on this home (excluded): {len(report['not_runnable'])}")
        for item in report["not_runnable"][:20]:
            console.print(f"  {item['episode_id']} trial {item['trial']}: {item['error']}")
    if report["infra_errors"]:
        console.print(f"infrastructure errors (excluded): {len(report['infra_errors'])}")
        for item in report["infra_errors"][:20]:
            console.print(f"  {item['episode_id']} trial {item['trial']}: {item['error']}")
    return console.export_text()


def write_plots(report: dict[str, Any], run_dir: str | Path) -> list[Path]:
    return draw(report, read_records(Path(run_dir) / RECORDS)[0], run_dir)


def write_report(run_dir: str | Path, *, plots: bool = True, force: bool = False) -> tuple[dict[str, Any], str]:
    report = build_report(run_dir, force=force)
    text = render_tables(report)
    run = Path(run_dir)
    write_atomically(run / "report.json", json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    write_atomically(run / "report.txt", text)
    if plots:
        report["plots"] = [p.name for p in write_plots(report, run)]
    return report, text
