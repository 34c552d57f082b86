"""The voice suite's episode: a spoken multi-turn dialogue in a home whose devices and user have places.

One file per episode (``voice_<task>_seed_<n>.json``, format ``homefabric-voice-episode/1``)::

    home        our home format, with extensions.placement (emulator.placement)
    setup       tool calls the world makes before the user speaks (e.g. the washer is started)
    turns       what the user says, where they stand, and what the assistant should do:
                act "execute" (gold: the tool calls that do it) or act "clarify" (the assistant must ask;
                ``reply`` is the user's spoken answer, then ``gold`` carries out the clarified request)
    events      what happens later in virtual time (the user leaves a room: its occupancy sensor clears)
    checks      attribute values that must hold at a virtual time (seconds after the dialogue starts)
    preserve    values that must be unchanged at the end (the devices the user did *not* mean)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from emulator.files import write_atomically
from emulator.home_config import HomeConfig, validation_problems
from emulator.placement import UserPosition

VOICE_FORMAT: Final = "homefabric-voice-episode/1"
TASK_TYPES = ("spatial", "temporal", "clarify")  # "all"
OPT_IN_TASK_TYPES = ("home_systems",)  # generated only when named: "all" stays the three above, byte for byte
TaskType = Literal["spatial", "temporal", "clarify", "home_systems"]
Act = Literal["execute", "clarify"]
MUTATING_TOOLS = frozenset(
    {
        "execute_command",
        "write_attribute",
        "schedule_workflow",
        "cancel_workflow",
        "create_automation",
        "delete_automation",
    }
)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolCall(_Model):
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class VoiceTurn(_Model):
    text: str = Field(min_length=1)
    position: UserPosition  # where the user stands while saying it
    act: Act
    question: str | None = None  # clarify: what a good assistant asks (the oracle asks it)
    reply: str | None = None  # clarify: the user's spoken answer
    gold: list[ToolCall] = Field(default_factory=list)


class WorldEvent(_Model):
    """``leave_room``: the user walks out (``device_id``, the room's occupancy sensor, clears after its hold
    time); ``switch_off``: the user switches ``device_id`` off by hand (a light they leave with); ``press_button``:
    someone presses ``device_id`` (a button); ``sense_water``: water reaches ``device_id`` (a leak detector)."""

    at_s: float = Field(ge=0)
    kind: Literal["leave_room", "switch_off", "press_button", "sense_water"]
    room: str
    device_id: str


class StateCheck(_Model):
    device_id: str
    path: str  # "<endpoint>.<Cluster>.<Attribute>"
    value: Any
    at_s: float | None = None  # None: at the end of the episode


class VoiceEpisode(_Model):
    format: Literal["homefabric-voice-episode/1"] = VOICE_FORMAT
    episode_id: str
    seed: int
    task_type: TaskType
    variant: str
    home: HomeConfig
    setup: list[ToolCall] = Field(default_factory=list)
    turns: list[VoiceTurn] = Field(min_length=1)
    events: list[WorldEvent] = Field(default_factory=list)
    checks: list[StateCheck] = Field(min_length=1)
    preserve: list[StateCheck] = Field(default_factory=list)
    horizon_s: float = Field(default=0, ge=0)  # virtual time run after the last turn

    @property
    def user_turns(self) -> list[str]:
        """Every text the user may say, replies included (what ``speech render`` renders)."""
        return [text for turn in self.turns for text in (turn.text, turn.reply) if text]

    @property
    def user_location(self) -> str:
        return self.turns[0].position.room

    def dumps(self) -> str:
        """The episode file's text (what its content hash, ``runs.store.episode_sha256``, is taken of)."""
        return dumps_voice_episode(self)


class VoiceEpisodeError(ValueError):
    pass


def dumps_voice_episode(episode: VoiceEpisode) -> str:
    return (
        json.dumps(episode.model_dump(mode="json", exclude_none=True), indent=2, ensure_ascii=False, allow_nan=False)
        + "\n"
    )


def voice_file_name(episode: VoiceEpisode) -> str:
    return f"{episode.episode_id}.json"


def write_voice_episodes(episodes: list[VoiceEpisode], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for episode in episodes:
        path = out / voice_file_name(episode)
        write_atomically(path, dumps_voice_episode(episode))
        paths.append(path)
    return paths


def load_voice_episode(path: Path) -> VoiceEpisode:
    try:
        return VoiceEpisode.model_validate_json(path.read_bytes())
    except ValidationError as error:
        problems = "; ".join(f"{where}: {message}" for where, message in validation_problems(error))
        raise VoiceEpisodeError(f"{path}: not a voice episode ({problems})") from None
    except OSError as error:
        raise VoiceEpisodeError(f"{path}: cannot read ({error.strerror})") from None


def is_voice_episode_file(path: Path) -> bool:
    try:
        return bool(json.loads(path.read_bytes()).get("format") == VOICE_FORMAT)
    except (OSError, ValueError, AttributeError):
        return False


def load_voice_episodes(path: Path) -> list[VoiceEpisode]:
    """Every voice episode of a directory (sorted by id) or one file; VoiceEpisodeError names the bad one."""
    if not path.exists():
        raise VoiceEpisodeError(f"{path}: no such file or directory (give a voice episode directory or file)")
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    episodes = [load_voice_episode(p) for p in files if is_voice_episode_file(p) or not path.is_dir()]
    if not episodes:
        raise VoiceEpisodeError(f"{path}: no voice episodes (files with format {VOICE_FORMAT!r})")
    return sorted(episodes, key=lambda e: e.episode_id)
