"""The ``--suite smh`` side of ``homefabric episodes generate``, ``bench run`` and ``bench report``.

Bad input ends with one line naming what was wrong and what is allowed (exit 2), never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any, NoReturn

import typer

from benchmark.llm.client import LLMClient
from benchmark.runs.store import RunError
from benchmark.suites.smh.generate import GenerationError, generate_suite
from benchmark.suites.smh.generate.paraphrase import paraphrase_instances
from benchmark.suites.smh.report import summarize, tables
from benchmark.suites.smh.run import load_records
from benchmark.suites.smh.run_marker import RUN_MARKER
from benchmark.suites.smh.runner import SmhRunError, SmhRunner, select_instances
from benchmark.suites.smh.taxonomy import DEFAULT_PER_SUBCATEGORY, SUBCATEGORIES, TIERS
from emulator.output_paths import output_dir_problem


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def parse_per_subcategory(text: str | None) -> dict[str, int]:
    """ "25,15,10" → counts per tier (simple, medium, complex); one number applies to all three."""
    if not text:
        return dict(DEFAULT_PER_SUBCATEGORY)
    parts = [p.strip() for p in text.split(",")]
    if len(parts) == 1:
        parts *= len(TIERS)
    if len(parts) != len(TIERS) or not all(p.isdigit() for p in parts):
        _fail(f"--per-subcategory {text!r}: give three counts simple,medium,complex (e.g. 25,15,10) or one")
    return dict(zip(TIERS, (int(p) for p in parts), strict=True))


def generate(
    out: Path,
    seed: int,
    per_subcategory: str | None,
    subcategories: str | None = None,
    *,
    paraphrase: bool = False,
    base_url: str | None = None,
    model: str | None = None,
    api_key_env: str | None = None,
    water: bool = False,
) -> None:
    if problem := output_dir_problem(out, "--out"):
        _fail(problem)
    chosen = _subcategories(subcategories)
    counts = parse_per_subcategory(per_subcategory)
    if not any(counts.values()):
        _fail("no instances requested (all counts are 0); nothing written", 1)
    rewrite = None
    if paraphrase:
        if not base_url or not model:
            _fail("--paraphrase needs --base-url and --model")
        rewrite = _paraphraser(base_url, model, api_key_env)
    started = time.perf_counter()
    try:
        summary = generate_suite(out, seed, counts, chosen, paraphrase=rewrite, water=water)
    except GenerationError as error:
        _fail(str(error), 1)
    if "paraphrase" in summary:
        typer.echo(
            f"paraphrased: {summary['paraphrase']['accepted']} accepted, "
            f"{summary['paraphrase']['rejected']} kept as templates"
        )
    typer.echo(
        f"wrote {summary['instances']} SMH instances ({summary['homes']} homes) to {out} "
        f"in {time.perf_counter() - started:.1f} s (wall time)"
    )


def _paraphraser(base_url: str, model: str, api_key_env: str | None) -> Any:
    def rewrite(instances: list[Any], homes: dict[str, Any]) -> dict[str, int]:
        async def go() -> dict[str, int]:
            async with LLMClient(
                base_url, os.environ.get(api_key_env) if api_key_env else None, model, temperature=0.7
            ) as client:
                return await paraphrase_instances(instances, homes, client, model)

        return asyncio.run(go())

    return rewrite


def _subcategories(text: str | None) -> tuple[str, ...]:
    if not text:
        return SUBCATEGORIES
    chosen = tuple(s.strip() for s in text.split(",") if s.strip())
    unknown = [s for s in chosen if s not in SUBCATEGORIES]
    if unknown:
        _fail(f"unknown subcategories {unknown}; known: {', '.join(SUBCATEGORIES)}")
    return chosen


def overrides(
    *,
    agent: str | None,
    episodes: str | None,
    out: Path | None,
    setting: str | None,
    kinds: str | None,
    budget: int | None,
    **flags: Any,
) -> dict[str, Any]:
    """The ``bench run`` flags of an SMH run as run-spec fields (``llm`` is the react agent's other name)."""
    return {
        "suite": "smh",
        "agent.name": "react" if agent == "llm" else agent,
        "episodes.path": episodes,
        "out": str(out) if out else None,
        "smh.settings": [s.strip() for s in setting.split(",") if s.strip()] if setting else None,
        "smh.subcategories": [s.strip() for s in kinds.split(",") if s.strip()] if kinds else None,
        "smh.budget": budget,
        **flags,
    }


def stored_spec(out: Path) -> dict[str, Any] | None:
    """``--resume --out DIR`` alone: the spec the SMH run was started with."""
    try:
        spec: dict[str, Any] | None = json.loads((out / RUN_MARKER).read_text(encoding="utf-8")).get("spec")
        return spec
    except (OSError, ValueError):
        return None


def run_spec(spec: Any, *, resume: bool, quiet: bool = False, force: bool = False) -> None:
    """``bench run`` of a ``suite: smh`` spec: settings × instances × trials, concurrent, resumable."""
    suite_dir = Path(spec.episodes.path)
    if not (suite_dir / "instances").is_dir():
        _fail(
            f"--episodes {suite_dir}: not an SMH suite directory (expected instances/ and homes/ from "
            "`homefabric episodes generate --suite smh`)"
        )
    if not spec.out:
        _fail("--out is required: the run directory")
    out = Path(spec.out)
    if problem := output_dir_problem(out, "--out"):
        _fail(problem)
    try:
        instances = select_instances(spec)
    except ValueError as error:
        _fail(str(error))
    if not instances:
        _fail(f"{suite_dir}: no instances selected", 1)
    progress = (
        None
        if quiet
        else (
            lambda record: typer.echo(
                f"{record['setting']} {record['instance_id']} trial {record['trial']}: "
                f"{'pass' if record['verdict']['overall_pass'] else record['verdict']['error_class']}",
                err=True,
            )
        )
    )
    try:
        result = asyncio.run(SmhRunner(spec, out, resume=resume, force=force, on_record=progress).run(instances))
    except (SmhRunError, RunError, ValueError) as error:  # ValueError: a damaged run file, an unset api_key_env
        _fail(str(error))
    for dropped in result.dropped:
        typer.echo(f"dropped {dropped}", err=True)

    records = load_records(out)
    for title, header, rows in tables(records):
        typer.echo(_render(title, header, rows))
    summary = result.summary
    typer.echo(
        f"ran {result.ran}, kept {result.kept} from before; overall: {summary['overall']['passed']}/"
        f"{summary['overall']['total']} ({summary['overall']['success_rate']} %) → {out}"
    )
    failed_requests = sum(r["verdict"]["error_subtype"] == "request_failed" for r in records)
    if records and failed_requests == len(records):
        _fail(f"all {len(records)} runs failed to reach the model endpoint; see {out / 'records.jsonl'}", 1)


def _render(title: str, header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows, strict=False)]
    lines = [title, "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=False))]
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=False)) for row in rows]
    return "\n".join(lines) + "\n"


