"""`homefabric mqtt HOME --broker HOST:PORT` — a home in real-time pacing on an MQTT broker only.

A thin composition: Fabric + RealtimePacer (emulator) + MqttBridge (bridge.mqtt), no Matter. Mount
with ``app.command("mqtt")(mqtt_command)``; ``parse_broker`` also serves `serve --mqtt HOST:PORT`.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path
from typing import Annotated, Any

import typer


def parse_broker(text: str) -> tuple[str, int]:
    """"HOST:PORT" (or "HOST", port 1883; "[v6addr]:PORT") → (host, port); ValueError naming what is wrong."""
    text = text.strip()
    host, port_text = text, "1883"
    if text.startswith("["):
        close = text.find("]")
        if close < 0:
            raise ValueError(f"broker {text!r}: missing ']' after an IPv6 address")
        host, rest = text[1:close], text[close + 1:]
        if rest:
            if not rest.startswith(":"):
                raise ValueError(f"broker {text!r}: expected ':PORT' after ']'")
            port_text = rest[1:]
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    if not host:
        raise ValueError(f"broker {text!r}: no host (expected HOST:PORT, e.g. 127.0.0.1:1883)")
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise ValueError(f"broker {text!r}: port {port_text!r} is not 1..65535")
    return host, int(port_text)


async def run_mqtt(home_path: Path, host: str, port: int, *, speed: float, base: str, home_id: str | None,
                   discovery_prefix: str, echo: Any, stop: asyncio.Event | None = None) -> None:
    from bridge.mqtt import MqttBridge
    from emulator.fabric import Fabric
    from emulator.pacing import RealtimePacer

    fabric = Fabric.from_file(str(home_path))
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread (tests)
            loop.add_signal_handler(sig, stop.set)
    home = home_id or fabric.name
    async with RealtimePacer(fabric, speed=speed), \
            MqttBridge(fabric, host, port, home_id=home, base=base, discovery_prefix=discovery_prefix) as bridge:
        echo(f"serving {fabric.name}: {len(fabric.devices())} devices on MQTT {host}:{port} under "
             f"{bridge.topics.root}/ (discovery under {discovery_prefix}/), virtual time ×{speed:g} from "
             f"{fabric.now_text()}; Ctrl-C stops")
        await stop.wait()


def mqtt_command(
    home: Annotated[Path, typer.Argument(help="Home configuration (JSON or YAML).", exists=True, dir_okay=False)],
    broker: Annotated[str, typer.Option("--broker", help="MQTT broker HOST:PORT.")] = "127.0.0.1:1883",
    speed: Annotated[float, typer.Option("--speed", help="Virtual seconds per wall second.", min=0.001)] = 1.0,
    base: Annotated[str, typer.Option("--base", help="Topic root: <base>/<home>/<device>/…")] = "homefabric",
    home_id: Annotated[str | None, typer.Option("--home-id", help="Topic level of the home (default: its name).")]
    = None,
    discovery_prefix: Annotated[str, typer.Option("--discovery-prefix", help="Home Assistant discovery prefix.")]
    = "homeassistant",
) -> None:
    """Run a home on an MQTT broker only (no Matter): retained state, commands, Home Assistant discovery."""
    try:
        host, port = parse_broker(broker)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--broker") from None
    if not base or any(c in base for c in "+#") or base.startswith("/") or base.endswith("/"):
        raise typer.BadParameter(f"{base!r} must be a topic prefix without wildcards or outer slashes",
                                 param_hint="--base")
    from emulator.home_config import HomeConfigError, load_home

    try:
        load_home(home)  # a bad file is one error naming each problem, before connecting anywhere
    except HomeConfigError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None
    try:
        asyncio.run(run_mqtt(home, host, port, speed=speed, base=base, home_id=home_id,
                             discovery_prefix=discovery_prefix, echo=typer.echo))
    except (OSError, aiomqtt_errors()) as error:
        typer.echo(f"error: MQTT broker {host}:{port}: {error}", err=True)
        raise typer.Exit(1) from None


def aiomqtt_errors() -> type[Exception]:
    from aiomqtt import MqttError

    return MqttError
