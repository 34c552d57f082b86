"""Media clusters of a TV: Media Playback (0x0506), Channel (0x0504) and Keypad Input (0x0509).

They are coupled on a TV endpoint: Keypad Input keys drive the sibling Level Control (volume),
Channel, On/Off (power) and Media Playback. The TV's power dependency (commands refused while off)
is handled at the device level, not here.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import chip.clusters.Objects as Objects

from clusters.base import ClusterServer, command
from clusters.status import ClusterError, Status
from clusters.values import Constraint, enum_members

PlaybackState = Objects.MediaPlayback.Enums.PlaybackStateEnum
PlaybackStatus = Objects.MediaPlayback.Enums.StatusEnum
PlaybackFeature = Objects.MediaPlayback.Bitmaps.Feature
ChannelStatus = Objects.Channel.Enums.StatusEnum
ChannelFeature = Objects.Channel.Bitmaps.Feature
Key = Objects.KeypadInput.Enums.CECKeyCodeEnum
KeyStatus = Objects.KeypadInput.Enums.StatusEnum
KeypadFeature = Objects.KeypadInput.Bitmaps.Feature

PLAYING, PAUSED, NOT_PLAYING, BUFFERING = (int(PlaybackState.kPlaying), int(PlaybackState.kPaused),
                                           int(PlaybackState.kNotPlaying), int(PlaybackState.kBuffering))
MAX_SPEED = 64.0


# ================================================================================= Media Playback
class MediaPlaybackServer(ClusterServer):
    """Playback state of a TV or player.

    SimuHome rules (kept, answered in-band with PlaybackResponse status InvalidStateForCommand):
    Play fails if already playing at normal speed, Pause needs Playing/Buffering, Stop fails when
    already NotPlaying, Rewind/FastForward need a non-NotPlaying state and set Playing, StartOver
    plays from the start. Constructor options: ``duration_ms`` (media length, used with the
    AdvancedSeek feature), plus ``features`` (default VariableSpeed, so Rewind/FastForward exist as
    on SimuHome's TV) and ``values``.
    """

    cluster_name = "MediaPlayback"
    revision = 2
    default_features = int(PlaybackFeature.kVariableSpeed)
    defaults = {"CurrentState": NOT_PLAYING, "StartTime": 0, "Duration": None, "SampledPosition": None,
                "PlaybackSpeed": 0.0, "SeekRangeEnd": None, "SeekRangeStart": None}
    constraints = {"CurrentState": Constraint(allowed=(PLAYING, PAUSED, NOT_PLAYING, BUFFERING))}

    def __init__(self, *, duration_ms: int | None = None, features: int | None = None,
                 values: Mapping[str, Any] | None = None) -> None:
        super().__init__(features=features)
        self.duration_ms = duration_ms
        self._speed = 0.0
        self._anchor_position_ms = 0.0  # position at _anchor_time, then moving at _speed
        self._anchor_time = 0.0
        if self._seekable():
            self._values.update({"Duration": duration_ms, "SeekRangeStart": 0 if duration_ms is not None else None,
                                 "SeekRangeEnd": duration_ms})
            self.bind_source("SampledPosition", self._sampled_position)
            self.bind_source("PlaybackSpeed", lambda: float(self._speed))
        for name, value in (values or {}).items():
            self.restore(name, value)

    def _seekable(self) -> bool:
        return self.has_feature(PlaybackFeature.kAdvancedSeek)

    def initial_values(self) -> dict[str, Any]:
        if self._seekable():
            return {k: self.defaults[k] for k in ("CurrentState", "StartTime", "Duration", "SeekRangeEnd",
                                                  "SeekRangeStart")}
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
        return self.read("CurrentState")

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
            raise ClusterError(Status.CONSTRAINT_ERROR, f"MediaPlayback.Seek position {position} ms is past the end",
                               allowed={"min": 0, "max": self.duration_ms}, code="SEEK_OUT_OF_RANGE",
                               response={"status": int(PlaybackStatus.kSeekOutOfRange)})
        return self._jump(position, "Seek")

    # ----------------------------------------------------------------------------- helpers
    def _now(self) -> float:
        return self.runtime.now() if self.runtime is not None else 0.0

    def _refuse(self, what: str, why: str, allowed: list[str]) -> None:
        message = f"MediaPlayback.{what}: {why} (CurrentState={self.state})"
        raise ClusterError(Status.INVALID_IN_STATE, message, allowed={"commands": allowed},
                           response={"status": int(PlaybackStatus.kInvalidStateForCommand), "data": message})

    def _trick_play(self, what: str, sign: float) -> dict[str, Any]:
        if self.state == NOT_PLAYING:
            self._refuse(what, "nothing is playing", ["Play", "StartOver"])
        same_direction = self._speed * sign > 1.0 if sign > 0 else self._speed * sign > 0
        magnitude = abs(self._speed) * 2 if same_direction else 2.0
        if magnitude > MAX_SPEED:
            raise ClusterError(Status.CONSTRAINT_ERROR, f"MediaPlayback.{what}: speed {magnitude}x is too fast",
                               allowed={"max_speed": MAX_SPEED}, code="SPEED_OUT_OF_RANGE",
                               response={"status": int(PlaybackStatus.kSpeedOutOfRange)})
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


# ================================================================================= Channel
def _channel(major: int, name: str, affiliate: str) -> dict[str, Any]:
    return {"majorNumber": major, "minorNumber": 0, "name": name, "callSign": name, "affiliateCallSign": affiliate,
            "identifier": name.lower(), "type": int(Objects.Channel.Enums.ChannelTypeEnum.kTerrestrial)}


DEFAULT_CHANNELS: tuple[dict[str, Any], ...] = (
    _channel(1, "KBS1", "KBS"), _channel(2, "KBS2", "KBS"), _channel(3, "MBC", "MBC"),
    _channel(4, "SBS", "SBS"), _channel(5, "EBS", "EBS"),
)
DEFAULT_LINEUP = {"operatorName": "Terrestrial Broadcast", "lineupName": "Seoul Terrestrial", "postalCode": "04524",
                  "lineupInfoType": int(Objects.Channel.Enums.LineupInfoTypeEnum.kMso)}
# ChangeChannel match priority (SimuHome compatible): first tier with any match wins.
MATCH_FIELDS = ("identifier", "affiliateCallSign", "callSign", "name")


def _number(channel: Mapping[str, Any]) -> str:
    return f"{channel.get('majorNumber')}.{channel.get('minorNumber')}"


class ChannelServer(ClusterServer):
    """A TV tuner.

    Constructor options: ``channels`` (list of ChannelInfoStruct dicts; default KBS1 1.0, KBS2 2.0,
    MBC 3.0, SBS 4.0, EBS 5.0 — identifiers lower-case, terrestrial), ``lineup`` (LineupInfoStruct
    dict or None), ``current`` (index into the list, default 0), plus ``features`` (default
    ChannelList | LineupInfo) and ``values``.
    """

    cluster_name = "Channel"
    revision = 2
    default_features = int(ChannelFeature.kChannelList) | int(ChannelFeature.kLineupInfo)
    defaults = {"ChannelList": [], "Lineup": None, "CurrentChannel": None}

    def __init__(self, *, channels: list[Mapping[str, Any]] | None = None,
                 lineup: Mapping[str, Any] | None = DEFAULT_LINEUP, current: int = 0, features: int | None = None,
                 values: Mapping[str, Any] | None = None) -> None:
        super().__init__(features=features)
        listing = [dict(c) for c in (DEFAULT_CHANNELS if channels is None else channels)]
        self._unlisted_channels = listing  # tuning works even without the ChannelList feature
        if "ChannelList" in self._values:
            self.restore("ChannelList", listing)
        if "Lineup" in self._values:
            self.restore("Lineup", lineup)
        self.restore("CurrentChannel", copy.deepcopy(listing[current]) if listing else None)
        self._previous: dict[str, Any] | None = None
        for name, value in (values or {}).items():
            self.restore(name, value)

    def initial_values(self) -> dict[str, Any]:
        out: dict[str, Any] = {"CurrentChannel": None}
        if self.has_feature(ChannelFeature.kChannelList):
            out["ChannelList"] = []
        if self.has_feature(ChannelFeature.kLineupInfo):
            out["Lineup"] = None
        return out

    def accepts(self, command_name: str) -> bool:
        if command_name == "ChangeChannel":
            return self.has_feature(ChannelFeature.kChannelList) or self.has_feature(ChannelFeature.kLineupInfo)
        return True

    # ----------------------------------------------------------------------------- public API
    @property
    def channels(self) -> list[dict[str, Any]]:
        if "ChannelList" in self._values:
            return self.read("ChannelList")
        return self._unlisted_channels

    def change_to(self, channel: Mapping[str, Any]) -> None:
        current = self.read("CurrentChannel")
        if current is not None and _number(current) != _number(channel):
            self._previous = copy.deepcopy(current)
        self.set("CurrentChannel", copy.deepcopy(dict(channel)))

    def skip(self, count: int) -> None:
        listing = self.channels
        if not listing:
            raise ClusterError(Status.INVALID_IN_STATE, "Channel: the channel list is empty", code="NO_CHANNELS")
        self.change_to(listing[(self._index() + count) % len(listing)])

    def previous_channel(self) -> bool:
        """Back to the channel watched before (the PREVIOUS_CHANNEL key); False if there is none."""
        if self._previous is None:
            return False
        self.change_to(self._previous)
        return True

    # ----------------------------------------------------------------------------- commands
    @command("ChangeChannel")
    def change_channel(self, match: str) -> dict[str, Any]:
        wanted = match.strip().lower()
        found: list[dict[str, Any]] = []
        for field in MATCH_FIELDS:
            found = [c for c in self.channels if str(c.get(field) or "").lower() == wanted]
            if found:
                break
        else:
            found = [c for c in self.channels if _number(c) == wanted or str(c.get("majorNumber")) == wanted]
        names = [c.get("name") or _number(c) for c in self.channels]
        if len(found) != 1:
            many = len(found) > 1
            status = ChannelStatus.kMultipleMatches if many else ChannelStatus.kNoMatches
            why = f"matches {len(found)} channels" if many else "matches no channel"
            raise ClusterError(Status.CONSTRAINT_ERROR if many else Status.NOT_FOUND,
                               f"Channel.ChangeChannel match {match!r} {why}", allowed=names,
                               code="MULTIPLE_MATCHES" if many else "NO_MATCHES",
                               response={"status": int(status), "data": why})
        self.change_to(found[0])
        return {"status": int(ChannelStatus.kSuccess)}

    @command("ChangeChannelByNumber", aliases={"major_number": "majorNumber", "minor_number": "minorNumber"})
    def change_channel_by_number(self, majorNumber: int, minorNumber: int = 0) -> None:
        for channel in self.channels:
            if channel.get("majorNumber") == majorNumber and channel.get("minorNumber") == minorNumber:
                self.change_to(channel)
                return
        raise ClusterError(Status.CONSTRAINT_ERROR, f"Channel: no channel {majorNumber}.{minorNumber}",
                           allowed=[_number(c) for c in self.channels], code="NO_MATCHES")

    @command("SkipChannel")
    def skip_channel(self, count: int) -> None:
        self.skip(count)

    def _index(self) -> int:
        current = self.read("CurrentChannel")
        numbers = [_number(c) for c in self.channels]
        return numbers.index(_number(current)) if current is not None and _number(current) in numbers else 0


# ================================================================================= Keypad Input
def _keys(*names: str) -> frozenset[int]:
    return frozenset(int(getattr(Key, f"k{n}")) for n in names)


POWER_KEYS = {int(Key.kPower): "Toggle", int(Key.kPowerToggleFunction): "Toggle", int(Key.kPowerOnFunction): "On",
              int(Key.kPowerOffFunction): "Off"}
BASE_KEYS = _keys("Enter", "Clear", "VolumeUp", "VolumeDown", "Mute", "MuteFunction", "Play", "PlayFunction",
                  "Pause", "PausePlayFunction", "Stop", "StopFunction", "Rewind", "FastForward", "ChannelUp",
                  "ChannelDown", "PreviousChannel") | frozenset(POWER_KEYS)
NAVIGATION_KEYS = _keys("Select", "Up", "Down", "Left", "Right", "RightUp", "RightDown", "LeftUp", "LeftDown",
                        "ContentsMenu", "FavoriteMenu", "Exit", "MediaTopMenu", "MediaContextSensitiveMenu")
LOCATION_KEYS = _keys("RootMenu", "SetupMenu")
NUMBER_KEYS = _keys("Number0OrNumber10", "Numbers1", "Numbers2", "Numbers3", "Numbers4", "Numbers5", "Numbers6",
                    "Numbers7", "Numbers8", "Numbers9", "Number11", "Number12", "NumberEntryMode", "Dot")
VOLUME_STEP = 10
_KEY_NAMES = {name.replace("_", "").lower(): value for name, value in enum_members(Key).items()}
_KEY_NAMES.update({f"number{d}": int(getattr(Key, f"kNumbers{d}")) for d in range(1, 10)})
_KEY_NAMES["number0"] = int(Key.kNumber0OrNumber10)


class KeypadInputServer(ClusterServer):
    """Remote-control keys (CEC key codes), coupled to the TV's sibling clusters.

    VOLUME_UP/DOWN step the sibling LevelControl by ±10, MUTE moves it to MinLevel, CHANNEL_UP/DOWN
    skip the sibling Channel by ±1, PREVIOUS_CHANNEL goes back, power keys drive the sibling OnOff,
    PLAY/PAUSE/STOP/REWIND/FAST_FORWARD drive the sibling MediaPlayback. While the TV is off only
    power keys are valid (status 2 InvalidKeyInCurrentState); a sibling's refusal is status 2 too.
    Key names are accepted as well as codes ("VOLUME_UP", "VolumeUp", 65). Constructor: ``features``
    (default NavigationKeyCodes | LocationKeys | NumberKeys = 7) and ``values``.
    """

    cluster_name = "KeypadInput"
    revision = 1
    default_features = (int(KeypadFeature.kNavigationKeyCodes) | int(KeypadFeature.kLocationKeys)
                        | int(KeypadFeature.kNumberKeys))
    defaults: dict[str, Any] = {}

    def validate_invoke(self, name: str, args: Mapping[str, Any] | None) -> dict[str, Any]:
        args = dict(args or {})
        for key, value in list(args.items()):
            if isinstance(value, str) and key.replace("_", "").lower() == "keycode":
                spelled = value.removeprefix("k") if value[1:2].isupper() else value
                args[key] = _KEY_NAMES.get(spelled.replace("_", "").replace(" ", "").lower(), value)
        return super().validate_invoke(name, args)

    def supported_keys(self) -> frozenset[int]:
        keys = BASE_KEYS
        if self.has_feature(KeypadFeature.kNavigationKeyCodes):
            keys |= NAVIGATION_KEYS
        if self.has_feature(KeypadFeature.kLocationKeys):
            keys |= LOCATION_KEYS
        if self.has_feature(KeypadFeature.kNumberKeys):
            keys |= NUMBER_KEYS
        return keys

    @command("SendKey")
    def send_key(self, keyCode: int) -> dict[str, Any]:
        if keyCode not in self.supported_keys():
            return {"status": int(KeyStatus.kUnsupportedKey)}
        if keyCode not in POWER_KEYS and not self._tv_is_on():
            return {"status": int(KeyStatus.kInvalidKeyInCurrentState)}
        try:
            if keyCode in POWER_KEYS:
                return self._forward("OnOff", POWER_KEYS[keyCode], {})
            return self._act(keyCode)
        except ClusterError:
            return {"status": int(KeyStatus.kInvalidKeyInCurrentState)}

    def _act(self, key: int) -> dict[str, Any]:
        if key in (int(Key.kVolumeUp), int(Key.kVolumeDown)):
            step_mode = 0 if key == int(Key.kVolumeUp) else 1
            return self._forward("LevelControl", "Step", {"stepMode": step_mode, "stepSize": VOLUME_STEP,
                                                          "transitionTime": 0, "optionsMask": 0, "optionsOverride": 0})
        if key in (int(Key.kMute), int(Key.kMuteFunction)):
            level = self.endpoint.find("LevelControl") if self.endpoint else None
            minimum = level.read("MinLevel") if level is not None and level.has_attribute("MinLevel") else 0
            return self._forward("LevelControl", "MoveToLevel", {"level": minimum, "transitionTime": 0,
                                                                 "optionsMask": 0, "optionsOverride": 0})
        if key in (int(Key.kChannelUp), int(Key.kChannelDown)):
            return self._forward("Channel", "SkipChannel", {"count": 1 if key == int(Key.kChannelUp) else -1})
        if key == int(Key.kPreviousChannel):
            channel = self.endpoint.find("Channel") if self.endpoint else None
            if not isinstance(channel, ChannelServer) or not channel.previous_channel():
                return {"status": int(KeyStatus.kInvalidKeyInCurrentState)}
            return {"status": int(KeyStatus.kSuccess)}
        media = {int(Key.kPlay): "Play", int(Key.kPlayFunction): "Play", int(Key.kPause): "Pause",
                 int(Key.kStop): "Stop", int(Key.kStopFunction): "Stop", int(Key.kRewind): "Rewind",
                 int(Key.kFastForward): "FastForward"}
        if key == int(Key.kPausePlayFunction):
            playback = self.endpoint.find("MediaPlayback") if self.endpoint else None
            playing = playback is not None and playback.read("CurrentState") == PLAYING
            return self._forward("MediaPlayback", "Pause" if playing else "Play", {})
        if key in media:
            return self._forward("MediaPlayback", media[key], {})
        return {"status": int(KeyStatus.kSuccess)}  # navigation / number keys: UI only

    def _forward(self, cluster: str, command_name: str, args: dict[str, Any]) -> dict[str, Any]:
        sibling = self.endpoint.find(cluster) if self.endpoint is not None else None
        if sibling is None:
            return {"status": int(KeyStatus.kUnsupportedKey)}
        sibling.invoke(command_name, args)
        return {"status": int(KeyStatus.kSuccess)}

    def _tv_is_on(self) -> bool:
        power = self.endpoint.find("OnOff") if self.endpoint is not None else None
        return power is None or bool(power.read("OnOff"))
