"""``homefabric speech …``: render episodes to spoken turns, say a sentence in a voice, list the voices."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from benchmark.execution.executor_options import AddressOption, ExecutorOption, WorkersOption

if TYPE_CHECKING:
    from rich.console import Console

# Every command imports what it needs inside itself: homefabric_cli mounts this app on every start (`--help`
# too), and the speech stack costs 0.8 s CPU to import (measured; tests/test_cli_startup.py keeps it out).
speech_app = typer.Typer(help="Spoken episodes: offline TTS, acoustic conditions, voices.", no_args_is_help=True)


@cache
def _console() -> Console:  # made when a command first prints: rich is not loaded on every start
    from rich.console import Console

    return Console()


@cache
def _err_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, soft_wrap=True)


def _fail(message: str, code: int = 2) -> NoReturn:
    _err_console().print(f"[bold red]error:[/] {message}", soft_wrap=True, highlight=False)
    raise typer.Exit(code)


@speech_app.command("voices")
def speech_voices() -> None:
    """The voice pool: id, accent, gender (rates: 140, 160, 180 words per minute)."""
    from benchmark.suites.voice.voices import VOICES

    for voice in VOICES.values():
        _console().print(f"{voice.id:12} {voice.accent:16} {voice.gender}", highlight=False)


@speech_app.command("render")
def speech_render(
    episodes: Annotated[Path, typer.Argument(help="An episode directory or file.")],
    out: Annotated[Path, typer.Option("--out", help="Directory for the WAV files and manifest.json.")],
    voices: Annotated[
        str, typer.Option("--voices", help="all, or a comma list of voice ids (homefabric speech voices).")
    ] = "all",
    conditions: Annotated[
        str,
        typer.Option(
            "--conditions", help="grid (clean/20/10/5/0 dB × dry/reverb) or a comma list such as clean-dry,10db-reverb."
        ),
    ] = "clean-dry",
    noise: Annotated[
        str, typer.Option("--noise", help="room (the TV if on, else babble), white, pink, babble, hum or tv.")
    ] = "room",
    seed: Annotated[int, typer.Option("--seed", help="Chooses voices, rates, noise, talker positions.")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    workers: WorkersOption = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue a killed render in --out (the same episodes and options).")
    ] = False,
) -> None:
    """Render every user turn of the episodes to 16 kHz mono WAV under each condition (same seed → same bytes)."""
    from benchmark.execution.executor_choice import opened_executor
    from benchmark.execution.executors import ExecutorError, described
    from benchmark.suites.simuhome.episode import load_episodes
    from benchmark.suites.voice.conditions import NOISE_CHOICES, ConditionError, parse_conditions
    from benchmark.suites.voice.render import RenderResumeError, render_episode, render_to_dir, resume_refusal
    from benchmark.suites.voice.tts import TTSError, espeak_path
    from benchmark.suites.voice.voices import VoiceError, parse_voices
    from emulator.output_paths import output_dir_problem

    try:
        pool, grid = parse_voices(voices), parse_conditions(conditions)
    except (VoiceError, ConditionError) as error:
        _fail(str(error))
    if noise not in NOISE_CHOICES:
        _fail(f"unknown noise {noise!r}; allowed: {', '.join(NOISE_CHOICES)}")
    if problem := output_dir_problem(out, "--out"):
        _fail(problem)
    if not episodes.exists():
        _fail(f"{episodes}: no such file or directory (give an episode directory or file)")
    try:
        espeak_path()
    except TTSError as error:
        _fail(str(error), 1)
    from benchmark.suites.voice.voice_episode import VoiceEpisodeError, is_voice_episode_file, load_voice_episodes

    render = render_episode
    loaded: list[Any]  # voice episodes or text episodes, each rendered by its own renderer
    problems: list[Any]
    if any(is_voice_episode_file(p) for p in ([episodes] if episodes.is_file() else episodes.glob("*.json"))):
        from benchmark.suites.voice.voice_hearing import render_voice_episode  # each turn in the room it is said in

        try:
            loaded, problems, render = load_voice_episodes(episodes), [], render_voice_episode
        except VoiceEpisodeError as error:
            _fail(str(error))
    else:
        loaded, problems = load_episodes(episodes)
    for skipped in problems:
        _err_console().print(f"[yellow]skipped[/] {skipped}", highlight=False)
    if not loaded:
        _fail(f"{episodes}: no runnable episode to render", 1)
    if resume and (refusal := resume_refusal(loaded, out, seed=seed, conditions=grid, noise_kind=noise, pool=pool)):
        _fail(refusal)
    from benchmark.runs.progress import WorkProgress

    try:
        with (
            opened_executor(executor, address=address, workers=workers) as runner,
            WorkProgress("rendering", len(loaded), where=described(runner), enabled=not quiet) as progress,
        ):
            turns = render_to_dir(
                loaded,
                out,
                seed=seed,
                conditions=grid,
                noise_kind=noise,
                pool=pool,
                render=render,
                on_episode=lambda episode_id, _n: progress.advance(detail=episode_id),
                executor=runner,
                resume=resume,
            )
    except (ExecutorError, RenderResumeError) as error:
        _fail(str(error))
    except TTSError as error:
        _fail(str(error), 1)
    audio_s = sum(t.duration_s for t in turns)
    _console().print(
        f"rendered {len(turns)} turn(s) of {len(loaded)} episode(s), {audio_s:.1f} s of audio, "
        f"{len(grid)} condition(s); manifest {out / 'manifest.json'}",
        highlight=False,
    )


@speech_app.command("say")
def speech_say(
    text: Annotated[str, typer.Argument(help="What to say.")],
    voice: Annotated[str, typer.Option("--voice", help="A voice id (homefabric speech voices).")] = "us-m1",
    rate: Annotated[int, typer.Option("--rate", help="Words per minute, 80-300.")] = 160,
    condition: Annotated[str, typer.Option("--condition", help="e.g. clean-dry, 10db-reverb.")] = "clean-dry",
    room: Annotated[str, typer.Option("--room", help="Room whose size sets the reverberation.")] = "living_room",
    out: Annotated[Path, typer.Option("--out", help="WAV file to write.")] = Path("say.wav"),
) -> None:
    """Say one sentence in a voice (16 kHz mono WAV) to hear how it sounds."""
    import numpy as np

    from benchmark.suites.voice.acoustics import Surroundings, apply_condition
    from benchmark.suites.voice.conditions import Condition, ConditionError
    from benchmark.suites.voice.render import speech
    from benchmark.suites.voice.tts import TTSError
    from benchmark.suites.voice.voices import VoiceError, parse_voices
    from benchmark.suites.voice.wav import encode_wav
    from emulator.output_paths import output_file_problem

    try:
        pool, parsed = parse_voices(voice), Condition.parse(condition)
    except (VoiceError, ConditionError) as error:
        _fail(str(error))
    if len(pool) != 1:
        _fail(f"--voice takes one voice id, got {voice!r}; see homefabric speech voices")
    chosen = pool[0]
    if not 80 <= rate <= 300:
        _fail(f"--rate {rate} is out of range; allowed: 80 to 300 words per minute")
    if not text.strip():
        _fail("nothing to say: give a non-empty text")
    if problem := output_file_problem(out, "--out"):
        _fail(problem)
    try:
        audio = np.asarray(speech(text, chosen.id, rate))
    except TTSError as error:
        _fail(str(error), 1)
    if parsed.snr_db is not None or parsed.reverberant:
        babble = tuple(np.asarray(speech(line, "gb-f1", 160)) for line in ("did you buy milk", "the train is late"))
        audio = apply_condition(
            audio, parsed, "babble", Surroundings(room_id=room, babble_talkers=babble), np.random.default_rng(0)
        )
    data = encode_wav(audio)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_bytes(data)
    tmp.replace(out)
    _console().print(
        f"wrote {out}: {audio.size / 16000:.2f} s, voice {chosen.id} ({chosen.accent}), {rate} wpm, {parsed.id}",
        highlight=False,
    )


@speech_app.command("report")
def speech_report(
    run_dirs: Annotated[
        list[Path], typer.Argument(help="Run directories (text, --input asr, --input audio; any conditions).")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    plots: Annotated[Path | None, typer.Option("--plots", help="Write PNG plots into this directory.")] = None,
) -> None:
    """Success side by side per way in and condition, WER per condition, success against WER, per query type."""
    import json

    from benchmark.suites.voice.report import (
        VoiceReportError,
        build_voice_report,
        load_runs,
        render_voice_tables,
        write_voice_plots,
    )

    try:
        records = load_runs(run_dirs)
    except VoiceReportError as error:
        _fail(str(error))
    if not records:
        _fail("the runs hold no records", 1)
    report = build_voice_report(records)
    if plots is not None:
        report["plots"] = [str(p) for p in write_voice_plots(report, plots)]
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        _console().print(render_voice_tables(report), markup=False, highlight=False)