def report(run_dirs: list[Path], as_json: bool, plots: bool) -> None:
    """Tables over one or more SMH run directories (a DR and an EIA run side by side)."""
    records = []
    for run_dir in run_dirs:
        if not (run_dir / "records.jsonl").is_file():
            _fail(f"{run_dir} holds no records.jsonl")
        try:
            records += load_records(run_dir)
        except (ValueError, KeyError) as error:
            _fail(f"{run_dir}/records.jsonl is not a valid SMH run file ({error})")
    summary = summarize(records)
    if plots:
        summary["plots"] = [str(p) for p in write_plots(summary, run_dirs[0])]
    if as_json:
        print(json.dumps(summary, ensure_ascii=False, sort_keys=True))
        return
    for title, header, rows in tables(records):
        typer.echo(_render(title, header, rows))


def write_plots(summary: dict[str, Any], run_dir: Path) -> list[Path]:
    import matplotlib  # here, not at the top: 0.44 s CPU to import (measured), paid only when plots are drawn

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    for key, name in (("by_category", "smh_categories.png"), ("by_tier", "smh_tiers.png")):
        figure, axes = plt.subplots(figsize=(7, 3.5))
        settings = list(summary["by_setting"])
        labels = list(summary[key])
        for offset, setting in enumerate(settings):
            values = [summary["by_setting"][setting][key].get(label, {}).get("success_rate") or 0 for label in labels]
            axes.bar([i + offset * 0.4 for i in range(len(labels))], values, width=0.4, label=setting.upper())
        axes.set_xticks([i + 0.2 * (len(settings) - 1) for i in range(len(labels))], labels, rotation=20, fontsize=7)
        axes.set_ylabel("success rate %")
        axes.set_ylim(0, 100)
        axes.legend()
        figure.tight_layout()
        path = run_dir / name
        figure.savefig(path, dpi=100, metadata={"Software": None})
        plt.close(figure)
        paths.append(path)
    return paths
