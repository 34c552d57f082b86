"""Episodes → spoken turns: each user turn rendered in the episode's seeded voice under each condition.

Every rendered turn carries its transcript, voice, accent, rate, condition, the noise used and the sha256
of its WAV bytes; the same seed gives byte-identical files. ``render_to_dir`` writes
``<out>/<episode_id>/turn<k>_<condition>.wav`` and ``<out>/manifest.json``.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from benchmark.execution.executors import Executor, LocalExecutor, WorkUnit
from benchmark.execution.unit_outputs import UnitOutputs
from benchmark.suites.voice import noise as sources
from benchmark.suites.voice.acoustics import Surroundings, apply_condition, noise_kind_for
from benchmark.suites.voice.conditions import Condition
from benchmark.suites.voice.tts import synthesize
from benchmark.suites.voice.voices import RATES, VOICES, Voice, choose_speaker, seeded_rng
from benchmark.suites.voice.wav import SAMPLE_RATE, encode_wav, sha256
from emulator.files import write_atomically

MANIFEST_SCHEMA = "homefabric-speech-render/1"
TV_VOICE = VOICES["gb-m1"]  # the broadcaster: one fixed voice, distinct from most talkers


class RenderedTurn(BaseModel):
    episode_id: str
    turn: int
    transcript: str
    voice: str
    accent: str
    rate: int
    condition: str
    noise: str | None  # the noise kind actually mixed in (None when clean)
    room_id: str
    file: str | None = None  # relative to the render directory, once written
    sample_rate: int = SAMPLE_RATE
    duration_s: float
    sha256: str


def user_turns(episode: Any) -> list[str]:
    """The texts the user says: a dialogue's ``user_turns`` when the episode has them, else its query."""
    turns = getattr(episode, "user_turns", None)
    if turns is None and hasattr(episode, "model_extra"):
        turns = (episode.model_extra or {}).get("user_turns")
    return [str(t) for t in turns] if turns else [str(episode.query)]


@lru_cache(maxsize=96)  # ~5 s turns as float64: tens of MB at most; babble lines hit it most
def speech(text: str, voice_id: str, rate: int) -> np.ndarray:
    audio = synthesize(text, VOICES[voice_id], rate)
    audio.setflags(write=False)  # shared by the cache
    return audio


def _room_tv(home_config: dict[str, Any], room_id: str) -> tuple[bool, str | None]:
    room = (home_config.get("rooms") or {}).get(room_id) or {}
    for device in room.get("devices") or []:
        if isinstance(device, dict) and device.get("device_type") == "tv":
            attributes = device.get("attributes") or {}
            channels = attributes.get("1.Channel.ChannelList") or []
            name = channels[0].get("Name") if channels and isinstance(channels[0], dict) else None
            return bool(attributes.get("1.OnOff.OnOff")), name
    return False, None


def surroundings_for(episode: Any, seed: int, speaker: Voice) -> Surroundings:
    room_id = str(getattr(episode, "user_location", "") or "")
    tv_on, channel = _room_tv(getattr(episode, "initial_home_config", {}) or {}, room_id)
    programme = None
    if tv_on:
        opening = f"you are watching {channel}. " if channel else ""
        programme = np.concatenate([speech(opening + line, TV_VOICE.id, 170) for line in sources.TV_LINES])
    rng = seeded_rng("babble", seed, getattr(episode, "episode_id", ""))
    others = [v for v in VOICES.values() if v.id != speaker.id]
    talkers = tuple(
        speech(line, rng.choice(others).id, rng.choice(RATES)) for line in rng.sample(sources.BABBLE_LINES, 3)
    )
    return Surroundings(room_id=room_id, tv_on=tv_on, tv_programme=programme, babble_talkers=talkers)


def numpy_rng(*parts: object) -> np.random.Generator:
    return np.random.default_rng(seeded_rng(*parts).getrandbits(64))


def render_turn(
    text: str,
    *,
    episode_id: str,
    turn: int,
    speaker: Voice,
    rate: int,
    condition: Condition,
    noise_kind: str,
    surroundings: Surroundings,
    seed: int,
) -> tuple[RenderedTurn, bytes]:
    rng = numpy_rng("condition", seed, episode_id, turn, condition.id)
    room_rng = numpy_rng("room", seed, episode_id, turn)
    audio = apply_condition(speech(text, speaker.id, rate), condition, noise_kind, surroundings, rng, room_rng)
    data = encode_wav(audio)
    return RenderedTurn(
        episode_id=episode_id,
        turn=turn,
        transcript=text,
        voice=speaker.id,
        accent=speaker.accent,
        rate=rate,
        condition=condition.id,
        room_id=surroundings.room_id,
        noise=None if condition.snr_db is None else noise_kind_for(noise_kind, surroundings),
        duration_s=round(audio.size / SAMPLE_RATE, 4),
        sha256=sha256(data),
    ), data


def render_episode(
    episode: Any,
    *,
    seed: int,
    conditions: Sequence[Condition],
    noise_kind: str = "room",
    pool: Sequence[Voice] = tuple(VOICES.values()),
) -> list[tuple[RenderedTurn, bytes]]:
    episode_id = str(episode.episode_id)
    speaker, rate = choose_speaker(seed, episode_id, tuple(pool))
    surroundings = surroundings_for(episode, seed, speaker)
    return [
        render_turn(
            text,
            episode_id=episode_id,
            turn=index,
            speaker=speaker,
            rate=rate,
            condition=condition,
            noise_kind=noise_kind,
            surroundings=surroundings,
            seed=seed,
        )
        for index, text in enumerate(user_turns(episode))
        for condition in conditions
    ]


