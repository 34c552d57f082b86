"""The flags `serve`, `mqtt` and `http` share: one name, one meaning and one default each.

`serve` runs the wires that `mqtt` and `http` run alone, so a flag that means the same thing is spelled the same
in all three (older spellings stay as aliases: `mqtt --base`, `serve --http-token`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

Speed = Annotated[
    float, typer.Option("--speed", min=0.001, help="Virtual seconds per wall second (1 = real time, 60 = a minute/s).")
]
MqttBase = Annotated[str, typer.Option("--mqtt-base", "--base", help="MQTT topic root: <base>/<home>/<device>/…")]
HomeId = Annotated[str | None, typer.Option("--home-id", help="MQTT topic level of the home (default: from its name).")]
DiscoveryPrefix = Annotated[str, typer.Option("--discovery-prefix", help="Home Assistant MQTT discovery prefix.")]
Token = Annotated[
    str | None,
    typer.Option(
        "--token",
        "--http-token",
        envvar="HOMEFABRIC_HTTP_TOKEN",
        help="Bearer token the HTTP API and its WebSockets require.",
    ),
]
RunsDir = Annotated[
    Path | None,
    typer.Option(
        "--runs-dir", help="Where agent runs started over HTTP are written and read (default: a temporary directory)."
    ),
]

DEFAULT_MQTT_BASE = "homefabric"
DEFAULT_DISCOVERY_PREFIX = "homeassistant"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def topic_base_problem(base: str) -> str | None:
    if not base or any(c in base for c in "+#") or base.startswith("/") or base.endswith("/"):
        return f"--mqtt-base {base!r} must be a topic prefix without wildcards (+, #) or outer slashes"
    return None


def public_bind_warning(host: str, token: str | None) -> str | None:
    """Anyone who reaches a non-loopback address without a token controls the home: say so."""
    if host in LOOPBACK_HOSTS or host.startswith("127.") or token:
        return None
    return f"warning: listening on {host} without a token: anyone who can reach it controls the home (give --token)"
