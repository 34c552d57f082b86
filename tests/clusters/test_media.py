from typing import Any

import pytest

from clusters import ClusterServer, HomeError, Status, command
from clusters.channel import ChannelServer
from clusters.keypad_input import KeypadInputServer
from clusters.media_playback import MediaPlaybackServer
from clusters.on_off import OnOffServer
from clusters.values import Constraint

PLAYING, PAUSED, NOT_PLAYING = 0, 1, 2


class VolumeStub(ClusterServer):
    """A minimal LevelControl so these tests do not depend on the real server's details."""

    cluster_name = "LevelControl"
    revision = 6
    defaults = {"CurrentLevel": 50, "MinLevel": 1, "MaxLevel": 254}

    @command("MoveToLevel", constraints={"level": Constraint(0, 254)})
    def move_to_level(self, level: int, transitionTime: Any, optionsMask: int, optionsOverride: int) -> None:
        self.set("CurrentLevel", level)

    @command("Step")
    def step(self, stepMode: int, stepSize: int, transitionTime: Any, optionsMask: int, optionsOverride: int) -> None:
        level = self.read("CurrentLevel") + (stepSize if stepMode == 0 else -stepSize)
        if level > 254:
            raise HomeError.refused(Status.INVALID_IN_STATE, "stub: too loud")
        self.set("CurrentLevel", max(1, level))


# ----------------------------------------------------------------------------------- MediaPlayback
def test_playback_state_machine(mount):
    media = MediaPlaybackServer()
    mount(media)
    assert media.read("CurrentState") == NOT_PLAYING
    assert media.invoke("Play") == {"status": 0} and media.state == PLAYING
    assert media.invoke("Pause") == {"status": 0} and media.state == PAUSED
    assert media.invoke("FastForward", {"playback_speed": 2.0}) == {"status": 0}  # SimuHome's argument ignored
    assert media.state == PLAYING and media.speed == 2.0
    media.invoke("FastForward")
    assert media.speed == 4.0
    media.invoke("Rewind")
    assert media.speed == -2.0
    media.invoke("Play")  # back to normal speed is allowed while trick-playing
    assert media.speed == 1.0
    media.invoke("Stop")
    assert media.state == NOT_PLAYING
    media.invoke("StartOver")
    assert media.state == PLAYING
    assert media.invoke("Next") == {"status": 0} and media.invoke("Previous") == {"status": 0}
    assert media.state == PLAYING
    media.invoke("SkipForward", {"deltaPositionMilliseconds": 1000})
    media.invoke("SkipBackward", {"deltaPositionMilliseconds": 5000})
    assert media.position_ms() == 0


@pytest.mark.parametrize(
    ("state", "cmd"),
    [
        (PLAYING, "Play"),
        (NOT_PLAYING, "Pause"),
        (PAUSED, "Pause"),
        (NOT_PLAYING, "Stop"),
        (NOT_PLAYING, "Rewind"),
        (NOT_PLAYING, "FastForward"),
    ],
)
def test_invalid_state_answers_in_band(mount, state, cmd):
    media = MediaPlaybackServer(values={"CurrentState": state})
    mount(media)
    if state == PLAYING:
        media.invoke("StartOver")  # normal speed
    before = media.read_all()
    with pytest.raises(HomeError) as err:
        media.invoke(cmd)
    assert err.value.status == Status.INVALID_IN_STATE
    assert err.value.response["status"] == 1  # PlaybackResponse InvalidStateForCommand
    assert media.read_all() == before


def test_advanced_seek_tracks_position_lazily(mount, clock):
    media = MediaPlaybackServer(features=1 | 2, duration_ms=60_000)
    mount(media)
    assert media.read("Duration") == 60_000 and media.read("SeekRangeEnd") == 60_000
    media.invoke("Play")
    clock.advance_to(100)  # 10 s
    assert media.position_ms() == 10_000
    media.invoke("Pause")
    assert media.read("SampledPosition") == {"updatedAt": 10_000_000, "position": 10_000}
    assert media.read("PlaybackSpeed") == 0.0
    media.invoke("Seek", {"position": 30_000})
    assert media.position_ms() == 30_000
    with pytest.raises(HomeError) as err:
        media.invoke("Seek", {"position": 70_000})
    assert err.value.response == {"status": 5} and media.position_ms() == 30_000
    assert clock.pending() == 0


def test_seek_needs_the_feature(mount):
    media = MediaPlaybackServer()
    mount(media)
    with pytest.raises(HomeError) as err:
        media.invoke("Seek", {"position": 1})
    assert err.value.status == Status.UNSUPPORTED_COMMAND
    assert not media.has_attribute("SampledPosition")
    assert "Rewind" not in MediaPlaybackServer(features=0).command_names()


# ----------------------------------------------------------------------------------- Channel
def test_default_channels_and_change_channel(mount):
    tv = ChannelServer()
    ep = mount(tv)
    assert [c["name"] for c in tv.read("ChannelList")] == ["KBS1", "KBS2", "MBC", "SBS", "EBS"]
    assert tv.read("CurrentChannel")["identifier"] == "kbs1" and tv.read("Lineup")["lineupInfoType"] == 0
    assert tv.invoke("ChangeChannel", {"match": "mbc"}) == {"status": 0}
    assert tv.read("CurrentChannel")["majorNumber"] == 3
    tv.invoke("ChangeChannel", {"Match": "5.0"})
    assert tv.read("CurrentChannel")["name"] == "EBS"
    assert ep.changes[-1][2] == "CurrentChannel"


