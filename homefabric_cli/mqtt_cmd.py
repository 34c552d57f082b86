"""`homefabric mqtt HOME --broker HOST:PORT` — a home in real-time pacing on an MQTT broker only.

A thin composition: EmulatedHome + RealtimePacer (emulator) + MqttBridge (bridge.mqtt), no Matter. Mount
with ``app.command("mqtt")(mqtt_command)``; ``parse_broker`` also serves `serve --mqtt HOST:PORT`.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path
from typing import Annotated, Any

import typer

from homefabric_cli.options import (
    DEFAULT_DISCOVERY_PREFIX,
    DEFAULT_MQTT_BASE,
    DiscoveryPrefix,
    HomeId,
    MqttBase,
    Speed,
    topic_base_problem,
)


def parse_broker(text: str, *, what: str = "broker", default_port: int = 1883, min_port: int = 1) -> tuple[str, int]:
    """ "HOST:PORT" (or "HOST", port 1883; "[v6addr]:PORT") → (host, port); ValueError naming what is wrong.

    A listen address (`serve --http`) passes ``min_port=0``: port 0 picks a free one."""
    text = text.strip()
    host, port_text = text, str(default_port)
    if text.startswith("["):
        close = text.find("]")
        if close < 0:
            raise ValueError(f"{what} {text!r}: missing ']' after an IPv6 address")
        host, rest = text[1:close], text[close + 1 :]
        if rest:
            if not rest.startswith(":"):
                raise ValueError(f"{what} {text!r}: expected ':PORT' after ']'")
            port_text = rest[1:]
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    if not host:
        raise ValueError(f"{what} {text!r}: no host (expected HOST:PORT, e.g. 127.0.0.1:1883)")
    if not port_text.isdigit() or not min_port <= int(port_text) <= 65535:
        raise ValueError(f"{what} {text!r}: port {port_text!r} is not {min_port}..65535")
    return host, int(port_text)


async def run_mqtt(
    home_path: Path,
    host: str,
    port: int,
    *,
    speed: float,
    base: str,
    home_id: str | None,
    discovery_prefix: str,
    echo: Any,
    stop: asyncio.Event | None = None,
) -> None:
    from bridge.mqtt import MqttBridge
    from emulator.emulated_home import EmulatedHome
    from emulator.pacing import RealtimePacer

    fabric = EmulatedHome.from_file(str(home_path))
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread (tests)
            loop.add_signal_handler(sig, stop.set)
    home = home_id or fabric.name
    async with (
        RealtimePacer(fabric, speed=speed),
        MqttBridge(fabric, host, port, home_id=home, base=base, discovery_prefix=discovery_prefix) as bridge,
    ):
        echo(
            f"serving {fabric.name}: {len(fabric.devices())} devices on MQTT {host}:{port} under "
            f"{bridge.topics.root}/ (discovery under {discovery_prefix}/), virtual time ×{speed:g} from "
            f"{fabric.now_text()}; Ctrl-C stops"
        )
        await stop.wait()


def mqtt_command(
    home: Annotated[Path, typer.Argument(help="Home configuration (JSON or YAML).", exists=True, dir_okay=False)],
    broker: Annotated[str, typer.Option("--broker", help="MQTT broker HOST:PORT.")] = "127.0.0.1:1883",
    speed: Speed = 1.0,
    base: MqttBase = DEFAULT_MQTT_BASE,
    home_id: HomeId = None,
    discovery_prefix: DiscoveryPrefix = DEFAULT_DISCOVERY_PREFIX,
) -> None:
    """Run a home on an MQTT broker only (no Matter): retained state, commands, Home Assistant discovery."""
    try:
        host, port = parse_broker(broker)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--broker") from None
    if problem := topic_base_problem(base):
        typer.echo(f"error: {problem}", err=True)
        raise typer.Exit(2)
    from emulator.home_config import HomeConfigError, load_home

    try:
        load_home(home)  # a bad file is one error naming each problem, before connecting anywhere
    except HomeConfigError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None
    try:
        asyncio.run(
            run_mqtt(
                home,
                host,
                port,
                speed=speed,
                base=base,
                home_id=home_id,
                discovery_prefix=discovery_prefix,
                echo=typer.echo,
            )
        )
    except (OSError, aiomqtt_errors()) as error:
        typer.echo(f"error: MQTT broker {host}:{port}: {error}", err=True)
        raise typer.Exit(1) from None


def aiomqtt_errors() -> type[Exception]:
    from aiomqtt import MqttError

    return MqttError
