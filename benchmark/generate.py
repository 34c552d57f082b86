"""Generate benchmark episodes for all 12 kinds, offline and deterministic.

``generate_episodes(["qt3", "qt4-2"] | "all", per_type, seed)`` returns SimuHome-format episode dicts
(plus our ``homefabric`` extension block); ``write_episodes`` writes them as ``<qt>_<case>_seed_<n>.json``
with deterministic JSON, atomically. ``generate_command`` is the ``homefabric episodes generate`` command.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from benchmark.generation.common import CASES, KINDS, QUERY_TYPES, Draft, GenerationFailed, episode_rng, lay_out

MAX_ATTEMPTS = 40
MAX_PER_TYPE = 999
Builder = Callable[..., Draft]


@functools.cache
def builders() -> dict[str, Builder]:
    """The episode builder of each query type (imported on first use: they load the whole device model)."""
    from benchmark.generation import qt1, qt2, qt3
    from benchmark.generation.qt4 import after_anchor, coordination, relative

    return {"qt1": qt1.build, "qt2": qt2.build, "qt3": qt3.build, "qt4-1": relative.build,
            "qt4-2": after_anchor.build, "qt4-3": coordination.build}


class GeneratorInputError(ValueError):
    """Bad generator arguments (unknown query type, count out of range)."""


def parse_kinds(qts: str | Iterable[str]) -> list[tuple[str, str]]:
    """"all", query types ("qt1", "qt4-2") or kinds ("qt3_feasible") → [(qt, case)] in canonical order."""
    items = [qts] if isinstance(qts, str) else list(qts)
    names = [part.strip() for item in items for part in item.split(",") if part.strip()]
    wanted: set[tuple[str, str]] = set()
    for name in names:
        if name == "all":
            wanted |= {(qt, case) for qt in QUERY_TYPES for case in CASES}
        elif name in QUERY_TYPES:
            wanted |= {(name, case) for case in CASES}
        elif name in KINDS:
            qt, case = name.rsplit("_", 1)
            wanted.add((qt, case))
        else:
            raise GeneratorInputError(f"unknown query type {name!r}; use all, {', '.join(QUERY_TYPES)} "
                                      f"or a kind such as qt3_feasible")
    if not wanted:
        raise GeneratorInputError("no query type given")
    return [(qt, case) for qt in QUERY_TYPES for case in CASES if (qt, case) in wanted]


def episode_seed(base_seed: int, index: int) -> int:
    """Episode n of a run with seed s has seed s·1000 + n (the file name's ``seed_<n>``): runs never collide."""
    return base_seed * 1000 + index


def generate_episode(qt: str, case: str, seed: int, *, base_seed: int | None = None) -> dict[str, Any]:
    """One episode; attempts are seeded too, so a retry after an unsuitable home is deterministic."""
    failures: list[str] = []
    for attempt in range(MAX_ATTEMPTS):
        rng = episode_rng(seed, f"{qt}_{case}", attempt)
        try:
            draft = builders()[qt](seed, case, attempt, rng)
        except GenerationFailed as error:
            failures.append(str(error))
            continue
        return lay_out(draft, qt=qt, case=case, episode_seed=seed,
                       base_seed=base_seed if base_seed is not None else seed // 1000, attempt=attempt)
    raise RuntimeError(f"{qt}_{case} seed {seed}: no episode after {MAX_ATTEMPTS} attempts ({failures[-3:]})")


def generate_episodes(qts: list[str] | str, per_type: int, seed: int, *, typo_rate: float | None = None,
                      on_episode: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """``per_type`` episodes of each (qt, case) asked for, in canonical order. ``typo_rate`` (None: the default
    0.02; 0: none) is the chance of a typo per word outside slot values; ``on_episode`` sees each as it is made."""
    from benchmark.generation.grammar import TYPO_RATE

    if not 1 <= per_type <= MAX_PER_TYPE:
        raise GeneratorInputError(f"per_type must be 1..{MAX_PER_TYPE}, got {per_type}")
    if typo_rate is not None and not 0 <= typo_rate <= 0.5:
        raise GeneratorInputError(f"typo rate must be 0..0.5, got {typo_rate}")
    token = TYPO_RATE.set(typo_rate) if typo_rate is not None else None
    try:
        episodes = []
        for qt, case in parse_kinds(qts):
            for index in range(1, per_type + 1):
                episodes.append(generate_episode(qt, case, episode_seed(seed, index), base_seed=seed))
                if on_episode is not None:
                    on_episode(episodes[-1])
        return episodes
    finally:
        if token is not None:
            TYPO_RATE.reset(token)


def episode_file_name(episode: dict[str, Any]) -> str:
    meta = episode["meta"]
    return f"{meta['query_type']}_{meta['case']}_seed_{meta['seed']}.json"


def dumps_episode(episode: dict[str, Any]) -> str:
    """Deterministic JSON: our fixed field order, 2-space indent, UTF-8, trailing newline."""
    return json.dumps(episode, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_episodes(episodes: Iterable[dict[str, Any]], out: str | os.PathLike[str]) -> list[Path]:
    from emulator.home_config import write_atomically

    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for episode in episodes:
        path = directory / episode_file_name(episode)
        write_atomically(path, dumps_episode(episode))
        paths.append(path)
    return paths


def generate_command(
    out: Annotated[Path, typer.Option("--out", help="Directory to write the episode files to.")],
    qt: Annotated[str, typer.Option("--qt", help="all, query types (qt1,qt4-2) or kinds (qt3_feasible).")] = "all",
    per_type: Annotated[int, typer.Option("--per-type", help="Episodes per query type and case.")] = 50,
    seed: Annotated[int, typer.Option("--seed", help="Run seed; episode n gets seed·1000 + n.")] = 1,
    paraphrase: Annotated[bool, typer.Option("--paraphrase", help="Paraphrase queries with an LLM (checked).")] = False,
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="Paraphrase model name.")] = None,
    api_key_env: Annotated[str, typer.Option("--api-key-env", help="Env var holding the API key.")] = "OPENAI_API_KEY",
    typo_rate: Annotated[float, typer.Option("--typo-rate", help="Chance of a typo (swapped or dropped letter) per "
                                             "word outside device/room/value slots, as typed requests have; 0 "
                                             "turns typos off.")] = 0.02,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="A progress bar on stderr.")] = True,
    allow_template_fallback: Annotated[bool, typer.Option(
        "--allow-template-fallback",
        help="Keep template queries where paraphrasing failed (endpoint down, errors) instead of failing.")] = False,
    suite: Annotated[str, typer.Option("--suite", help="simuhome (12 kinds), smh (SMH-Bench, 22 "
                                                         "subcategories) or voice (spoken dialogues).")]
    = "simuhome",
    per_subcategory: Annotated[str | None, typer.Option("--per-subcategory", help="smh: simple,medium,complex "
                                                        "instances per subcategory (default 25,15,10).")] = None,
    executor: Annotated[str, typer.Option("--executor", help="simuhome: local (this process) or ray (units of "
                                          "episodes as Ray tasks; the same files).")] = "local",
    address: Annotated[str | None, typer.Option("--address", help="ray: a running cluster (host:port); none: a "
                                                "local one.")] = None,
    workers: Annotated[int | None, typer.Option("--workers", help="ray without --address: CPUs of the local "
                                                "cluster.")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="ray: keep the units whose files are all in --out.")]
    = False,
) -> None:
    """Generate seeded episodes of all 12 kinds in SimuHome's file format (or the SMH suite: --suite smh)."""
    if suite not in ("simuhome", "smh", "voice"):
        typer.echo(f"error: --suite {suite!r} is not known; allowed: simuhome, smh, voice", err=True)
        raise typer.Exit(2)
    if executor != "local" or resume or address is not None or workers is not None:
        if suite != "simuhome" or paraphrase:
            typer.echo("error: --executor ray/--resume generate simuhome episodes without --paraphrase", err=True)
            raise typer.Exit(2)
        from benchmark.training.episode_cli import generate_with_executor

        return generate_with_executor(out, qt, per_type, seed, typo_rate, executor=executor, address=address,
                                      workers=workers, resume=resume, progress=progress)
    if suite == "voice":  # spatial, temporal and clarify dialogues; --qt picks task types
        from benchmark.speech import voice_cli

        return voice_cli.generate(out, seed, per_type, "all" if qt == "all" else qt)
    if suite == "smh":
        from benchmark.smh import cli as smh_cli

        return smh_cli.generate(out, seed, per_subcategory, paraphrase=paraphrase, base_url=base_url, model=model,
                                api_key_env=api_key_env)
    from emulator.output_paths import output_dir_problem

    started = time.perf_counter()
    if problem := output_dir_problem(out, "--out"):
        typer.echo(f"error: {problem}", err=True)
        raise typer.Exit(2)
    try:
        parse_kinds(qt)
        with _progress_bar(progress, len(parse_kinds(qt)) * per_type) as advance:
            episodes = generate_episodes(qt, per_type, seed, typo_rate=typo_rate, on_episode=advance)
    except GeneratorInputError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None
    if paraphrase:
        if not base_url or not model:
            typer.echo("error: --paraphrase needs --base-url and --model", err=True)
            raise typer.Exit(2)
        from benchmark.generation.paraphrase_run import ParaphraseFailed, paraphrase_or_fail

        try:
            summary = asyncio.run(paraphrase_or_fail(episodes, base_url=base_url, model=model,
                                                     api_key=os.environ.get(api_key_env),
                                                     allow_template_fallback=allow_template_fallback))
        except ParaphraseFailed as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(error.exit_code) from None
        typer.echo(summary)
    paths = write_episodes(episodes, out)
    typer.echo(f"wrote {len(paths)} episodes to {out} in {time.perf_counter() - started:.1f} s (wall time)")


@contextlib.contextmanager
def _progress_bar(enabled: bool, total: int) -> Iterator[Callable[[Any], None]]:
    """A transient rich progress bar on stderr while episodes are generated (a no-op when disabled)."""
    if not enabled:
        yield lambda _episode: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("generating episodes"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("episodes", total=total)
        yield lambda _episode: bar.advance(task)


if __name__ == "__main__":
    typer.run(generate_command)