def _write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


RenderFunction = Callable[..., list[tuple[RenderedTurn, bytes]]]  # one episode's turns (module-level: Ray pickles it)
UNFINISHED = ".render"  # a render in progress: its parameters and each rendered episode's turns (see render_to_dir)
RENDER_STATE_SCHEMA = "homefabric-speech-render-state/1"  # OUT/.render/render.json


class RenderResumeError(RuntimeError):
    """``--resume`` cannot continue the render in this directory: names why and what to do."""


def _render_parameters(
    seed: int, conditions: Sequence[Condition], noise_kind: str, pool: Sequence[Voice]
) -> dict[str, Any]:
    """What a render was made with, as its manifest and its unfinished state both record it."""
    return {"seed": seed, "noise": noise_kind, "conditions": [c.id for c in conditions], "voices": [v.id for v in pool]}


def _render_state(episodes: Sequence[Any], parameters: dict[str, Any]) -> str:
    """OUT/.render/render.json of a render of ``episodes`` with ``parameters``."""
    episode_ids = [str(e.episode_id) for e in episodes]
    return json.dumps({"schema": RENDER_STATE_SCHEMA, **parameters, "episodes": episode_ids}, indent=2) + "\n"


def resume_refusal(
    episodes: Sequence[Any],
    out: Path,
    *,
    seed: int,
    conditions: Sequence[Condition],
    noise_kind: str = "room",
    pool: Sequence[Voice] = tuple(VOICES.values()),
) -> str | None:
    """Why ``--resume`` cannot continue a render of ``episodes`` in ``out`` (None: it can), checked before any
    work starts (no cluster, no progress line)."""
    earlier = _unfinished(out).earlier_state()
    if earlier is None:
        return f"--resume: {out} holds no unfinished render ({UNFINISHED}/render.json); render without --resume"
    if earlier != _render_state(episodes, _render_parameters(seed, conditions, noise_kind, pool)):
        return (
            f"--resume: {out} was rendered with other episodes, seed, conditions, noise or voices; "
            "give the same ones or a new --out"
        )
    return None


def _unfinished(out: Path) -> UnitOutputs:
    """OUT/.render/: each rendered episode's turns (one unit an episode) and what the render was made with."""
    return UnitOutputs(out / UNFINISHED, out / UNFINISHED / "render.json")


def render_unit(shared: dict[str, Any], unit: WorkUnit) -> list[tuple[RenderedTurn, bytes]]:
    """The turns of one episode (the unit's ``first``-th), rendered (a task: runs in any process)."""
    episode = shared["episodes"][unit.first]
    render: RenderFunction = shared["render"]
    return render(
        episode, seed=shared["seed"], conditions=shared["conditions"], noise_kind=shared["noise"], pool=shared["pool"]
    )


def render_to_dir(
    episodes: Sequence[Any],
    out: Path,
    *,
    seed: int,
    conditions: Sequence[Condition],
    noise_kind: str = "room",
    pool: Sequence[Voice] = tuple(VOICES.values()),
    on_episode: Callable[[str, int], None] | None = None,
    render: RenderFunction = render_episode,
    executor: Executor | None = None,
    resume: bool = False,
) -> list[RenderedTurn]:
    """Render and write every episode (``render``: how one episode's turns are rendered); the manifest lists
    each turn (written last, atomically).

    Each episode is a unit of work run by ``executor`` (``benchmark.execution.executors``: here one after another
    by default, or Ray tasks) and written by this driver in episode order, so the files are the same bytes
    whatever the executor. While the render runs, ``OUT/.render/`` holds its parameters and each written
    episode's turns; it is removed once the manifest is written. ``resume`` continues a killed render from there:
    the episodes written are kept, the rest rendered."""
    unfinished = _unfinished(out)
    parameters = _render_parameters(seed, conditions, noise_kind, pool)
    if resume:
        if refusal := resume_refusal(episodes, out, seed=seed, conditions=conditions, noise_kind=noise_kind, pool=pool):
            raise RenderResumeError(refusal)
    else:
        unfinished.begin(_render_state(episodes, parameters))
    units = [WorkUnit(index, str(episode.episode_id), index, 1) for index, episode in enumerate(episodes)]
    done: dict[int, list[RenderedTurn]] = {}
    for number in sorted(unfinished.kept(units) if resume else ()):
        done[number] = [RenderedTurn.model_validate(t) for t in json.loads(unfinished.read(units[number]))]
        if on_episode is not None:
            on_episode(units[number].kind, len(done[number]))
    shared = {"episodes": list(episodes), "render": render, "seed": seed, "conditions": list(conditions)}
    shared |= {"noise": noise_kind, "pool": list(pool)}
    todo = [unit for unit in units if unit.number not in done]
    for unit, rendered in (executor or LocalExecutor()).map(render_unit, shared, todo):
        turns = []
        for turn, data in rendered:
            relative = f"{turn.episode_id}/turn{turn.turn}_{turn.condition}.wav"
            _write_bytes(out / relative, data)
            turns.append(turn.model_copy(update={"file": relative}))
        unfinished.write(unit, json.dumps([t.model_dump(mode="json") for t in turns]))
        done[unit.number] = turns
        if on_episode is not None:
            on_episode(unit.kind, len(rendered))
    all_turns = [turn for unit in units for turn in done[unit.number]]
    manifest = {"schema": MANIFEST_SCHEMA, **parameters, "turns": [t.model_dump(mode="json") for t in all_turns]}
    write_atomically(out / "manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    shutil.rmtree(unfinished.directory)
    return all_turns
