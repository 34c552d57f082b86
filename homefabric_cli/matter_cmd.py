"""`homefabric matter map` — a mapping file written from a live Matter home (python-matter-server), to edit.

The devices, ids, names, rooms, types and endpoint numbering are what the Matter tool backend discovers by
itself (``agent_tools.matter_backend.discovery``); the file names each device by its identity, so it keeps
working when a device is commissioned again. Mount with ``app.add_typer(matter_app, name="matter")``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

matter_app = typer.Typer(
    help="Homes of commissioned Matter devices (through python-matter-server).", no_args_is_help=True
)

MatterServerUrl = Annotated[
    str, typer.Option("--matter-server", help="python-matter-server's websocket, e.g. ws://127.0.0.1:5580/ws")
]


def fail(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)
    raise typer.Exit(2)


def checked_output(path: Path) -> Path:
    from emulator.output_paths import output_file_problem

    problem = output_file_problem(path, "--out")
    if problem:
        fail(problem)
    return path


def live_nodes(url: str) -> list[dict[str, Any]]:
    """Every node python-matter-server holds (its interview), or a one-line error and exit 2."""
    from agent_tools.matter_backend import MatterServerConnection, MatterServerError

    if not url.startswith(("ws://", "wss://", "http://", "https://")):
        fail(f"--matter-server {url!r}: give a websocket URL, e.g. ws://127.0.0.1:5580/ws")
    try:
        with MatterServerConnection(url) as connection:
            return connection.open()
    except MatterServerError as error:
        fail(str(error))
    raise AssertionError("unreachable")


@matter_app.command("map")
def map_command(
    matter_server: MatterServerUrl, out: Annotated[Path, typer.Option("--out", help="the mapping file to write")]
) -> None:
    """Write a mapping file (devices by identity, with ids, names, rooms, types, endpoints) from the live home."""
    from agent_tools.matter_backend import MappingError
    from agent_tools.matter_backend.discovery import discover, mapping_from
    from emulator.files import write_atomically

    checked_output(out)
    try:
        devices = discover(live_nodes(matter_server))
    except MappingError as error:
        fail(str(error))
    mapping = mapping_from(devices)
    write_atomically(out, mapping.model_dump_json(indent=2, exclude_none=True) + "\n")
    print(f"wrote {out}: {len(mapping.devices)} devices in {len(mapping.rooms)} rooms")


def twin_command(
    matter_server: MatterServerUrl,
    out: Annotated[Path, typer.Option("--out", help="the home file to write")],
    mapping: Annotated[
        Path | None,
        typer.Option("--mapping", help="a mapping file (`homefabric matter map`) naming the devices and rooms"),
    ] = None,
    name: Annotated[str, typer.Option("--name", help="the home's name")] = "matter twin",
) -> None:
    """Write an emulated twin of the live Matter home: its devices (catalogue types by their device types), rooms,
    names and current values; what the emulator cannot copy is listed in extensions.matter_twin."""
    from datetime import datetime

    from agent_tools.matter_backend import MappingError, load_mapping
    from agent_tools.matter_backend.discovery import discover, from_mapping, rooms_for
    from agent_tools.matter_backend.twin import TWIN_KEY, twin_home
    from emulator.clock import TIME_FORMAT
    from emulator.files import write_atomically
    from emulator.home_config import HomeConfig, dump_home

    checked_output(out)
    try:
        loaded = load_mapping(mapping) if mapping is not None else None
        nodes = live_nodes(matter_server)
        devices = from_mapping(loaded, nodes) if loaded is not None else discover(nodes)
    except MappingError as error:
        fail(str(error))
    data = twin_home(
        nodes,
        devices,
        rooms_for(devices, loaded),
        name=name,
        base_time=datetime.now().strftime(TIME_FORMAT),
        source=matter_server,
    )
    config = HomeConfig.model_validate(data)
    write_atomically(out, dump_home(config))
    report = data["extensions"][TWIN_KEY]
    differing = sorted(d for d, r in report["devices"].items() if any(r.values()))
    print(
        f"wrote {out}: {len(config.devices)} devices in {len(config.rooms)} rooms; left out "
        f"{len(report['left_out'])} ({', '.join(e['device_id'] for e in report['left_out']) or 'none'}); "
        f"{len(differing)} differ from the live device in served attributes or features "
        f"(extensions.{TWIN_KEY})"
    )
