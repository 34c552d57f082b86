"""Media Playback (0x0506): the playback state of a TV or player.

The TV's power dependency (commands refused while off) is handled at the device level, not here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

import clusters.official as Objects
from clusters.base import ClusterServer, command
from clusters.status import HomeError, Status
from clusters.values import Constraint

PlaybackState = Objects.MediaPlayback.Enums.PlaybackStateEnum
PlaybackStatus = Objects.MediaPlayback.Enums.StatusEnum
PlaybackFeature = Objects.MediaPlayback.Bitmaps.Feature

PLAYING, PAUSED, NOT_PLAYING, BUFFERING = (
    int(PlaybackState.kPlaying),
    int(PlaybackState.kPaused),
    int(PlaybackState.kNotPlaying),
    int(PlaybackState.kBuffering),
)
MAX_SPEED = 64.0


class MediaPlaybackServer(ClusterServer):
    """Playback state of a TV or player.

    SimuHome rules (kept, answered in-band with PlaybackResponse status InvalidStateForCommand):
    Play fails if already playing at normal speed, Pause needs Playing/Buffering, Stop fails when
    already NotPlaying, Rewind/FastForward need a non-NotPlaying state and set Playing, StartOver
    plays from the start. Constructor options: ``duration_ms`` (media length, used with the
    AdvancedSeek feature), plus ``features`` (default VariableSpeed, so Rewind/FastForward exist as
    on SimuHome's TV) and ``values``.
    """

    __slots__ = ("_anchor_position_ms", "_anchor_time", "_speed", "duration_ms")

    cluster_name = "MediaPlayback"
    revision = 2
    default_features = int(PlaybackFeature.kVariableSpeed)
    defaults = {
        "CurrentState": NOT_PLAYING,
        "StartTime": 0,
        "Duration": None,
        "SampledPosition": None,
        "PlaybackSpeed": 0.0,
        "SeekRangeEnd": None,
        "SeekRangeStart": None,
    }
    constraints = {"CurrentState": Constraint(allowed=(PLAYING, PAUSED, NOT_PLAYING, BUFFERING))}

    def __init__(
        self, *, duration_ms: int | None = None, features: int | None = None, values: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(features=features)
        self.duration_ms = duration_ms
        self._speed = 0.0
        self._anchor_position_ms = 0.0  # position at _anchor_time, then moving at _speed
        self._anchor_time = 0.0
        if self._seekable():
            self._values.update(
                {
                    "Duration": duration_ms,
                    "SeekRangeStart": 0 if duration_ms is not None else None,
                    "SeekRangeEnd": duration_ms,
                }
            )
            self.bind_source("SampledPosition", self._sampled_position)
            self.bind_source("PlaybackSpeed", lambda: float(self._speed))
        for name, value in (values or {}).items():
            self.restore(name, value)

    def _seekable(self) -> bool:
        return self.has_feature(PlaybackFeature.kAdvancedSeek)

    def initial_values(self) -> dict[str, Any]:
        if self._seekable():
            return {
                k: self.defaults[k] for k in ("CurrentState", "StartTime", "Duration", "SeekRangeEnd", "SeekRangeStart")
            }
        return {"CurrentState": NOT_PLAYING}

    def accepts(self, command_name: str) -> bool:
        if command_name in ("Rewind", "FastForward"):
            return self.has_feature(PlaybackFeature.kVariableSpeed)
        if command_name == "Seek":
            return self._seekable()
        return True

    def validate_invoke(self, name: str, args: Mapping[str, Any] | None) -> dict[str, Any]:
        args = dict(args or {})
        if name in ("Rewind", "FastForward"):
            args.pop("playback_speed", None)  # SimuHome's argument; Matter doubles the speed instead
        return super().validate_invoke(name, args)

    # ----------------------------------------------------------------------------- public API
    @property
    def state(self) -> int:
        state: int = self.read("CurrentState")
        return state

    @property
    def speed(self) -> float:
        return self._speed

    def position_ms(self) -> int:
        position = self._anchor_position_ms + (self._now() - self._anchor_time) * 1000 * self._speed
        if self.duration_ms is not None:
            position = min(position, self.duration_ms)
        return max(0, int(position))

    # ----------------------------------------------------------------------------- commands
    @command("Play")
    def play(self) -> dict[str, Any]:
        if self.state == PLAYING and self._speed == 1.0:
            self._refuse("Play", "media is already playing", ["Pause", "Stop", "FastForward", "Rewind"])
        return self._go(PLAYING, 1.0)

    @command("Pause")
    def pause(self) -> dict[str, Any]:
        if self.state not in (PLAYING, BUFFERING):
            self._refuse("Pause", "media is not playing", ["Play"])
        return self._go(PAUSED, 0.0)

    @command("Stop")
    def stop(self) -> dict[str, Any]:
        if self.state == NOT_PLAYING:
            self._refuse("Stop", "media is already stopped", ["Play", "StartOver"])
        response = self._go(NOT_PLAYING, 0.0)
        self._move_anchor(0)
        return response

    @command("StartOver")
    def start_over(self) -> dict[str, Any]:
        self._move_anchor(0)
        return self._go(PLAYING, 1.0)

    @command("Previous")
    def previous(self) -> dict[str, Any]:
        return _ok()  # no playlist in the emulator: nothing to move to

    @command("Next")
    def next(self) -> dict[str, Any]:
        return _ok()

    @command("Rewind")
    def rewind(self, audioAdvanceUnmuted: bool | None = None) -> dict[str, Any]:
        return self._trick_play("Rewind", -1.0)

    @command("FastForward")
    def fast_forward(self, audioAdvanceUnmuted: bool | None = None) -> dict[str, Any]:
        return self._trick_play("FastForward", 1.0)

    @command("SkipForward")
    def skip_forward(self, deltaPositionMilliseconds: int) -> dict[str, Any]:
        return self._jump(self.position_ms() + deltaPositionMilliseconds, "SkipForward")

    @command("SkipBackward")
    def skip_backward(self, deltaPositionMilliseconds: int) -> dict[str, Any]:
        return self._jump(max(0, self.position_ms() - deltaPositionMilliseconds), "SkipBackward")

    @command("Seek")
    def seek(self, position: int) -> dict[str, Any]:
        if self.duration_ms is not None and position > self.duration_ms:
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"MediaPlayback.Seek position {position} ms is past the end",
                allowed={"min": 0, "max": self.duration_ms},
                reason="SEEK_OUT_OF_RANGE",
                response={"status": int(PlaybackStatus.kSeekOutOfRange)},
            )
        return self._jump(position, "Seek")

    # ----------------------------------------------------------------------------- helpers
    def _now(self) -> float:
        return self.runtime.now() if self.runtime is not None else 0.0

    def _refuse(self, what: str, why: str, allowed: list[str]) -> NoReturn:
        message = f"MediaPlayback.{what}: {why} (CurrentState={self.state})"
        raise HomeError.refused(
            Status.INVALID_IN_STATE,
            message,
            allowed={"commands": allowed},
            response={"status": int(PlaybackStatus.kInvalidStateForCommand), "data": message},
        )

    def _trick_play(self, what: str, sign: float) -> dict[str, Any]:
        if self.state == NOT_PLAYING:
            self._refuse(what, "nothing is playing", ["Play", "StartOver"])
        same_direction = self._speed * sign > 1.0 if sign > 0 else self._speed * sign > 0
        magnitude = abs(self._speed) * 2 if same_direction else 2.0
        if magnitude > MAX_SPEED:
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"MediaPlayback.{what}: speed {magnitude}x is too fast",
                allowed={"max_speed": MAX_SPEED},
                reason="SPEED_OUT_OF_RANGE",
                response={"status": int(PlaybackStatus.kSpeedOutOfRange)},
            )
        return self._go(PLAYING, sign * magnitude)

    def _jump(self, position: int, what: str) -> dict[str, Any]:
        if self.duration_ms is not None:
            position = min(position, self.duration_ms)
        self._move_anchor(position)
        return _ok()

    def _move_anchor(self, position_ms: float) -> None:
        old = self._sampled_position() if self._seekable() else None
        self._anchor_position_ms = position_ms
        self._anchor_time = self._now()
        if self._seekable():
            self.notify("SampledPosition", old, self._sampled_position())

    def _go(self, state: int, speed: float) -> dict[str, Any]:
        self._move_anchor(self.position_ms())
        old_speed, self._speed = self._speed, speed
        self.set("CurrentState", state)
        if self._seekable():
            self.notify("PlaybackSpeed", old_speed, speed)
        return _ok()

    def _sampled_position(self) -> dict[str, Any]:
        # updatedAt: virtual microseconds since the home's base time (the emulator has no UTC epoch here).
        return {"updatedAt": int(self._anchor_time * 1_000_000), "position": int(self._anchor_position_ms)}


def _ok() -> dict[str, Any]:
    return {"status": int(PlaybackStatus.kSuccess)}
