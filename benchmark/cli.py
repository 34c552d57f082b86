"""Command-line sub-apps: ``homefabric episodes …`` (episodes_app) and ``homefabric bench …`` (bench_app)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from benchmark.execution.executor_options import AddressOption, ExecutorOption, WorkersOption

if TYPE_CHECKING:
    from rich.console import Console

# Every command imports the benchmark inside itself: homefabric_cli mounts this module on every start, `--help`
# included, and the benchmark's modules load the home engine and the official Matter model (clusters.chip_model;
# tests/test_cli_startup.py checks it stays out, perf/cli_startup.py times it).
episodes_app = typer.Typer(help="Benchmark episodes (SimuHome's format).", no_args_is_help=True)
bench_app = typer.Typer(help="Run agents on episodes and report scores.", no_args_is_help=True)


# Made when a command first prints (rich loads then: a run's episodes do not need it).
@cache
def _console() -> Console:
    from rich.console import Console

    return Console()


@cache
def _err_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, soft_wrap=True)  # one error, one line


def _fail(message: str, code: int = 2) -> NoReturn:
    _err_console().print(f"[bold red]error:[/] {message}", soft_wrap=True)  # one line, however long
    raise typer.Exit(code)


def _is_voice_run(run_dir: Path) -> bool:
    # The voice suite's runner loads the speech stack (numpy, scipy: ~90 MiB): only when a resume asks.
    from benchmark.suites.voice.voice_runner import is_voice_run

    return is_voice_run(run_dir)


def _stored_conditions(out: Path) -> tuple[dict[str, Any], list[str]] | None:
    # Only a resume reads them; the module loads the voice report (and the speech stack with it).
    from benchmark.suites.voice.condition_runs import stored_conditions

    return stored_conditions(out)


# --- episodes --------------------------------------------------------------------------------------------------


@episodes_app.command("import")
def episodes_import(
    directory: Annotated[Path, typer.Argument(help="A directory of episode files (or one file).")],
    out: Annotated[Path | None, typer.Option("--out", help="Write normalised copies here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Check SimuHome episode files by building each home as the runner does: files, runnable, problems
    (file and JSON path) and the SimuHome value shapes normalised on the way; exit 1 if any is not runnable."""
    from benchmark.runs.progress import WorkProgress
    from benchmark.suites.simuhome.episode import KINDS, display_name, episode_files, iter_episodes, save_episode

    if not directory.exists():
        _fail(f"{directory}: no such file or directory (give a directory of episode .json files or one file)")
    files = len(episode_files(directory))
    if files == 0:
        _fail(f"{directory}: no episode files (*.json) found", code=1)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    # one file at a time (an episode is dropped once counted and written): memory does not grow with the folder
    counts: dict[str, int] = dict.fromkeys(KINDS, 0)
    normalisations: dict[str, int] = {}
    problems: list[Any] = []
    runnable = written = 0
    with WorkProgress("checking episode files", files) as bar:
        for episode, found in iter_episodes(directory):
            bar.advance()
            problems.extend(found)
            if episode is None:
                continue
            runnable += 1
            counts[episode.kind] = counts.get(episode.kind, 0) + 1
            for name, count in episode.normalisations.items():
                normalisations[name] = normalisations.get(name, 0) + count
            if out is not None:
                save_episode(episode, out / f"{episode.episode_id}.json")
                written += 1
    normalisations = dict(sorted(normalisations.items()))
    not_runnable = sorted({p.file for p in problems})
    shown = display_name(directory)
    if as_json:
        print(
            json.dumps(
                {
                    "files": files,
                    "runnable": runnable,
                    "not_runnable": len(not_runnable),
                    "episodes": runnable,
                    "by_kind": counts,
                    "normalisations": normalisations,
                    "written": written,
                    "problems": [p.to_dict() for p in problems],
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        from rich.table import Table

        table = Table(title=f"{shown}: {runnable} of {files} runnable")
        table.add_column("kind")
        table.add_column("episodes", justify="right")
        for kind in KINDS:
            table.add_row(kind, str(counts.get(kind, 0)))
        _console().print(table)
        _console().print(
            f"files {files}, runnable {runnable}, problems {len(problems)} (in {len(not_runnable)} files)",
            highlight=False,
        )
        if normalisations:
            _console().print(
                "SimuHome value shapes normalised (attribute values): "
                + ", ".join(f"{name} {count}" for name, count in normalisations.items()),
                highlight=False,
            )
        if out is not None:
            _console().print(f"wrote {written} normalised episode files to {out}")
        if problems:
            _console().print(f"[bold yellow]{len(problems)} problem(s); those files are not runnable:[/]")
            for problem in problems:
                _console().print(f"  {problem}", markup=False, highlight=False)
    if problems:
        raise typer.Exit(1)


# --- bench run ---------------------------------------------------------------------------------------------------


def _spec_from_flags(spec_path: Path | None, overrides: dict[str, Any], base: dict[str, Any] | None = None) -> Any:
    from benchmark.runs.spec import SpecError, load_spec, parse_spec

    try:
        if spec_path:
            base = load_spec(spec_path).model_dump(mode="json", by_alias=True)
        base = dict(base or {})
    except SpecError as error:
        _fail(str(error))
    for dotted, value in overrides.items():
        if value is None:
            continue
        node = base
        *parents, leaf = dotted.split(".")
        for key in parents:
            child = node.get(key)
            if not isinstance(child, dict):
                child = node[key] = {}
            node = child
        node[leaf] = value
    try:
        return parse_spec(base, str(spec_path) if spec_path else "<command line>")
    except SpecError as error:
        _fail(str(error))


@bench_app.command("run")
def bench_run(
    spec_file: Annotated[Path | None, typer.Argument(help="Run spec (YAML); flags override its fields.")] = None,
    agent: Annotated[str | None, typer.Option("--agent", help="oracle, null, replay or react.")] = None,
    episodes: Annotated[str | None, typer.Option("--episodes", help="Episode directory or file.")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Run directory.")] = None,
    trials: Annotated[int | None, typer.Option("--trials", help="Trials per episode (pass^k).")] = None,
    concurrency: Annotated[int | None, typer.Option("--concurrency", help="Episodes run at once.")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue a killed run in --out.")] = False,
    judge: Annotated[str | None, typer.Option("--judge", help="rules or llm.")] = None,
    max_steps: Annotated[int | None, typer.Option("--max-steps", help="Agent turn limit.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="Agent model name.")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible base URL (…/v1).")] = None,
    api_key_env: Annotated[str | None, typer.Option("--api-key-env", help="Env var holding the API key.")] = None,
    judge_model: Annotated[str | None, typer.Option("--judge-model", help="Judge model (llm judge).")] = None,
    judge_base_url: Annotated[str | None, typer.Option("--judge-base-url", help="Judge base URL.")] = None,
    replay_from: Annotated[str | None, typer.Option("--replay-from", help="Records to replay (replay agent).")] = None,
    kinds: Annotated[str | None, typer.Option("--kinds", help="Comma-separated kinds, e.g. qt3_feasible.")] = None,
    tools: Annotated[
        str | None,
        typer.Option(
            "--tools",
            help="Tool profile: simuhome, paper13 or simuhome_ext (with create_automation, which episodes with gold "
            "automations need; tools.profile).",
        ),
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="At most this many episodes.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict", help="Exit 1 if any run is an infrastructure error (by default only when every run is)."
        ),
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Resume even without the run's manifest.")] = False,
    timeout: Annotated[
        float | None, typer.Option("--timeout", help="Seconds to wait for one model reply (agent.model.timeout_s).")
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option("--max-tokens", help="Token cap of one model reply (agent.model.max_tokens).")
    ] = None,
    mode: Annotated[
        str | None, typer.Option("--mode", help="react: native, text or auto (agent.options.mode).")
    ] = None,
    tool_choice: Annotated[
        str | None,
        typer.Option("--tool-choice", help="react native mode: auto, required or omit (agent.options.tool_choice)."),
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Sampling seed sent to the model.")] = None,
    temperature: Annotated[float | None, typer.Option("--temperature", help="Sampling temperature.")] = None,
    suite: Annotated[
        str, typer.Option("--suite", help="simuhome, smh (SMH-Bench) or voice (spoken dialogues).")
    ] = "simuhome",
    setting: Annotated[str | None, typer.Option("--setting", help="smh: dr, eia or dr,eia (default eia).")] = None,
    budget: Annotated[int | None, typer.Option("--budget", help="smh EIA: tool-call budget (default 10).")] = None,
    input_way: Annotated[
        str | None,
        typer.Option(
            "--input", help="text, asr (the recogniser's transcript of the spoken turn) or audio (input_audio parts)."
        ),
    ] = None,
    asr: Annotated[
        str | None,
        typer.Option(
            "--asr", help="Recogniser for --input asr: whisper-tiny.en or a CTranslate2 Whisper model directory."
        ),
    ] = None,
    condition: Annotated[
        list[str] | None,
        typer.Option(
            "--condition",
            help="Acoustic condition of the spoken "
            "turns, e.g. clean-dry, 10db-reverb; voice suite: repeat it "
            "or give grid for several in one run.",
        ),
    ] = None,
    voices: Annotated[
        str, typer.Option("--voices", help="Voice pool of the spoken turns: all or a comma list of voice ids.")
    ] = "all",
    as_json: Annotated[bool, typer.Option("--json", help="voice suite, --dry-run: print JSON.")] = False,
    matter_server: Annotated[
        str | None,
        typer.Option(
            "--matter-server",
            help="Run on the live Matter home of this python-matter-server (ws://HOST:5580/ws) "
            "instead of the emulated one (backend.matter_server).",
        ),
    ] = None,
    mapping: Annotated[
        str | None, typer.Option("--mapping", help="With --matter-server: a mapping file (homefabric matter map).")
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="With a live home: list which episodes are runnable on it and why the rest are not; changes nothing.",
        ),
    ] = False,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    workers: WorkersOption = None,
) -> None:
    """Run an agent on episodes: one fresh fabric per (episode, trial) — or the live Matter home of
    --matter-server, brought to each episode's initial state — JSONL records, resumable."""
    if suite not in ("simuhome", "smh", "voice"):
        _fail(f"--suite {suite!r} is not known; allowed: simuhome, smh, voice")
    on_executor = executor != "local" or address is not None or workers is not None
    if on_executor and suite != "simuhome":
        _fail(f"--executor/--address/--workers run the simuhome suite's episodes; --suite {suite} runs locally")
    if suite == "voice" or (
        suite == "simuhome" and resume and out is not None and spec_file is None and _is_voice_run(out)
    ):  # `--resume --out DIR` alone: the suite DIR holds
        from benchmark.suites.voice import voice_cli

        return voice_cli.run(
            Path(episodes) if episodes else None,
            agent,
            out,
            input_way=input_way,
            conditions=condition,
            asr=asr,
            seed=seed,
            voices=voices,
            noise="room",
            trials=trials,
            limit=limit,
            base_url=base_url,
            model=model,
            api_key_env=api_key_env,
            as_json=as_json,
            resume=resume,
            force=force,
            concurrency=concurrency,
            quiet=quiet,
        )
    if as_json and not dry_run:  # the voice suite and --dry-run print JSON here; a run's report: `bench report --json`
        _fail("--json is for --suite voice and --dry-run; for a run, then `homefabric bench report OUT --json`")
    several = _stored_conditions(out) if resume and spec_file is None and out is not None else None
    conditions = _parse_conditions(condition or (several[1] if several else None))
    from benchmark.suites.smh.run_marker import wants_smh

    if suite == "smh" or wants_smh(spec_file, out if resume else None):
        from benchmark.suites.smh import cli as smh_cli

        if on_executor:
            _fail("--executor/--address/--workers run the simuhome suite's episodes; an SMH run runs locally")
        return smh_cli.run_spec(
            _spec_from_flags(
                spec_file,
                smh_cli.overrides(
                    agent=agent,
                    episodes=episodes,
                    out=out,
                    setting=setting,
                    kinds=kinds,
                    budget=budget,
                    **{
                        "agent.max_steps": max_steps,
                        "agent.model.model": model,
                        "agent.model.base_url": base_url,
                        "agent.model.api_key_env": api_key_env,
                        "agent.model.timeout_s": timeout,
                        "agent.model.max_tokens": max_tokens,
                        "agent.model.seed": seed,
                        "agent.model.temperature": temperature,
                        "judge.kind": judge,
                        "judge.model.model": judge_model,
                        "judge.model.base_url": judge_base_url,
                        "judge.model.api_key_env": api_key_env if (judge_model or judge_base_url) else None,
                        "episodes.limit": limit,
                        "trials": trials,
                        "concurrency": concurrency,
                    },
                ),
                base=smh_cli.stored_spec(out) if resume and spec_file is None and out else None,
            ),
            resume=resume,
            quiet=quiet,
            force=force,
        )
    from benchmark.runs.runner import automation_tools_problem, select_episodes

    stored = (
        several[0] if several else (_stored_spec(out) if resume and spec_file is None and out is not None else None)
    )
    spec = _spec_from_flags(
        spec_file,
        {
            "agent.name": agent,
            "agent.max_steps": max_steps,
            "agent.model.model": model,
            "agent.model.base_url": base_url,
            "agent.model.api_key_env": api_key_env,
            "agent.replay_from": replay_from,
            "judge.model.model": judge_model,
            "judge.model.base_url": judge_base_url,
            "judge.model.api_key_env": api_key_env if (judge_model or judge_base_url) else None,
            "episodes.path": episodes,
            "episodes.kinds": kinds.split(",") if kinds else None,
            "episodes.limit": limit,
            "trials": trials,
            "concurrency": concurrency,
            "judge.kind": judge,
            "tools.profile": tools,
            "out": str(out) if out else None,
            "agent.model.timeout_s": timeout,
            "agent.model.max_tokens": max_tokens,
            "agent.model.seed": seed,
            "agent.model.temperature": temperature,
            "agent.options.mode": mode,
            "agent.options.tool_choice": tool_choice,
            "speech.input": input_way,
            "speech.asr": asr,
            "speech.condition": conditions[0].id if conditions else None,
            "speech.voices": voices if voices != "all" else None,
            "backend.matter_server": matter_server,
            "backend.mapping": mapping,
        },
        base=stored,
    )
    if dry_run:
        return _dry_run(spec, as_json)
    if not spec.out:
        _fail("no run directory: give --out (or out: in the spec)")
    from emulator.output_paths import output_dir_problem

    if problem := output_dir_problem(Path(spec.out), "--out"):
        _fail(problem)
    selected, skipped = select_episodes(spec)
    if not selected:
        _fail(f"no episodes selected from {spec.episodes.path}" + _selection_detail(spec, skipped))
    if problem := automation_tools_problem(spec.tools.profile, selected):
        _fail(problem)
    if on_executor and spec.backend is not None:
        _fail("--executor/--address/--workers run on emulated homes; a live Matter home (--matter-server) runs locally")
    with _opened_run_executor(spec, executor, address, workers) as units_on:
        if len(conditions) > 1:  # several acoustic conditions: one ordinary run each, under OUT/<condition>/
            if spec.agent.models or spec.speech is None or spec.speech.input == "text":
                _fail("several --condition values need --input asr or audio and one model")
            from benchmark.suites.voice.condition_runs import run_conditions

            summaries, text = run_conditions(
                spec, conditions, lambda sub: _run_one(sub, selected, skipped, resume, quiet, force, units_on)
            )
        elif spec.agent.models:  # several models: one ordinary run each, under OUT/<label>/
            from benchmark.reports.multi_model import MODELS_FILE, write_models_file, write_multi_report
            from benchmark.runs.spec import per_model

            if not resume and (Path(spec.out) / MODELS_FILE).exists():
                _fail(f"{spec.out} already holds a multi-model run; use --resume or a new --out")
            runs = per_model(spec, spec.out)
            write_models_file(Path(spec.out), spec, [label for label, _ in runs])
            summaries = [_run_one(sub, selected, skipped, resume, quiet, force, units_on) for _, sub in runs]
            _, text = write_multi_report(Path(spec.out), force=force)
        else:
            summaries = [_run_one(spec, selected, skipped, resume, quiet, force, units_on)]
            from benchmark.reports.report import write_report  # after the run: its episodes do not need it

            _, text = write_report(summaries[0].out, force=force)
    typer.echo(text)
    ran = sum(summary.ran for summary in summaries)
    infra = sum(summary.statuses.get("infra_error", 0) for summary in summaries)
    if ran and infra == ran:
        where = " and ".join(str(summary.out / "records.jsonl") for summary in summaries)
        _fail(
            f"all {infra} episode run(s) were infrastructure errors (model endpoint, home, harness); "
            f"see the error column of {where}",
            1,
        )
    if strict and infra:
        _fail(f"{infra} of {ran} episode run(s) were infrastructure errors (--strict)", 1)


@contextlib.contextmanager
def _opened_run_executor(spec: Any, name: str, address: str | None, workers: int | None) -> Iterator[Any]:
    """The executor of ``--executor``: None for the local one (the runner's own asyncio concurrency), else the
    opened executor (Ray), closed when the run ends; a bad choice or an unreachable cluster fails in one line."""
    if name == "local" and address is None and workers is None:
        yield None
        return
    from benchmark.execution.executor_choice import opened_executor
    from benchmark.execution.executors import ExecutorError
    from benchmark.runs.unit_runs import forwarded_environment

    with contextlib.ExitStack() as stack:
        try:
            opened = stack.enter_context(
                opened_executor(name, address=address, workers=workers, environment=forwarded_environment(spec))
            )
        except ExecutorError as error:
            _fail(str(error))
        yield opened


@bench_app.command("migrate-spec")
def bench_migrate_spec(
    simuhome_spec: Annotated[Path, typer.Argument(help="SimuHome's eval spec (YAML, simuhome-eval-spec-v1).")],
) -> None:
    """Print the homefabric run spec equivalent to a SimuHome eval spec (what has no counterpart as comments):
    `homefabric bench migrate-spec eval_spec.yaml > run.yaml`, then `homefabric bench run run.yaml`."""
    import yaml

    from benchmark.runs.simuhome_spec import SimuHomeSpecError, migrate
    from benchmark.runs.spec import SpecError, parse_spec

    try:
        data = yaml.safe_load(simuhome_spec.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        _fail(f"{simuhome_spec}: cannot read the file: {error}")
    except yaml.YAMLError as error:
        _fail(f"{simuhome_spec}: invalid YAML: {' '.join(str(error).split())}")
    try:
        migration = migrate(data)
        parse_spec(migration.spec, f"{simuhome_spec} (migrated)")  # what it writes, bench run reads
    except (SimuHomeSpecError, SpecError) as error:
        _fail(f"{simuhome_spec}: {' '.join(str(error).split())}")
    typer.echo(migration.text(str(simuhome_spec)), nl=False)


def _dry_run(spec: Any, as_json: bool) -> None:
    """`bench run --dry-run` on a live home: which selected episodes it can start, and why not the others."""
    from agent_tools.matter_backend import MappingError, MatterServerError
    from benchmark.runs.live_home import LiveHome, dry_run
    from benchmark.runs.runner import select_episodes

    if spec.backend is None:
        _fail("--dry-run checks episodes against a live home: give --matter-server ws://HOST:5580/ws")
    selected, skipped = select_episodes(spec)
    if not selected:
        _fail(f"no episodes selected from {spec.episodes.path}" + _selection_detail(spec, skipped))
    live = LiveHome(spec.backend.matter_server, spec.backend.mapping)
    try:
        rows = dry_run(live, selected)
    except (MappingError, MatterServerError) as error:
        _fail(str(error))
    finally:
        live.close()
    runnable = sum(1 for row in rows if row["runnable"])
    if as_json:
        print(
            json.dumps(
                {"runnable": runnable, "not_runnable": len(rows) - runnable, "episodes": rows},
                indent=2,
                ensure_ascii=False,
            )
        )
        return
    from rich.table import Table

    table = Table(title=f"{runnable} of {len(rows)} episodes runnable on {spec.backend.matter_server}")
    for column in ("episode", "runnable", "to set first / why not"):
        table.add_column(column)
    for row in rows:
        detail = (
            row["reason"]
            if not row["runnable"]
            else (", ".join(f"{a['device_id']} {a['path']}={a['value']!r}" for a in row["actions"]) or "-")
        )
        table.add_row(row["episode_id"], "yes" if row["runnable"] else "no", detail)
    _console().print(table)


def _parse_conditions(values: list[str] | None) -> tuple[Any, ...]:
    """``--condition`` values (repeated, comma lists or grid) → conditions; none given → ()."""
    from benchmark.suites.voice.conditions import ConditionError, parse_conditions

    try:
        return parse_conditions(",".join(values)) if values else ()
    except ConditionError as error:
        _fail(str(error))
        raise


def _run_one(
    spec: Any, selected: list[Any], skipped: list[Any], resume: bool, quiet: bool, force: bool, executor: Any = None
) -> Any:
    from benchmark.execution.executors import ExecutorError
    from benchmark.runs.runner import Runner, freeze_long_lived
    from benchmark.runs.store import RunError, RunFileError

    freeze_long_lived()
    try:
        summary = asyncio.run(
            Runner(spec, spec.out, resume=resume, progress=not quiet, force=force, executor=executor).run(
                selected, skipped
            )
        )
    except (RunError, RunFileError, ExecutorError) as error:
        _fail(str(error))
    except ValueError as error:  # e.g. an api_key_env that is not set
        _fail(str(error))
    for problem in summary.skipped_episode_files:
        _err_console().print(f"[yellow]skipped[/] {problem}", highlight=False)
    for dropped in summary.dropped:
        where = f"{dropped['episode_id']} trial {dropped['trial']}: " if "episode_id" in dropped else ""
        _err_console().print(
            f"[yellow]dropped[/] records.jsonl line {dropped['line']}: {where}{dropped['reason']}", highlight=False
        )
    _console().print(f"ran {summary.ran} episode run(s), kept {summary.kept} from before; records in {summary.out}")
    return summary


def _stored_spec(out: Path) -> dict[str, Any] | None:
    """`bench run --resume --out DIR` alone: the spec the run was started with, from its manifest."""
    manifest = out / "models.json" if (out / "models.json").is_file() else out / "manifest.json"
    if not manifest.is_file():
        return None
    try:
        spec = json.loads(manifest.read_text(encoding="utf-8")).get("spec")
    except (OSError, ValueError, AttributeError) as error:
        _fail(f"{manifest}: cannot read the run's spec ({error}); give the spec file")
    return spec if isinstance(spec, dict) else None


def _selection_detail(spec: Any, skipped: list[Any]) -> str:
    """Why a selection is empty: the unreadable files, or the filters that matched nothing."""
    if skipped:
        shown = "; ".join(str(p) for p in skipped[:3])
        more = f" (and {len(skipped) - 3} more)" if len(skipped) > 3 else ""
        return f": {shown}{more}"
    filters = [
        f"{name}={value}" for name, value in (("kinds", spec.episodes.kinds), ("ids", spec.episodes.ids)) if value
    ]
    return f": no episode matches {', '.join(filters)}" if filters else ": the directory holds no episode files"


@bench_app.command("report")
def bench_report(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    plots: Annotated[bool, typer.Option("--plots/--no-plots", help="Write PNG plots into the run dir.")] = True,
    force: Annotated[bool, typer.Option("--force", help="Report even without the run's manifest.")] = False,
) -> None:
    """Tables per query type × feasibility, overall, pass^k, tokens, error taxonomy; report.json and PNGs."""
    from benchmark.suites.smh.run_marker import is_smh_run

    if is_smh_run(run_dir):  # SMH runs: category/tier × setting, subcategories, error taxonomy
        from benchmark.suites.smh import cli as smh_cli

        return smh_cli.report([run_dir], as_json, plots)
    from benchmark.suites.voice import voice_cli
    from benchmark.suites.voice.voice_runner import is_voice_run

    if is_voice_run(run_dir):  # voice suite: per condition and task type, acts, WER
        return voice_cli.report(run_dir, as_json)
    from benchmark.reports.multi_model import is_multi_model, write_multi_report
    from benchmark.reports.report import write_report
    from benchmark.runs.store import RunFileError

    multi = is_multi_model(run_dir)
    if not multi and not (run_dir / "records.jsonl").exists():
        _fail(f"{run_dir} holds no records.jsonl")
    try:
        report, text = (write_multi_report if multi else write_report)(run_dir, plots=plots, force=force)
    except (RunFileError, ValueError) as error:
        _fail(str(error))
    if as_json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        typer.echo(text)


@bench_app.command("compare")
def bench_compare(
    run_dirs: Annotated[list[Path], typer.Argument(help="Two or more run directories.")],
    out: Annotated[Path | None, typer.Option("--out", help="Write compare.json and compare.png here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Runs side by side: success with 95% bootstrap CIs per kind and overall, as a table, JSON and a plot."""
    from benchmark.reports.compare import compare_runs, render_comparison, write_comparison
    from benchmark.reports.multi_model import expand_run_dirs

    try:
        run_dirs = expand_run_dirs(run_dirs)  # a multi-model run counts as its per-model runs
    except ValueError as error:
        _fail(str(error))
    if len(run_dirs) < 2:
        _fail("give at least two run directories to compare")
    for run_dir in run_dirs:
        if not (run_dir / "records.jsonl").is_file():
            _fail(f"{run_dir} holds no records.jsonl (not a run directory)")
    comparison = compare_runs(run_dirs)
    if as_json:
        print(json.dumps(comparison, ensure_ascii=False))
    else:
        typer.echo(render_comparison(comparison))
    if out is not None:
        for path in write_comparison(comparison, out):
            _err_console().print(f"wrote {path}")


@bench_app.command("evaluate")
def bench_evaluate(
    run_dir: Annotated[Path, typer.Argument(help="A run directory to re-score.")],
    out: Annotated[
        Path | None, typer.Option("--out", help="Where the re-scored run goes (default: RUN/evaluated).")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Re-score a run's stored trajectories with the current evaluator: each recorded tool call is replayed on a
    fresh fabric (the replay agent), judged as the run was, and the verdicts that changed are listed."""
    from benchmark.reports.report import write_report
    from benchmark.runs.runner import Runner, read_records, select_episodes
    from benchmark.runs.store import RunError
    from emulator.output_paths import output_dir_problem

    stored = _stored_spec(run_dir)
    if stored is None or not (run_dir / "records.jsonl").is_file():
        _fail(f"{run_dir} is not a run directory (no manifest.json with a spec, or no records.jsonl)")
    target = out or run_dir / "evaluated"
    if problem := output_dir_problem(target, "--out"):
        _fail(problem)
    original, _ = read_records(run_dir / "records.jsonl")
    trials = max((int(r.get("trial", 0)) + 1 for r in original), default=1)
    spec = _spec_from_flags(
        None,
        {"agent": {"name": "replay", "replay_from": str(run_dir)}, "out": str(target), "trials": trials},
        base=stored,
    )
    selected, skipped = select_episodes(spec)
    if not selected:
        _fail(f"no episodes of {run_dir} found under {spec.episodes.path}" + _selection_detail(spec, skipped))
    try:
        summary = asyncio.run(Runner(spec, target, progress=not quiet).run(selected, skipped))
    except RunError as error:
        _fail(str(error))
    rescored, _ = read_records(target / "records.jsonl")
    before = {(r["episode_id"], int(r.get("trial", 0))): r.get("status") for r in original}
    changed = [
        (
            r["episode_id"],
            int(r.get("trial", 0)),
            before.get((r["episode_id"], int(r.get("trial", 0)))),
            r.get("status"),
        )
        for r in rescored
        if before.get((r["episode_id"], int(r.get("trial", 0)))) not in (None, r.get("status"))
    ]
    _, text = write_report(summary.out)
    typer.echo(text)
    typer.echo(f"re-scored {len(rescored)} run(s) into {target}; {len(changed)} verdict(s) changed")
    for episode_id, trial, old, new in changed:
        typer.echo(f"  {episode_id} #{trial}: {old} → {new}")


# --- episodes generate (every suite) ------------------------------------------------------------------------


def generate_command(
    out: Annotated[Path, typer.Option("--out", help="Directory to write the episode files to.")],
    qt: Annotated[
        str,
        typer.Option(
            "--qt",
            help="all, query types (qt1,qt4-2), kinds (qt3_feasible), or home-systems (automations on buttons, "
            "leak sensors and the main valve, solar energy, EV charging; not in all) or one of its templates "
            "(hs_button_light, hs_solar_energy, …); voice: all, spatial, temporal, clarify or home_systems.",
        ),
    ] = "all",
    per_type: Annotated[int, typer.Option("--per-type", help="Episodes per query type and case.")] = 50,
    seed: Annotated[int, typer.Option("--seed", help="Run seed; episode n gets seed·1000 + n.")] = 1,
    paraphrase: Annotated[bool, typer.Option("--paraphrase", help="Paraphrase queries with an LLM (checked).")] = False,
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="Paraphrase model name.")] = None,
    api_key_env: Annotated[str, typer.Option("--api-key-env", help="Env var holding the API key.")] = "OPENAI_API_KEY",
    typo_rate: Annotated[
        float,
        typer.Option(
            "--typo-rate",
            help="Chance of a typo (swapped or dropped letter) per "
            "word outside device/room/value slots, as typed requests have; 0 "
            "turns typos off.",
        ),
    ] = 0.02,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="A progress bar on stderr.")] = True,
    allow_template_fallback: Annotated[
        bool,
        typer.Option(
            "--allow-template-fallback",
            help="Keep template queries where paraphrasing failed (endpoint down, errors) instead of failing.",
        ),
    ] = False,
    suite: Annotated[
        str,
        typer.Option(
            "--suite", help="simuhome (12 kinds), smh (SMH-Bench, 22 subcategories) or voice (spoken dialogues)."
        ),
    ] = "simuhome",
    per_subcategory: Annotated[
        str | None,
        typer.Option(
            "--per-subcategory", help="smh: simple,medium,complex instances per subcategory (default 25,15,10)."
        ),
    ] = None,
    home: Annotated[
        Path | None,
        typer.Option(
            "--home",
            help="Generate every episode on this home file (e.g. the "
            "twin of a live Matter home: homefabric home twin) instead of "
            "generated homes.",
        ),
    ] = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    workers: WorkersOption = None,
    resume: Annotated[bool, typer.Option("--resume", help="ray: keep the units whose files are all in --out.")] = False,
    with_water: Annotated[
        bool,
        typer.Option(
            "--with-water", help="smh: a main water valve and leak sensors in every home, and their templates."
        ),
    ] = False,
) -> None:
    """Generate seeded episodes of all 12 kinds in SimuHome's file format (or the SMH suite: --suite smh)."""
    if suite not in ("simuhome", "smh", "voice"):
        typer.echo(f"error: --suite {suite!r} is not known; allowed: simuhome, smh, voice", err=True)
        raise typer.Exit(2)
    if home is not None and suite != "simuhome":
        typer.echo(f"error: --home works with --suite simuhome, not {suite}", err=True)
        raise typer.Exit(2)
    if with_water and suite != "smh":
        typer.echo(f"error: --with-water works with --suite smh, not {suite}", err=True)
        raise typer.Exit(2)
    if executor != "local" or resume or address is not None or workers is not None:
        if suite != "simuhome" or paraphrase or home is not None:
            typer.echo(
                "error: --executor ray/--resume generate simuhome episodes without --paraphrase or --home", err=True
            )
            raise typer.Exit(2)
        from benchmark.training.episode_cli import generate_with_executor

        return generate_with_executor(
            out,
            qt,
            per_type,
            seed,
            typo_rate,
            executor=executor,
            address=address,
            workers=workers,
            resume=resume,
            progress=progress,
        )
    if suite == "voice":  # spatial, temporal and clarify dialogues; --qt picks task types
        from benchmark.suites.voice import voice_cli

        return voice_cli.generate(out, seed, per_type, "all" if qt == "all" else qt)
    if suite == "smh":
        from benchmark.suites.smh import cli as smh_cli

        return smh_cli.generate(
            out,
            seed,
            per_subcategory,
            paraphrase=paraphrase,
            base_url=base_url,
            model=model,
            api_key_env=api_key_env,
            water=with_water,
        )
    from benchmark.generation.generate import GeneratorInputError, generate_episodes, parse_kinds, write_episodes
    from emulator.output_paths import output_dir_problem

    started = time.perf_counter()
    if problem := output_dir_problem(out, "--out"):
        typer.echo(f"error: {problem}", err=True)
        raise typer.Exit(2)
    pinned: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    if home is not None:
        from benchmark.generation.homes import pinned_home
        from emulator.home_config import HomeConfigError, load_home

        try:
            pinned = pinned_home(load_home(home))
        except (HomeConfigError, OSError) as error:
            typer.echo(f"error: --home {home}: {error}", err=True)
            raise typer.Exit(2) from None
    try:
        parse_kinds(qt)
        from benchmark.runs.progress import WorkProgress

        bar = WorkProgress("generating episodes", len(parse_kinds(qt)) * per_type, enabled=progress, transient=True)
        with pinned, bar:
            episodes = generate_episodes(qt, per_type, seed, typo_rate=typo_rate, on_episode=lambda _: bar.advance())
    except GeneratorInputError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None
    if paraphrase:
        if not base_url or not model:
            typer.echo("error: --paraphrase needs --base-url and --model", err=True)
            raise typer.Exit(2)
        from benchmark.generation.paraphrase_run import ParaphraseFailed, paraphrase_or_fail

        try:
            summary = asyncio.run(
                paraphrase_or_fail(
                    episodes,
                    base_url=base_url,
                    model=model,
                    api_key=os.environ.get(api_key_env),
                    allow_template_fallback=allow_template_fallback,
                )
            )
        except ParaphraseFailed as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(error.exit_code) from None
        typer.echo(summary)
    paths = write_episodes(episodes, out)
    typer.echo(f"wrote {len(paths)} episodes to {out} in {time.perf_counter() - started:.1f} s (wall time)")