@pytest.mark.parametrize(
    ("match", "status", "inband"), [("KBS", Status.CONSTRAINT_ERROR, 1), ("CNN", Status.NOT_FOUND, 2)]
)
def test_change_channel_ambiguous_or_unknown(mount, match, status, inband):
    tv = ChannelServer()
    mount(tv)
    with pytest.raises(HomeError) as err:
        tv.invoke("ChangeChannel", {"match": match})
    assert err.value.status == status and err.value.response["status"] == inband
    assert "KBS1" in err.value.allowed and tv.read("CurrentChannel")["name"] == "KBS1"


def test_change_by_number_and_skip(mount):
    tv = ChannelServer()
    mount(tv)
    tv.invoke("ChangeChannelByNumber", {"major_number": 4})  # SimuHome: minor defaults to 0
    assert tv.read("CurrentChannel")["name"] == "SBS"
    tv.invoke("SkipChannel", {"count": 2})  # wraps
    assert tv.read("CurrentChannel")["name"] == "KBS1"
    tv.invoke("SkipChannel", {"Count": -1})
    assert tv.read("CurrentChannel")["name"] == "EBS"
    assert tv.previous_channel() and tv.read("CurrentChannel")["name"] == "KBS1"
    with pytest.raises(HomeError) as err:
        tv.invoke("ChangeChannelByNumber", {"majorNumber": 9, "minorNumber": 0})
    assert err.value.status == Status.CONSTRAINT_ERROR and tv.read("CurrentChannel")["name"] == "KBS1"


def test_custom_channel_list(mount):
    tv = ChannelServer(channels=[{"MajorNumber": 7, "MinorNumber": 1, "Name": "Seven"}], lineup=None)
    mount(tv)
    assert tv.read("CurrentChannel") == {"majorNumber": 7, "minorNumber": 1, "name": "Seven"}
    assert tv.read("Lineup") is None
    tv.invoke("ChangeChannel", {"match": "seven"})


# ----------------------------------------------------------------------------------- KeypadInput
def _tv(mount, on: bool = True):
    power, volume, channel, media, keypad = (
        OnOffServer(),
        VolumeStub(),
        ChannelServer(),
        MediaPlaybackServer(),
        KeypadInputServer(),
    )
    mount(power, volume, channel, media, keypad)
    if on:
        power.invoke("On")
    return power, volume, channel, media, keypad


def test_keys_drive_siblings(mount):
    power, volume, channel, media, keypad = _tv(mount)
    assert keypad.read("FeatureMap") == 7
    assert keypad.invoke("SendKey", {"KeyCode": "VOLUME_UP"}) == {"status": 0}
    assert volume.read("CurrentLevel") == 60
    keypad.invoke("SendKey", {"keyCode": 66})  # VolumeDown by code
    keypad.invoke("SendKey", {"keyCode": "VolumeDown"})
    assert volume.read("CurrentLevel") == 40
    keypad.invoke("SendKey", {"keyCode": "MUTE"})
    assert volume.read("CurrentLevel") == 1
    keypad.invoke("SendKey", {"keyCode": "CHANNEL_DOWN"})
    assert channel.read("CurrentChannel")["name"] == "EBS"
    keypad.invoke("SendKey", {"keyCode": "CHANNEL_UP"})
    keypad.invoke("SendKey", {"keyCode": "PREVIOUS_CHANNEL"})
    assert channel.read("CurrentChannel")["name"] == "EBS"
    keypad.invoke("SendKey", {"keyCode": "PLAY"})
    assert media.state == PLAYING
    assert keypad.invoke("SendKey", {"keyCode": "PLAY"}) == {"status": 2}  # already playing
    keypad.invoke("SendKey", {"keyCode": "NUMBER_5"})
    keypad.invoke("SendKey", {"keyCode": "POWER"})
    assert power.read("OnOff") is False


def test_only_power_keys_when_off(mount):
    power, volume, _, _, keypad = _tv(mount, on=False)
    assert keypad.invoke("SendKey", {"keyCode": "VOLUME_UP"}) == {"status": 2}
    assert volume.read("CurrentLevel") == 50
    assert keypad.invoke("SendKey", {"keyCode": "PowerOnFunction"}) == {"status": 0}
    assert power.read("OnOff") is True


def test_unsupported_and_refused_keys(mount):
    _, volume, _, _, keypad = _tv(mount)
    assert keypad.invoke("SendKey", {"keyCode": "F1Blue"}) == {"status": 1}
    volume.set("CurrentLevel", 250)
    assert keypad.invoke("SendKey", {"keyCode": "VOLUME_UP"}) == {"status": 2}  # sibling refused
    assert volume.read("CurrentLevel") == 250
    with pytest.raises(HomeError) as err:
        keypad.invoke("SendKey", {"keyCode": "NOT_A_KEY"})
    assert err.value.status == Status.CONSTRAINT_ERROR
    bare = KeypadInputServer(features=0)
    mount(bare)
    assert bare.invoke("SendKey", {"keyCode": "Up"}) == {"status": 1}  # navigation keys need the feature
