"""Keypad Input (0x0509): remote-control keys that drive a TV endpoint's sibling clusters.

Keys drive the sibling Level Control (volume), Channel, On/Off (power) and Media Playback.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import clusters.official as Objects
from clusters.absent_attributes import served_or_absent
from clusters.base import ClusterServer, command
from clusters.channel import ChannelServer
from clusters.media_playback import PLAYING
from clusters.status import HomeError
from clusters.values import enum_members

Key = Objects.KeypadInput.Enums.CECKeyCodeEnum
KeyStatus = Objects.KeypadInput.Enums.StatusEnum
KeypadFeature = Objects.KeypadInput.Bitmaps.Feature


def _keys(*names: str) -> frozenset[int]:
    return frozenset(int(getattr(Key, f"k{n}")) for n in names)


POWER_KEYS = {
    int(Key.kPower): "Toggle",
    int(Key.kPowerToggleFunction): "Toggle",
    int(Key.kPowerOnFunction): "On",
    int(Key.kPowerOffFunction): "Off",
}
BASE_KEYS = _keys(
    "Enter",
    "Clear",
    "VolumeUp",
    "VolumeDown",
    "Mute",
    "MuteFunction",
    "Play",
    "PlayFunction",
    "Pause",
    "PausePlayFunction",
    "Stop",
    "StopFunction",
    "Rewind",
    "FastForward",
    "ChannelUp",
    "ChannelDown",
    "PreviousChannel",
) | frozenset(POWER_KEYS)
NAVIGATION_KEYS = _keys(
    "Select",
    "Up",
    "Down",
    "Left",
    "Right",
    "RightUp",
    "RightDown",
    "LeftUp",
    "LeftDown",
    "ContentsMenu",
    "FavoriteMenu",
    "Exit",
    "MediaTopMenu",
    "MediaContextSensitiveMenu",
)
LOCATION_KEYS = _keys("RootMenu", "SetupMenu")
NUMBER_KEYS = _keys(
    "Number0OrNumber10",
    "Numbers1",
    "Numbers2",
    "Numbers3",
    "Numbers4",
    "Numbers5",
    "Numbers6",
    "Numbers7",
    "Numbers8",
    "Numbers9",
    "Number11",
    "Number12",
    "NumberEntryMode",
    "Dot",
)
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

    __slots__ = ()

    cluster_name = "KeypadInput"
    revision = 1
    default_features = (
        int(KeypadFeature.kNavigationKeyCodes) | int(KeypadFeature.kLocationKeys) | int(KeypadFeature.kNumberKeys)
    )
    defaults = {}

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
        except HomeError:
            return {"status": int(KeyStatus.kInvalidKeyInCurrentState)}

    def _act(self, key: int) -> dict[str, Any]:
        if key in (int(Key.kVolumeUp), int(Key.kVolumeDown)):
            step_mode = 0 if key == int(Key.kVolumeUp) else 1
            return self._forward(
                "LevelControl",
                "Step",
                {
                    "stepMode": step_mode,
                    "stepSize": VOLUME_STEP,
                    "transitionTime": 0,
                    "optionsMask": 0,
                    "optionsOverride": 0,
                },
            )
        if key in (int(Key.kMute), int(Key.kMuteFunction)):
            level = self.endpoint.find("LevelControl") if self.endpoint else None
            minimum = served_or_absent(level, "MinLevel") if level is not None else 0
            return self._forward(
                "LevelControl",
                "MoveToLevel",
                {"level": minimum, "transitionTime": 0, "optionsMask": 0, "optionsOverride": 0},
            )
        if key in (int(Key.kChannelUp), int(Key.kChannelDown)):
            return self._forward("Channel", "SkipChannel", {"count": 1 if key == int(Key.kChannelUp) else -1})
        if key == int(Key.kPreviousChannel):
            channel = self.endpoint.find("Channel") if self.endpoint else None
            if not isinstance(channel, ChannelServer) or not channel.previous_channel():
                return {"status": int(KeyStatus.kInvalidKeyInCurrentState)}
            return {"status": int(KeyStatus.kSuccess)}
        media = {
            int(Key.kPlay): "Play",
            int(Key.kPlayFunction): "Play",
            int(Key.kPause): "Pause",
            int(Key.kStop): "Stop",
            int(Key.kStopFunction): "Stop",
            int(Key.kRewind): "Rewind",
            int(Key.kFastForward): "FastForward",
        }
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
