"""``episodes generate --suite voice`` and ``bench run --suite voice``: the glue between flags and the suite.

A voice run directory (:mod:`benchmark.suites.voice.voice_runner`) holds ``manifest.json``, ``records.jsonl`` (one
record per condition × episode × trial, in that order) and ``report.json``
(:func:`benchmark.suites.voice.voice_report.summarise`). Several ``--condition`` values (or ``grid``) run every
episode under each, in one run; ``--resume`` continues a killed run, ``--concurrency`` runs several at once.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any, NoReturn

import typer
from pydantic import ValidationError

from benchmark.agents.null import NullAgent
from benchmark.agents.react import ReactAgent
from benchmark.llm.client import LLMClient
from benchmark.runs.store import RECORDS, RunError, RunFileError, belonging_records, load_manifest, read_records_file
from benchmark.suites.voice.asr import DEFAULT_ASR, ASRError, model_directory
from benchmark.suites.voice.conditions import NOISE_CHOICES, ConditionError, parse_conditions
from benchmark.suites.voice.voice_episode import VoiceEpisodeError, load_voice_episodes, write_voice_episodes
from benchmark.suites.voice.voice_generate import VoiceGenerationError, generate_voice_episodes
from benchmark.suites.voice.voice_hearing import Hearing
from benchmark.suites.voice.voice_oracle import VoiceOracleAgent
from benchmark.suites.voice.voice_report import format_report, summarise
from benchmark.suites.voice.voice_runner import VoiceRunner, VoiceRunSpec, stored_spec
from benchmark.suites.voice.voices import VoiceError, parse_voices
from emulator.files import write_atomically
from emulator.output_paths import output_dir_problem


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _say_dropped(dropped: list[dict[str, Any]]) -> None:
    for item in dropped:
        where = f"{item['episode_id']} trial {item['trial']}: " if "episode_id" in item else ""
        typer.echo(f"dropped records.jsonl line {item['line']}: {where}{item['reason']}", err=True)


def report(run_dir: Path, as_json: bool) -> None:
    """``bench report`` of a voice run: the summary again from the records of the run's episodes and
    conditions (report.json rewritten; a record of anything else is named and not counted)."""
    try:
        manifest = load_manifest(run_dir)
        read = read_records_file(run_dir / RECORDS)
    except RunFileError as error:
        _fail(str(error))
    membership = belonging_records(read.records, read.lines, manifest)
    _say_dropped(membership.dropped + [{"line": p.line, "reason": p.message} for p in read.problems])
    if not membership.kept:
        _fail(f"{run_dir}: no voice records of the run in records.jsonl")
    summary = summarise(membership.kept)
    write_atomically(run_dir / "report.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    typer.echo(json.dumps(summary, indent=2) if as_json else format_report(summary))


def generate(out: Path, seed: int, per_type: int, task_types: str) -> None:
    started = time.perf_counter()
    if problem := output_dir_problem(out, "--out"):
        _fail(problem)
    try:
        episodes = generate_voice_episodes(per_type, seed, task_types)
    except VoiceGenerationError as error:
        _fail(str(error))
    paths = write_voice_episodes(episodes, out)
    typer.echo(f"wrote {len(paths)} voice episodes to {out} in {time.perf_counter() - started:.1f} s (wall time)")


def hearings(
    input_way: str, conditions: list[str], asr: str | None, seed: int, voices: str, noise: str
) -> list[Hearing]:
    """One Hearing per condition (text input has one, unheard); a bad value names what is allowed."""
    if input_way not in ("text", "asr", "audio"):
        _fail(f"--input {input_way!r} is not known; allowed: text, asr, audio")
    if noise not in NOISE_CHOICES:
        _fail(f"unknown noise {noise!r}; allowed: {', '.join(NOISE_CHOICES)}")
    try:
        parse_voices(voices)
        if input_way == "asr":
            model_directory(asr or DEFAULT_ASR)
        grid = parse_conditions(",".join(conditions) if conditions else None)
    except (ConditionError, VoiceError, ASRError) as error:
        _fail(str(error))
    if input_way == "text":
        return [Hearing()]
    return [
        Hearing(input=input_way, condition=condition, asr=asr or DEFAULT_ASR, noise=noise, seed=seed, voices=voices)
        for condition in grid
    ]


def make_agent(name: str | None, base_url: str | None, model: str | None, api_key_env: str | None) -> Any:
    if name in (None, "oracle"):
        return VoiceOracleAgent()
    if name == "null":
        return NullAgent()
    if name != "react":
        _fail(f"--agent {name!r} is not known for --suite voice; allowed: oracle, null, react")
    if not base_url or not model:
        _fail("--agent react needs --base-url and --model")
    return None  # built inside the event loop (its HTTP client belongs to it)


async def _run(runner: Any, agent: Any, react: dict[str, Any] | None) -> Any:
    if react is None:
        return await runner.run(agent)
    async with LLMClient(react["base_url"], os.environ.get(react["api_key_env"]), react["model"]) as client:
        return await runner.run(ReactAgent(client))


def run(
    episodes_path: Path | None,
    agent_name: str | None,
    out: Path | None,
    *,
    input_way: str | None,
    conditions: list[str] | None,
    asr: str | None,
    seed: int | None,
    voices: str,
    noise: str,
    trials: int | None,
    limit: int | None,
    base_url: str | None,
    model: str | None,
    api_key_env: str | None,
    as_json: bool,
    resume: bool = False,
    force: bool = False,
    concurrency: int | None = None,
    quiet: bool = False,
) -> None:
    started = time.perf_counter()
    if out is None:
        _fail("--suite voice needs --episodes DIR (from `episodes generate --suite voice`) and --out DIR")
    if problem := output_dir_problem(out, "--out"):
        _fail(problem)
    if concurrency is not None and not 1 <= concurrency <= 256:
        _fail(f"--concurrency {concurrency} is out of range; allowed: 1 to 256")
    # --resume: the spec the run was started with, and the flags given now on top (a change is refused)
    data = dict(stored_spec(out) or {}) if resume else {}
    flags = {
        "episodes": str(episodes_path) if episodes_path is not None else None,
        "agent": agent_name,
        "model": model,
        "base_url": base_url,
        "api_key_env": api_key_env,
        "input": input_way,
        "asr": asr,
        "seed": seed,
        "voices": voices if voices != "all" else None,
        "trials": trials,
        "limit": limit,
    }
    data.update({key: value for key, value in flags.items() if value is not None})
    if "episodes" not in data:
        _fail("--suite voice needs --episodes DIR (from `episodes generate --suite voice`) and --out DIR")
    way = data.get("input", "text")
    wanted = conditions or ([] if way == "text" else data.get("conditions") or [])
    hearing_list = hearings(way, wanted, data.get("asr"), data.get("seed", 0), data.get("voices", "all"), noise)
    data.update(conditions=[h.condition_id for h in hearing_list], noise=noise)
    agent = make_agent(data.get("agent"), data.get("base_url"), data.get("model"), data.get("api_key_env"))
    try:
        spec = VoiceRunSpec.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        _fail(f"{'.'.join(str(p) for p in first['loc']) or 'spec'}: {first['msg']} (voice run spec of {out})")
    try:
        episodes = load_voice_episodes(Path(spec.episodes))
    except VoiceEpisodeError as error:
        _fail(str(error))
    episodes = episodes[: spec.limit] if spec.limit else episodes
    react = (
        None
        if agent is not None
        else {"base_url": spec.base_url, "model": spec.model, "api_key_env": spec.api_key_env or "OPENAI_API_KEY"}
    )
    runner = VoiceRunner(
        spec, hearing_list, episodes, out, resume=resume, force=force, concurrency=concurrency or 1, progress=not quiet
    )
    try:
        result = asyncio.run(_run(runner, agent, react))
    except (RunError, RunFileError) as error:
        _fail(str(error))
    _say_dropped(result.dropped)
    summary = summarise(result.records)
    write_atomically(out / "report.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    typer.echo(json.dumps(summary, indent=2) if as_json else format_report(summary))
    typer.echo(
        f"ran {len(result.ran)} episode run(s), kept {result.kept} from before; records in {out} "
        f"({time.perf_counter() - started:.1f} s wall time)",
        err=True,
    )
    turns = [t for r in result.ran for t in r.get("turns", [])]
    if turns and all(t["end_reason"] in ("aborted", "infra_error") for t in turns):
        _fail(f"every assistant turn ended in an error (first: {turns[0]['error']}); see {out / 'records.jsonl'}", 1)
    if result.ran and all(r["status"] == "infra_error" for r in result.ran):
        _fail(
            f"all {len(result.ran)} episode run(s) were infrastructure errors (first: {result.ran[0]['error']}); "
            f"see {out / 'records.jsonl'}",
            1,
        )
