"""Content Launcher on a casting player: search and URL launches start playback; bad requests refused."""

from __future__ import annotations

from typing import Any

import pytest

from clusters import HomeError, Status
from clusters.content_launcher import ContentLauncherServer, LauncherStatus
from clusters.media_playback import MediaPlaybackServer

PLAYING, PAUSED, NOT_PLAYING = 0, 1, 2


@pytest.fixture
def player(mount: Any) -> Any:
    return mount(MediaPlaybackServer(), ContentLauncherServer())


def test_launch_content_by_search(player: Any) -> None:
    launcher, playback = player.clusters["ContentLauncher"], player.clusters["MediaPlayback"]
    assert playback.read("CurrentState") == NOT_PLAYING
    search = {"parameterList": [{"type": 12, "value": "Nature documentary"}]}
    assert launcher.invoke("LaunchContent", {"search": search, "autoPlay": False}) == {"status": 0, "data": None}
    assert playback.read("CurrentState") == PAUSED
    assert launcher.invoke("LaunchContent", {"search": search, "autoPlay": True, "data": "ctx"})["data"] == "ctx"
    assert playback.read("CurrentState") == PLAYING
    assert launcher.current["search"] == [{"type": 12, "value": "Nature documentary"}]
    with pytest.raises(HomeError) as err:
        launcher.invoke("LaunchContent", {"search": {"parameterList": [{"type": 0, "value": " "}]}, "autoPlay": True})
    assert err.value.status == Status.INVALID_COMMAND


def test_launch_url(player: Any) -> None:
    launcher, playback = player.clusters["ContentLauncher"], player.clusters["MediaPlayback"]
    assert launcher.read("SupportedStreamingProtocols") == 3 and launcher.read("AcceptHeader")
    assert launcher.invoke("LaunchURL", {"contentURL": "https://example.org/movie.m3u8"}) == {"status": 0}
    assert playback.read("CurrentState") == PLAYING
    before = launcher.current
    with pytest.raises(HomeError) as err:
        launcher.invoke("LaunchURL", {"contentURL": "file:///etc/passwd"})
    assert err.value.response["status"] == int(LauncherStatus.kURLNotAvailable)  # in-band on the wire
    assert launcher.current == before
