"""Content Launcher (0x050A) of a casting video player: launch content by search or by URL.

Launching starts the sibling MediaPlayback (Playing with AutoPlay, Paused otherwise) from position 0 and
remembers what was launched (``current``). A URL must be http(s) (else URLNotAvailable, in-band); a
search needs at least one non-empty parameter (else INVALID_COMMAND). Failures answer the
LauncherResponse with their status (HomeError with ``response``).
"""

from __future__ import annotations

from typing import Any, cast
from urllib.parse import urlparse

import clusters.official as Objects
from clusters.base import ClusterServer, command
from clusters.media_playback import PAUSED, PLAYING, MediaPlaybackServer
from clusters.status import HomeError, Status

Feature = Objects.ContentLauncher.Bitmaps.Feature
Protocols = Objects.ContentLauncher.Bitmaps.SupportedProtocolsBitmap
LauncherStatus = Objects.ContentLauncher.Enums.StatusEnum


class ContentLauncherServer(ClusterServer):
    __slots__ = ("current",)
    cluster_name = "ContentLauncher"
    revision = 2
    default_features = int(Feature.kContentSearch | Feature.kURLPlayback)
    defaults = {
        "AcceptHeader": ["application/dash+xml", "application/vnd.apple.mpegurl", "video/mp4"],
        "SupportedStreamingProtocols": int(Protocols.kDash | Protocols.kHls),
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.current: dict[str, Any] | None = None  # what was launched last

    def initial_values(self) -> dict[str, Any]:
        return self.defaults if self.has_feature(Feature.kURLPlayback) else {}

    def accepts(self, command_name: str) -> bool:
        if command_name == "LaunchURL":
            return self.has_feature(Feature.kURLPlayback)
        if command_name == "LaunchContent":
            return self.has_feature(Feature.kContentSearch)
        return True

    def _start(self, auto_play: bool) -> None:
        playback = cast(
            MediaPlaybackServer | None, self.endpoint.find("MediaPlayback") if self.endpoint is not None else None
        )
        if playback is not None:
            playback._move_anchor(0)  # new content starts at its beginning
            playback._go(PLAYING if auto_play else PAUSED, 1.0 if auto_play else 0.0)

    @command("LaunchContent")
    def launch_content(
        self,
        search: dict[str, Any],
        autoPlay: bool,
        data: str | None = None,
        playbackPreferences: dict[str, Any] | None = None,
        useCurrentContext: bool | None = None,
    ) -> dict[str, Any]:
        parameters = [p for p in search.get("parameterList") or [] if str(p.get("value", "")).strip()]
        if not parameters:
            raise HomeError.refused(
                Status.INVALID_COMMAND,
                "ContentLauncher.LaunchContent: the search has no parameter with a value",
                allowed={"parameterList": "[{type: ParameterEnum, value: text}]"},
            )
        self.current = {"search": [{"type": int(p["type"]), "value": p["value"]} for p in parameters], "data": data}
        self._start(autoPlay)
        return {"status": int(LauncherStatus.kSuccess), "data": data}

    @command("LaunchURL")
    def launch_url(
        self, contentURL: str, displayString: str | None = None, brandingInformation: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        url = urlparse(contentURL)
        if url.scheme not in ("http", "https") or not url.netloc:
            message = f"ContentLauncher.LaunchURL: {contentURL!r} is not an http(s) URL"
            raise HomeError.refused(
                Status.FAILURE,
                message,
                allowed={"scheme": ["http", "https"]},
                reason="URL_NOT_AVAILABLE",
                response={"status": int(LauncherStatus.kURLNotAvailable), "data": message[:100]},
            )
        self.current = {"url": contentURL, "display": displayString}
        self._start(True)
        return {"status": int(LauncherStatus.kSuccess)}
