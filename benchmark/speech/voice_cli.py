"""``episodes generate --suite voice`` and ``bench run --suite voice``: the glue between flags and the suite.

A voice run directory holds ``records.jsonl`` (one record per episode × condition × trial, in order) and
``report.json`` (:func:`benchmark.speech.voice_report.summarise`). Several ``--condition`` values (or
``grid``) run every episode under each, in one run.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import typer

from benchmark.speech.voice_hearing import Hearing


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


VOICE_RUN_SCHEMA = "homefabric-voice-run/1"


def is_voice_run(run_dir: Path) -> bool:
    try:
        return json.loads((run_dir / "manifest.json").read_text(encoding="utf-8")).get("schema") == VOICE_RUN_SCHEMA
    except (OSError, ValueError, AttributeError):
        return False


def report(run_dir: Path, as_json: bool) -> None:
    """``bench report`` of a voice run: the summary again from its records (report.json rewritten)."""
    from benchmark.run_store import read_records_file
    from benchmark.speech.voice_report import format_report, summarise
    from emulator.home_config import write_atomically

    records = read_records_file(run_dir / "records.jsonl").records
    if not records:
        _fail(f"{run_dir}: no voice records in records.jsonl")
    summary = summarise(records)
    write_atomically(run_dir / "report.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    typer.echo(json.dumps(summary, indent=2) if as_json else format_report(summary))


def generate(out: Path, seed: int, per_type: int, task_types: str) -> None:
    from benchmark.speech.voice_episode import write_voice_episodes
    from benchmark.speech.voice_generate import VoiceGenerationError, generate_voice_episodes
    from emulator.output_paths import output_dir_problem

    started = time.perf_counter()
    if problem := output_dir_problem(out, "--out"):
        _fail(problem)
    try:
        episodes = generate_voice_episodes(per_type, seed, task_types)
    except VoiceGenerationError as error:
        _fail(str(error))
    paths = write_voice_episodes(episodes, out)
    typer.echo(f"wrote {len(paths)} voice episodes to {out} in {time.perf_counter() - started:.1f} s (wall time)")


def hearings(input_way: str, conditions: list[str], asr: str | None, seed: int, voices: str,
             noise: str) -> list[Hearing]:
    """One Hearing per condition (text input has one, unheard); a bad value names what is allowed."""
    from benchmark.speech.asr import DEFAULT_ASR, ASRError, model_directory
    from benchmark.speech.conditions import NOISE_CHOICES, ConditionError, parse_conditions
    from benchmark.speech.voices import VoiceError, parse_voices

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
    return [Hearing(input=input_way, condition=condition, asr=asr or DEFAULT_ASR, noise=noise, seed=seed,
                    voices=voices) for condition in grid]


def make_agent(name: str | None, base_url: str | None, model: str | None, api_key_env: str | None) -> Any:
    if name in (None, "oracle"):
        from benchmark.speech.voice_oracle import VoiceOracleAgent

        return VoiceOracleAgent()
    if name == "null":
        from benchmark.agents.null import NullAgent

        return NullAgent()
    if name != "react":
        _fail(f"--agent {name!r} is not known for --suite voice; allowed: oracle, null, react")
    if not base_url or not model:
        _fail("--agent react needs --base-url and --model")
    return None  # built inside the event loop (its HTTP client belongs to it)


async def _run_all(episodes: list[Any], hearing_list: list[Hearing], agent: Any, react: dict[str, Any] | None,
                   trials: int, records_path: Path) -> list[dict[str, Any]]:
    from benchmark.speech.voice_run import record_line, run_voice_episode

    records: list[dict[str, Any]] = []

    async def loop(current: Any) -> None:
        with records_path.open("a", encoding="utf-8") as handle:
            for hearing in hearing_list:
                for episode in episodes:
                    for trial in range(trials):
                        record = await run_voice_episode(episode, current, hearing, trial=trial)
                        handle.write(record_line(record))
                        handle.flush()
                        os.fsync(handle.fileno())
                        records.append(record)

    if react is None:
        await loop(agent)
        return records
    from benchmark.agents.react import ReactAgent
    from benchmark.llm_client import LLMClient

    async with LLMClient(react["base_url"], os.environ.get(react["api_key_env"]), react["model"]) as client:
        await loop(ReactAgent(client))
    return records


def run(episodes_path: Path | None, agent_name: str | None, out: Path | None, *, input_way: str | None,
        conditions: list[str] | None, asr: str | None, seed: int | None, voices: str, noise: str, trials: int | None,
        limit: int | None, base_url: str | None, model: str | None, api_key_env: str | None, as_json: bool) -> None:
    from benchmark.speech.voice_episode import VoiceEpisodeError, load_voice_episodes
    from benchmark.speech.voice_report import format_report, summarise
    from emulator.home_config import write_atomically
    from emulator.output_paths import output_dir_problem

    if episodes_path is None or out is None:
        _fail("--suite voice needs --episodes DIR (from `episodes generate --suite voice`) and --out DIR")
    if problem := output_dir_problem(out, "--out"):
        _fail(problem)
    if (out / "records.jsonl").exists():
        _fail(f"{out} already holds a run; choose a new --out")
    hearing_list = hearings(input_way or "text", conditions or [], asr, seed or 0, voices, noise)
    agent = make_agent(agent_name, base_url, model, api_key_env)
    try:
        episodes = load_voice_episodes(episodes_path)
    except VoiceEpisodeError as error:
        _fail(str(error))
    episodes = episodes[:limit] if limit else episodes
    react = None if agent is not None else {"base_url": base_url, "model": model,
                                            "api_key_env": api_key_env or "OPENAI_API_KEY"}
    out.mkdir(parents=True, exist_ok=True)
    manifest = {"schema": VOICE_RUN_SCHEMA, "agent": agent_name or "oracle", "model": model,
                "input": hearing_list[0].input, "conditions": [h.condition_id for h in hearing_list],
                "asr": hearing_list[0].asr, "seed": seed or 0, "voices": voices, "trials": trials or 1,
                "episodes": [e.episode_id for e in episodes]}
    write_atomically(out / "manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    records = asyncio.run(_run_all(episodes, hearing_list, agent, react, trials or 1, out / "records.jsonl"))
    summary = summarise(records)
    write_atomically(out / "report.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    typer.echo(json.dumps(summary, indent=2) if as_json else format_report(summary))
    turns = [t for r in records for t in r["turns"]]
    if turns and all(t["end_reason"] in ("aborted", "infra_error") for t in turns):
        _fail(f"every assistant turn ended in an error (first: {turns[0]['error']}); see {out / 'records.jsonl'}", 1)
