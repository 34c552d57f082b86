"""`homefabric serve` — the fabric in real-time pacing, served as a commissionable Matter bridge.

A thin composition: EmulatedHome (emulator) + RealtimePacer (emulator) + MatterNode/BridgeNode (bridge).

Control socket (for tests and benchmarks): only when ``control`` is given (``serve --control-socket
PATH``, hidden from --help), a Unix socket there — mode 0600, since it is unauthenticated — accepts JSON
lines and answers one JSON line each: ``{"op": "read"|"write"|"invoke", "device", "endpoint", "cluster",
"attribute"|"command", "value"|"args"}`` go through the EmulatedHome (device rules apply),
``"room_state"``/``"set_room_state"`` reach the room environment, ``"now"`` gives the virtual time and
``"endpoints"`` the bridge layout (device id → {device endpoint: bridge endpoint, "device_types": …}).
Answers are ``{"ok": true, "result": …}`` or ``{"ok": false, "error": …}``. A Unix socket is reachable
from any network namespace, which is what a test driving the emulator from outside its namespace needs.
``"automations"`` lists the rules, ``"add_automation"`` (with ``"rule"``) adds one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
from pathlib import Path
from typing import Any

CONTROL_SOCKET_MODE = 0o600  # owner only: the socket reads and writes the home without authentication


async def serve(
    home_path: Path,
    state_dir: Path,
    *,
    speed: float,
    port: int,
    discriminator: int,
    passcode: int,
    interfaces: list[str] | None,
    echo: Any,
    ready: asyncio.Event | None = None,
    stop: asyncio.Event | None = None,
    control: Path | None = None,
    mqtt: tuple[str, int] | None = None,
    mqtt_base: str = "homefabric",
    http: tuple[str, int] | None = None,
    http_token: str | None = None,
    http_access: dict[str, Any] | None = None,
    fresh: bool = False,
    home_id: str | None = None,
    discovery_prefix: str = "homeassistant",
    runs_dir: Path | None = None,
) -> None:
    """``fresh``: start from the home file even when the state directory holds a saved home."""
    from homefabric_cli.state_lock import hold_state_dir

    with hold_state_dir(state_dir):  # a second serve on this state dir stops here, before touching anything
        await _serve_locked(
            home_path,
            state_dir,
            speed=speed,
            port=port,
            discriminator=discriminator,
            passcode=passcode,
            interfaces=interfaces,
            echo=echo,
            ready=ready,
            stop=stop,
            control=control,
            mqtt=mqtt,
            mqtt_base=mqtt_base,
            http=http,
            http_token=http_token,
            http_access=http_access,
            fresh=fresh,
            home_id=home_id,
            discovery_prefix=discovery_prefix,
            runs_dir=runs_dir,
        )


async def _serve_locked(
    home_path: Path,
    state_dir: Path,
    *,
    speed: float,
    port: int,
    discriminator: int,
    passcode: int,
    interfaces: list[str] | None,
    echo: Any,
    ready: asyncio.Event | None,
    stop: asyncio.Event | None,
    control: Path | None,
    mqtt: tuple[str, int] | None,
    mqtt_base: str,
    http: tuple[str, int] | None,
    http_token: str | None,
    http_access: dict[str, Any] | None,
    fresh: bool,
    home_id: str | None,
    discovery_prefix: str,
    runs_dir: Path | None,
) -> None:
    from bridge.matter.codec.persistence import StateStore
    from bridge.matter.node.bridge_node import BridgeNode
    from bridge.matter.node.node import MatterNode
    from emulator.pacing import RealtimePacer
    from homefabric_cli.home_state import HomeSaver, load_served_home

    state_dir.mkdir(parents=True, exist_ok=True)
    from emulator.files import remove_leftover_temp_files

    remove_leftover_temp_files(state_dir)  # what kills left mid-write (we hold the lock: nobody else writes here)
    fabric, origin = load_served_home(home_path, state_dir, fresh=fresh)
    from homefabric_cli.automation_store import keep_automations

    keep_automations(fabric, state_dir, fresh=fresh)  # rules survive restarts and crashes
    store = StateStore(state_dir)
    node = MatterNode(
        lambda root: BridgeNode(fabric, root, store=store),
        state_dir,
        port=port,
        discriminator=discriminator,
        passcode=passcode,
        interfaces=interfaces,
    )
    paa_dir = node.export_paa(state_dir / "paa")
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread (tests)
            loop.add_signal_handler(sig, stop.set)
    async with (
        HomeSaver(fabric, state_dir),
        RealtimePacer(fabric, speed=speed) as pacer,
        contextlib.AsyncExitStack() as wires,
    ):
        await node.start()
        server = await _start_control(control, fabric, node.data_model, pacer) if control else None
        try:
            echo(
                f"serving {fabric.name} ({origin}): {len(fabric.devices())} devices in {len(fabric.rooms())} rooms "
                f"on UDP port {port}, virtual time ×{speed:g} from {fabric.now_text()}"
            )
            echo(f"controllers must trust the test PAA in {paa_dir} (e.g. matter-server --paa-root-cert-dir)")
            echo(node.pairing_text(with_qr=True))
            _write_pairing(state_dir, node, port)
            if mqtt is not None:
                from bridge.mqtt import MqttBridge

                bridge = await wires.enter_async_context(
                    MqttBridge(
                        fabric,
                        mqtt[0],
                        mqtt[1],
                        home_id=home_id or fabric.name,
                        base=mqtt_base,
                        discovery_prefix=discovery_prefix,
                    )
                )
                echo(
                    f"MQTT: {mqtt[0]}:{mqtt[1]}, state under {bridge.topics.root}/…, Home Assistant discovery "
                    f"under {discovery_prefix}/device/…"
                )
            if http is not None:
                from homefabric_cli.http_app import home_http_api

                access = dict(http_access or {})
                if runs_dir is not None:
                    access["runs_dir"] = runs_dir
                api = await wires.enter_async_context(
                    home_http_api(fabric, http[0], http[1], pacer=pacer, token=http_token, **access)
                )
                echo(f"HTTP API and dashboard: {api.url}")
            if ready is not None:
                ready.set()
            await stop.wait()
        finally:
            if server is not None:
                server.close()
                with contextlib.suppress(OSError):
                    os.unlink(control)  # type: ignore[arg-type]
            await node.stop()


def _write_pairing(state_dir: Path, node: Any, port: int) -> None:
    """The pairing codes, for `homefabric commission` and for people (atomic: read while serving)."""
    from emulator.files import write_atomically

    write_atomically(
        state_dir / "pairing.json",
        json.dumps({"manual_code": node.manual_code, "qr_code": node.qr_payload, "port": port}, indent=2) + "\n",
    )


# ---------------------------------------------------------------------------------- control socket
async def _start_control(path: Path, fabric: Any, bridge: Any, pacer: Any) -> asyncio.AbstractServer:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()

    async def client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while line := await reader.readline():
                try:
                    pacer.catch_up()  # answers reflect virtual time "now", not the last pacer step
                    answer: dict[str, Any] = {"ok": True, "result": _control(json.loads(line), fabric, bridge)}
                except Exception as error:  # every failure goes back to the caller
                    answer = {"ok": False, "error": f"{type(error).__name__}: {error}"}
                writer.write(json.dumps(answer, default=str).encode() + b"\n")
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # bind under a umask that leaves owner-only bits, so the socket is never reachable by others, not even
    # between bind and a chmod
    previous = os.umask(0o777 & ~CONTROL_SOCKET_MODE)
    try:
        listener.bind(str(path))
    except OSError:
        listener.close()
        raise
    finally:
        os.umask(previous)
    return await asyncio.start_unix_server(client, sock=listener)


def _control(request: dict[str, Any], fabric: Any, bridge: Any) -> Any:
    op = request["op"]
    if op == "read":
        return fabric.read(request["device"], request["endpoint"], request["cluster"], request["attribute"])
    if op == "write":
        return fabric.write(
            request["device"], request["endpoint"], request["cluster"], request["attribute"], request["value"]
        ).to_dict()
    if op == "invoke":
        return fabric.invoke(
            request["device"], request["endpoint"], request["cluster"], request["command"], request.get("args")
        ).to_dict()
    if op == "room_state":
        return fabric.room_state(request["room"])
    if op == "set_room_state":
        fabric.set_room_state(request["room"], request["variable"], request["value"])
        return None
    if op == "now":
        return {"tick": fabric.tick, "time": fabric.now_text()}
    if op == "automations":
        return [fabric.automation_status(rule.id) for rule in fabric.automations()]
    if op == "add_automation":
        return fabric.add_automation(request["rule"]).model_dump(mode="json")
    if op == "endpoints":
        layout: dict[str, Any] = {}
        for number, (device_id, device_ep) in sorted(bridge.bridged_endpoints().items()):
            entry = layout.setdefault(device_id, {"endpoints": {}, "device_types": {}})
            entry["endpoints"][str(device_ep)] = number
            entry["device_types"][str(number)] = [t[0] for t in bridge.device_types(number)]
        return layout
    raise ValueError(f"unknown op {op!r}")
