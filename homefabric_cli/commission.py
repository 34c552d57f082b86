"""`homefabric commission` — have python-matter-server commission the emulated home, then list what it sees.

It speaks matter-server's websocket API (``agent_tools.matter_backend.ws_client``):
``commission_with_code(code, network_only=True)`` and, when the home is already commissioned into that
server, ``get_node``. The pairing code comes from ``--code``, else from
``<state-dir>/pairing.json`` (written by ``homefabric serve``), else it is computed from the passcode and
discriminator the emulator was started with (the defaults of ``homefabric serve`` unless given).

The emulator's state directory also tells whether the home is already commissioned: its fabric table
lists the fabrics it belongs to, and the one whose compressed fabric id equals the server's is this
server's, with our node id in it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

if TYPE_CHECKING:  # imported where used: `homefabric --help` must not load the Matter model (chip, clusters)
    from agent_tools.matter_backend.ws_client import MatterServerClient

DEFAULT_URL = "ws://127.0.0.1:5580/ws"
DEFAULT_PASSCODE, DEFAULT_DISCRIMINATOR = 20202021, 3840  # homefabric serve's defaults

# Exit codes (scripts can tell the failures apart).
EXIT_BAD_INPUT, EXIT_UNREACHABLE, EXIT_FAILED, EXIT_COMMISSIONED_ELSEWHERE = 2, 3, 4, 5
# Matter commissions over IPv6 found by mDNS: loopback alone (lo has no link-local address, no multicast) fails.
NETWORK_HINT = (
    " Matter needs IPv6 and mDNS between matter-server and the emulator on one interface that is not "
    "loopback-only: check `ip -6 addr` shows an fe80:: address there, that IPv6 is not disabled "
    "(sysctl net.ipv6.conf.all.disable_ipv6=0), and start the emulator with `serve --interface IFACE` "
    "on it (or run both in docker compose)."
)


class CommissionError(Exception):
    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


# ---------------------------------------------------------------------------------- inputs
class PairingFile(BaseModel):
    """``<state-dir>/pairing.json``: at least the manual pairing code."""

    model_config = ConfigDict(extra="allow")
    manual_code: str

    @field_validator("manual_code")
    @classmethod
    def _digits(cls, value: str) -> str:
        return normalise_code(value)


def normalise_code(code: str) -> str:
    """A manual code (11 or 21 digits, dashes and spaces allowed) or an ``MT:`` QR payload."""
    text = code.strip()
    if text.upper().startswith("MT:"):
        return "MT:" + text[3:]
    digits = text.replace("-", "").replace(" ", "")
    if not digits.isdigit() or len(digits) not in (11, 21):
        raise ValueError(f"pairing code {code!r} is neither an 11- or 21-digit manual code nor an MT: QR payload")
    return digits


@dataclass
class PairingCode:
    code: str
    source: str  # where it came from, said to the user


def resolve_code(code: str | None, state_dir: Path | None, passcode: int, discriminator: int) -> PairingCode:
    if code is not None:
        try:
            return PairingCode(normalise_code(code), "--code")
        except ValueError as error:
            raise CommissionError(f"--code: {error}", EXIT_BAD_INPUT) from error
    if state_dir is not None and (state_dir / "pairing.json").is_file():
        path = state_dir / "pairing.json"
        try:
            return PairingCode(PairingFile.model_validate_json(path.read_text()).manual_code, str(path))
        except (OSError, ValidationError) as error:
            raise CommissionError(
                f"{path}: not a pairing file with a valid 'manual_code': {error}", EXIT_BAD_INPUT
            ) from error
    from bridge.matter.node.node import DEFAULT_PRODUCT_ID, DEFAULT_VENDOR_ID
    from bridge.matter.node.setup_payload import SetupPayload

    if not 0 <= discriminator <= 0xFFF:
        raise CommissionError(f"--discriminator must be 0..4095, got {discriminator}", EXIT_BAD_INPUT)
    manual = SetupPayload(passcode, discriminator, DEFAULT_VENDOR_ID, DEFAULT_PRODUCT_ID).manual_code()
    return PairingCode(manual, f"computed from passcode {passcode} and discriminator {discriminator}")


def fabrics_in_state(state_dir: Path | None) -> dict[int, int]:
    """The emulator's fabrics from its state directory: compressed fabric id → our node id there."""
    if state_dir is None or not (state_dir / "fabrics.json").is_file():
        return {}
    from bridge.matter.codec.persistence import CorruptStateError
    from bridge.matter.session.fabric_table import FabricRecord
    from homefabric_cli.state_check import check_fabrics

    try:
        check_fabrics(state_dir)
    except CorruptStateError as error:
        raise CommissionError(str(error), EXIT_BAD_INPUT) from None
    document = json.loads((state_dir / "fabrics.json").read_text())
    found: dict[int, int] = {}
    for entry in document.get("fabrics", []):
        record = FabricRecord(**entry)
        found[int.from_bytes(record.compressed_fabric_id, "big")] = record.node_id
    return found


