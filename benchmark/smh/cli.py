"""The ``--suite smh`` side of ``homefabric episodes generate``, ``bench run`` and ``bench report``.

Bad input ends with one line naming what was wrong and what is allowed (exit 2), never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import typer

from benchmark.smh.taxonomy import DEFAULT_PER_SUBCATEGORY, SETTINGS, SUBCATEGORIES, TIERS

RUN_MARKER = "smh-run.json"
AGENTS = ("oracle", "null", "llm", "react")


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def parse_per_subcategory(text: str | None) -> dict[str, int]:
    """"25,15,10" → counts per tier (simple, medium, complex); one number applies to all three."""
    if not text:
        return dict(DEFAULT_PER_SUBCATEGORY)
    parts = [p.strip() for p in text.split(",")]
    if len(parts) == 1:
        parts *= len(TIERS)
    if len(parts) != len(TIERS) or not all(p.isdigit() for p in parts):
        _fail(f"--per-subcategory {text!r}: give three counts simple,medium,complex (e.g. 25,15,10) or one")
    return dict(zip(TIERS, (int(p) for p in parts), strict=True))


def generate(out: Path, seed: int, per_subcategory: str | None, subcategories: str | None = None, *,
             paraphrase: bool = False, base_url: str | None = None, model: str | None = None,
             api_key_env: str | None = None) -> None:
    from benchmark.smh.generate import GenerationError, generate_suite
    from emulator.output_paths import output_dir_problem

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
        summary = generate_suite(out, seed, counts, chosen, paraphrase=rewrite)
    except GenerationError as error:
        _fail(str(error), 1)
    if "paraphrase" in summary:
        typer.echo(f"paraphrased: {summary['paraphrase']['accepted']} accepted, "
                   f"{summary['paraphrase']['rejected']} kept as templates")
    typer.echo(f"wrote {summary['instances']} SMH instances ({summary['homes']} homes) to {out} "
               f"in {time.perf_counter() - started:.1f} s (wall time)")


def _paraphraser(base_url: str, model: str, api_key_env: str | None) -> Any:
    from benchmark.llm_client import LLMClient
    from benchmark.smh.generate.paraphrase import paraphrase_instances

    def rewrite(instances: list, homes: dict) -> dict[str, int]:
        async def go() -> dict[str, int]:
            async with LLMClient(base_url, os.environ.get(api_key_env) if api_key_env else None, model,
                                 temperature=0.7) as client:
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


def _agent(name: str, setting: str, base_url: str | None, model: str | None, api_key_env: str | None) -> Any:
    from benchmark.smh import agents

    if name == "oracle":
        return agents.OracleDr() if setting == "dr" else agents.OracleEia()
    if name == "null":
        return agents.NullDr() if setting == "dr" else agents.NullEia()
    if not base_url or not model:
        _fail(f"--agent {name} needs --base-url and --model (an OpenAI-compatible endpoint)")
    from benchmark.llm_client import LLMClient

    client = LLMClient(base_url, os.environ.get(api_key_env) if api_key_env else None, model)
    return agents.LlmDr(client) if setting == "dr" else agents.ReactEia(client)


def _judge(kind: str | None, model: str | None, base_url: str | None, api_key_env: str | None) -> Any:
    """None (the rules judge) or the 3-vote LLM judge of query answers."""
    if kind in (None, "rules"):
        return None
    if kind != "llm":
        _fail(f"--judge {kind!r}: allowed: rules, llm")
    if not model or not base_url:
        _fail("--judge llm needs --judge-model and --judge-base-url")
    from benchmark.llm_client import LLMEndpointSpec
    from benchmark.smh.judge import SmhAnswerJudge

    return SmhAnswerJudge.from_spec(LLMEndpointSpec(base_url=base_url, model=model, api_key_env=api_key_env))


def run(suite_dir: Path | None, setting: str | None, agent: str | None, out: Path | None, *, base_url: str | None,
        model: str | None, api_key_env: str | None, budget: int, limit: int | None,
        subcategories: str | None, judge: str | None = None, judge_model: str | None = None,
        judge_base_url: str | None = None) -> None:
    from benchmark.smh.instance import load_instances
    from benchmark.smh.report import tables
    from benchmark.smh.run import run_suite, write_run
    from emulator.output_paths import output_dir_problem

    if suite_dir is None or not (suite_dir / "instances").is_dir():
        _fail(f"--episodes {suite_dir}: not an SMH suite directory (expected instances/ and homes/ from "
              "`homefabric episodes generate --suite smh`)")
    settings = [s.strip() for s in (setting or "").split(",") if s.strip()]
    if not settings or any(s not in SETTINGS for s in settings):
        _fail(f"--setting {setting!r}: allowed: dr, eia, or dr,eia (both, into one run)")
    if agent not in AGENTS:
        _fail(f"--agent {agent!r}: allowed for --suite smh: {', '.join(AGENTS)}")
    if budget < 1:
        _fail(f"--budget {budget}: must be at least 1")
    answer_judge = _judge(judge, judge_model, judge_base_url, api_key_env)
    if out is None:
        _fail("--out is required: the run directory")
    if problem := output_dir_problem(out, "--out"):
        _fail(problem)
    try:
        instances = load_instances(suite_dir)  # type: ignore[arg-type]
    except ValueError as error:
        _fail(str(error))
    chosen = set(_subcategories(subcategories))
    instances = [i for i in instances if i.subcategory in chosen][:limit]
    if not instances:
        _fail(f"{suite_dir}: no instances selected", 1)
    records = []
    for name in settings:
        runner = _agent(agent, name, base_url, model, api_key_env)  # type: ignore[arg-type]
        records += asyncio.run(run_suite(suite_dir, instances, name, runner,  # type: ignore[arg-type]
                                         budget=budget, judge=answer_judge))
    summary = write_run(out, records)  # type: ignore[arg-type]
    from benchmark.smh.instance import write_atomically

    write_atomically(out / RUN_MARKER, json.dumps({"schema": "homefabric-smh-run/1", "suite": str(suite_dir),
                                                  "settings": settings, "agent": agent, "budget": budget,
                                                  "model": model}, indent=1, sort_keys=True) + "\n")
    for title, header, rows in tables(records):
        typer.echo(_render(title, header, rows))
    typer.echo(f"overall: {summary['overall']['passed']}/{summary['overall']['total']} "
               f"({summary['overall']['success_rate']} %) → {out}")


def _render(title: str, header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows, strict=False)]
    lines = [title, "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=False))]
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=False)) for row in rows]
    return "\n".join(lines) + "\n"


def is_smh_run(run_dir: Path) -> bool:
    return (run_dir / RUN_MARKER).is_file()


def report(run_dirs: list[Path], as_json: bool, plots: bool) -> None:
    """Tables over one or more SMH run directories (a DR and an EIA run side by side)."""
    from benchmark.smh.report import summarize, tables
    from benchmark.smh.run import load_records

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
    import matplotlib

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
        axes.set_xticks([i + 0.2 * (len(settings) - 1) for i in range(len(labels))], labels, rotation=20,
                        fontsize=7)
        axes.set_ylabel("success rate %")
        axes.set_ylim(0, 100)
        axes.legend()
        figure.tight_layout()
        path = run_dir / name
        figure.savefig(path, dpi=100, metadata={"Software": None})
        plt.close(figure)
        paths.append(path)
    return paths