# ---------------------------------------------------------------------------------- what the server sees
@dataclass
class BridgedDevice:
    endpoint: int
    label: str | None
    room: str | None
    device_types: list[int]
    device_type_names: list[str]
    parts: list[int] = field(default_factory=list)


def device_type_name(device_type: int) -> str:
    """The official name (from python-matter-server where installed), else our catalogue's label."""
    try:
        from matter_server.client.models.device_types import ALL_TYPES

        if device_type in ALL_TYPES:
            return ALL_TYPES[device_type].__name__
    except ImportError:
        pass
    from emulator.catalogue import CATALOGUE

    for spec in CATALOGUE.values():
        if spec.primary_device_type == device_type:
            return spec.label
    return f"0x{device_type:04X}"


def bridged_devices(node: dict[str, Any]) -> list[BridgedDevice]:
    """Every endpoint of a node whose descriptor carries the Bridged Node device type, with its labels."""
    from chip.clusters import Objects as Clusters

    from clusters.device_types import BRIDGED_NODE

    def path(endpoint: int, attribute: Any) -> str:
        return f"{endpoint}/{attribute.cluster_id}/{attribute.attribute_id}"

    descriptor, bridged = Clusters.Descriptor.Attributes, Clusters.BridgedDeviceBasicInformation.Attributes
    attributes: dict[str, Any] = node.get("attributes") or {}
    endpoints = sorted({int(key.split("/")[0]) for key in attributes})
    devices = []
    for endpoint in endpoints:
        types = [entry["0"] for entry in attributes.get(path(endpoint, descriptor.DeviceTypeList)) or []]
        if BRIDGED_NODE[0] not in types:
            continue
        own = [t for t in types if t != BRIDGED_NODE[0]]
        labels = attributes.get(path(endpoint, Clusters.FixedLabel.Attributes.LabelList)) or []
        room = next((entry["1"] for entry in labels if entry.get("0") == "room"), None)
        devices.append(
            BridgedDevice(
                endpoint=endpoint,
                label=attributes.get(path(endpoint, bridged.NodeLabel)),
                room=room,
                device_types=own,
                device_type_names=[device_type_name(t) for t in own],
                parts=list(attributes.get(path(endpoint, descriptor.PartsList)) or []),
            )
        )
    return devices


@dataclass
class Outcome:
    node_id: int
    already_commissioned: bool
    seconds: float
    code_source: str
    devices: list[BridgedDevice]


# ---------------------------------------------------------------------------------- the websocket
@contextlib.asynccontextmanager
async def connect(url: str, connect_timeout_s: float) -> AsyncIterator[MatterServerClient]:
    """Connect, retrying while the server is still starting (``docker compose up`` just returned)."""
    from agent_tools.matter_backend.ws_client import MatterServerClient, MatterServerError

    client = MatterServerClient(url, timeout_s=15)
    try:
        await client.connect(retry_for_s=connect_timeout_s)
    except MatterServerError as error:
        raise CommissionError(
            f"{error.details} (is it running? `docker compose ps`, or `scripts/up matter-server`)", EXIT_UNREACHABLE
        ) from error
    try:
        yield client
    finally:
        await client.close()


async def call(client: MatterServerClient, command: str, timeout_s: float, **args: Any) -> Any:
    """``client.call`` with a refusal as a CommissionError naming the server's error (a timeout stays one)."""
    from agent_tools.matter_backend.ws_client import MatterServerError, MatterServerTimeout

    try:
        return await client.call(command, timeout_s=timeout_s, **args)
    except MatterServerTimeout:
        raise
    except MatterServerError as error:
        raise CommissionError(
            f"matter-server answered {command} with {error.error_name} (error {error.error_code}): {error.details}",
            EXIT_FAILED,
        ) from error


async def commission_home(
    url: str, pairing: PairingCode, state_dir: Path | None, *, timeout_s: float, connect_timeout_s: float
) -> Outcome:
    started = time.monotonic()
    async with connect(url, connect_timeout_s) as client:
        fabrics = fabrics_in_state(state_dir)
        server_fabric = client.server_info.get("compressed_fabric_id")
        if server_fabric in fabrics:  # already in this server's fabric: show it, change nothing
            node_id = fabrics[server_fabric]
            try:
                node = await call(client, "get_node", 30, node_id=node_id)
            except CommissionError as error:
                raise CommissionError(
                    f"the emulator ({state_dir}) is already commissioned into this matter-server's fabric as node "
                    f"{node_id}, but the server does not have that node: {error}. Remove the emulator's state "
                    "directory to commission it afresh.",
                    EXIT_COMMISSIONED_ELSEWHERE,
                ) from error
            return Outcome(node_id, True, time.monotonic() - started, pairing.source, bridged_devices(node))
        if fabrics:
            raise CommissionError(
                f"the emulator ({state_dir}) is already commissioned into {len(fabrics)} other fabric(s), so its "
                "commissioning window is closed; open one from that controller (multi-admin), or start the "
                "emulator with a fresh --state-dir",
                EXIT_COMMISSIONED_ELSEWHERE,
            )
        try:
            node = await call(client, "commission_with_code", timeout_s, code=pairing.code, network_only=True)
        except TimeoutError as error:
            raise CommissionError(
                f"commissioning did not finish within {timeout_s:g} s (is the emulator running on this network, "
                "with mDNS reaching the matter-server? is it already commissioned? pass --state-dir to check)",
                EXIT_FAILED,
            ) from error
        except CommissionError as error:
            hint = "" if state_dir else " If the emulator is already commissioned, pass --state-dir to see where."
            if "NodeCommissionFailed" in str(error):
                hint += NETWORK_HINT
            raise CommissionError(f"{error}.{hint}", error.exit_code) from error
        return Outcome(int(node["node_id"]), False, time.monotonic() - started, pairing.source, bridged_devices(node))


# ---------------------------------------------------------------------------------- the command
def _default_state_dir() -> Path | None:
    data = os.environ.get("HOMEFABRIC_DATA")  # set in the emulator image: `docker compose exec emulator ...`
    return Path(data) / "state" if data and (Path(data) / "state").is_dir() else None


def commission_command(
    matter_server: Annotated[
        str, typer.Option("--matter-server", envvar="MATTER_SERVER_URL", help="matter-server websocket URL.")
    ] = DEFAULT_URL,
    code: Annotated[
        str | None,
        typer.Option(
            help="Manual pairing code or MT: QR payload (default: from the "
            "state dir, else computed from passcode/discriminator)."
        ),
    ] = None,
    state_dir: Annotated[
        Path | None,
        typer.Option(
            "--state-dir", help="The emulator's state dir (pairing.json, fabrics); default $HOMEFABRIC_DATA/state."
        ),
    ] = None,
    passcode: Annotated[int, typer.Option(help="Setup PIN the emulator was started with.")] = DEFAULT_PASSCODE,
    discriminator: Annotated[
        int, typer.Option(help="Discriminator the emulator was started with.")
    ] = DEFAULT_DISCRIMINATOR,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for commissioning.")] = 180.0,
    connect_timeout: Annotated[float, typer.Option(help="Seconds to keep trying to reach matter-server.")] = 30.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Commission the emulated home into python-matter-server and list the bridged devices it sees."""
    from rich.table import Table

    from homefabric_cli.terminal import output_console

    console, errors = output_console(), output_console(stderr=True, soft_wrap=True)
    state = state_dir if state_dir is not None else _default_state_dir()
    try:
        pairing = resolve_code(code, state, passcode, discriminator)
        if not as_json:
            errors.print(f"pairing code {pairing.code} ({pairing.source}); asking {matter_server} to commission…")
        outcome = asyncio.run(
            commission_home(matter_server, pairing, state, timeout_s=timeout, connect_timeout_s=connect_timeout)
        )
    except CommissionError as error:
        errors.print(f"[bold red]error:[/] {error}")
        raise typer.Exit(error.exit_code) from None
    if as_json:
        print(json.dumps({**asdict(outcome), "seconds": round(outcome.seconds, 2)}, indent=2))
        return
    verb = "already commissioned as" if outcome.already_commissioned else "commissioned"
    console.print(f"{verb} node {outcome.node_id} in {outcome.seconds:.1f} s: {len(outcome.devices)} bridged devices")
    table = Table()
    for column in ("endpoint", "device", "room", "device types", "parts"):
        table.add_column(column)
    for device in outcome.devices:
        types = ", ".join(
            f"{name} (0x{t:04X})" for t, name in zip(device.device_types, device.device_type_names, strict=True)
        )
        table.add_row(
            str(device.endpoint), device.label or "", device.room or "", types, ", ".join(map(str, device.parts))
        )
    console.print(table)


if __name__ == "__main__":  # `python -m homefabric_cli.commission`, the same command without the main CLI
    typer.run(commission_command)
