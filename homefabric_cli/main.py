"""`homefabric` — devices, homes and simulation from the command line."""

from __future__ import annotations

import functools
import json
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from emulator.output_paths import output_file_problem
from homefabric_cli import http_cmd
from homefabric_cli.durations import parse_duration
from homefabric_cli.options import (
    DEFAULT_DISCOVERY_PREFIX,
    DEFAULT_MQTT_BASE,
    DiscoveryPrefix,
    HomeId,
    MqttBase,
    RunsDir,
    Speed,
    Token,
)
from homefabric_cli.terminal import HELP_OPTIONS, output_console, runnable_command

if TYPE_CHECKING:  # the fabric is imported when a command needs it (startup time)
    from rich.console import Console

    from emulator.emulated_home import EmulatedHome

APP_SETTINGS: dict[str, Any] = {
    "help": "homefabric: a Matter-faithful smart-home emulator and agent benchmark.",
    "no_args_is_help": True,
    "pretty_exceptions_enable": False,
    "context_settings": HELP_OPTIONS,
}
# The root holds the callback only: the commands and groups are added when the console script runs, all of them
# (whole_app) or one group (app_for), so that a command imports no other command's module (a `bench run` loads no
# server, speech or training command: tests/test_cli_startup.py pins it).
_root = typer.Typer(**APP_SETTINGS)
devices_app = typer.Typer(help="The device catalogue.", no_args_is_help=True)
home_app = typer.Typer(help="Home configurations.", no_args_is_help=True)
sim_app = typer.Typer(help="Run the emulated home in virtual time.", no_args_is_help=True)


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"homefabric {version('homefabric')}")
        except PackageNotFoundError:
            typer.echo("homefabric (not installed as a package)")
        raise typer.Exit()


@_root.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """homefabric: a Matter-faithful smart-home emulator and agent benchmark."""


# The consoles are made when a command first prints: rich loads then, not on every start (a `bench run` loads it
# after its episodes; tests/test_cli_startup.py pins it).
@functools.cache
def _console() -> Console:
    return output_console()


@functools.cache
def _err_console() -> Console:
    return output_console(stderr=True, soft_wrap=True)  # one error, one line


def _fail(message: str) -> None:
    _err_console().print(f"[bold red]error:[/] {message}")
    raise typer.Exit(2)


def _duration(text: str) -> float:
    try:
        return parse_duration(text)
    except ValueError as error:
        _fail(f"--for: {error}")
    raise AssertionError  # _fail exits


def _load(path: Path) -> Any:
    from emulator.emulated_home import EmulatedHome
    from emulator.home_config import HomeConfigError, load_home

    try:
        return EmulatedHome(load_home(path))
    except HomeConfigError as error:
        _fail(str(error))
    except Exception as error:  # HomeError while placing devices: name it, no traceback
        from emulator.errors import HomeError

        if isinstance(error, HomeError):
            _fail(f"{path}: {error.message}")
        raise


# ---------------------------------------------------------------------------------- devices
@devices_app.command("types")
def devices_types(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """List the catalogue: name, device-type id, endpoints and clusters."""
    from emulator.catalogue_index import catalogue_rows

    rows = catalogue_rows()  # cached: no need to load the whole Matter model to list it
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    from rich.table import Table

    table = Table(title=f"{len(rows)} device types")
    for column in ("name", "device type", "endpoints → clusters", "origin"):
        table.add_column(column)
    for row in rows:
        eps = "\n".join(f"{e['endpoint']}: {', '.join(e['clusters'])}" for e in row["endpoints"])
        table.add_row(row["name"], f"0x{row['device_type_id']:04X}", eps, row["origin"])
    _console().print(table)


# ---------------------------------------------------------------------------------- home
def home_generate(
    tier: Annotated[str, typer.Option(help="simuhome, simple, medium, complex or stress.")] = "complex",
    seed: Annotated[int, typer.Option(help="Same seed, same home (byte-identical).")] = 1,
    out: Annotated[Path | None, typer.Option(help="Output file (default: stdout).")] = None,
) -> None:
    """Generate a seeded home."""
    from emulator.files import write_atomically
    from emulator.home_config import dump_home
    from emulator.home_generation.generator import generate_home
    from emulator.home_generation.params import TIERS

    if tier not in TIERS:
        _fail(f"unknown tier {tier!r}; choose one of {', '.join(TIERS)}")
    if out is not None and (problem := output_file_problem(out, "--out")):
        _fail(problem)
    text = dump_home(generate_home(tier, seed))
    if out is None:
        sys.stdout.write(text)
    else:
        write_atomically(out, text)
        _err_console().print(f"wrote {out}")


def home_show(
    path: Path,
    as_json: Annotated[bool, typer.Option("--json")] = False,
    view: Annotated[str, typer.Option("--format", help="table | smh (the SMH-Bench HomeEnv view, JSON)")] = "table",
) -> None:
    """Show a home: rooms, their environment and devices."""
    if view not in ("table", "smh"):
        _fail(f"--format {view!r} is not known; allowed: table, smh")
    fabric = _load(path)
    if view == "smh":
        from agent_tools.smh.home_env import HomeEnv

        print(json.dumps(HomeEnv(fabric).export(), indent=2))
        return
    if as_json:
        print(json.dumps(fabric.snapshot(), indent=2))
        return
    from rich.table import Table

    table = Table(
        title=f"{fabric.name}: {len(fabric.rooms())} rooms, {len(fabric.devices())} devices at {fabric.now_text()}"
    )
    for column in ("room", "floor", "parent", "°C", "% RH", "lux", "PM10", "devices"):
        table.add_column(column)
    for room in fabric.rooms():
        state = fabric.room_state(room.room_id)
        devices = ", ".join(d.device_id for d in fabric.devices(room.room_id))
        table.add_row(
            room.room_id,
            str(room.floor),
            room.parent or "",
            f"{state['temperature'] / 100:.2f}",
            f"{state['humidity'] / 100:.2f}",
            f"{state['illuminance']:.0f}",
            f"{state['pm10']:.1f}",
            devices,
        )
    _console().print(table)


# ---------------------------------------------------------------------------------- sim
def simulate(fabric: EmulatedHome, seconds: float, *, progress: bool) -> dict[str, Any]:
    """Advance in hour-sized chunks (so the progress moves: a bar on a terminal, plain lines in a log, on stderr);
    returns timing figures."""
    from benchmark.runs.progress import WorkProgress

    chunk = 3600.0
    started = time.perf_counter()
    events = 0
    hours = max(1, math.ceil(seconds / chunk))
    with WorkProgress("simulating (virtual hours)", hours, enabled=progress, transient=True) as bar:
        done = 0.0
        while done < seconds:
            step = min(chunk, seconds - done)
            events += fabric.advance(step)
            done += step
            bar.advance(detail=f"{done:.0f}/{seconds:.0f} s")
    wall = time.perf_counter() - started
    return {
        "simulated_s": seconds,
        "wall_s": round(wall, 4),
        "events": events,
        "speedup": round(seconds / wall, 1) if wall > 0 else None,
    }


@sim_app.command("run")
def sim_run(
    path: Path,
    duration: Annotated[str, typer.Option("--for", help="Virtual time to simulate, e.g. 24h, 90m, 1h30m.")] = "1h",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Advance a home's virtual time and print the final room states and the wall time it took."""
    seconds = _duration(duration)
    fabric = _load(path)
    figures = simulate(fabric, seconds, progress=not as_json)
    rooms = {r.room_id: fabric.room_state(r.room_id) for r in fabric.rooms()}
    if as_json:
        print(json.dumps({"home": fabric.name, "time": fabric.now_text(), **figures, "rooms": rooms}, indent=2))
        return
    _print_rooms(fabric, rooms)
    _console().print(
        f"simulated {seconds:.0f} s in {figures['wall_s']:.3f} s wall "
        f"({figures['speedup']}× real time, {figures['events']} events)"
    )


def _print_rooms(fabric: EmulatedHome, rooms: dict[str, dict[str, float]]) -> None:
    from rich.table import Table

    table = Table(title=f"room states at {fabric.now_text()}")
    for column in ("room", "°C", "% RH", "lux", "PM10"):
        table.add_column(column)
    for room_id, state in rooms.items():
        table.add_row(
            room_id,
            f"{state['temperature'] / 100:.2f}",
            f"{state['humidity'] / 100:.2f}",
            f"{state['illuminance']:.0f}",
            f"{state['pm10']:.1f}",
        )
    _console().print(table)


@sim_app.command("demo")
def sim_demo(seed: Annotated[int, typer.Option()] = 7, duration: Annotated[str, typer.Option("--for")] = "24h") -> None:
    """Generate a complex home, run appliances and climate for a day, print a summary."""
    seconds = _duration(duration)  # before any work
    from emulator.emulated_home import EmulatedHome
    from emulator.home_generation.generator import generate_home
    from emulator.scenarios import start_typical_day

    fabric = EmulatedHome(generate_home("complex", seed))
    _console().print(
        f"[bold]{fabric.name}[/]: {len(fabric.rooms())} rooms, {len(fabric.devices())} devices, "
        f"{len({d.device_type for d in fabric.devices()})} device types, start {fabric.now_text()}"
    )
    before = fabric.snapshot()
    actions = start_typical_day(fabric)
    _console().print(f"started the day: {len(actions)} device actions (ACs cooling, appliances running, lights on)")
    figures = simulate(fabric, seconds, progress=True)
    changes = EmulatedHome.diff(before, fabric.snapshot())
    _print_rooms(fabric, {r.room_id: fabric.room_state(r.room_id) for r in fabric.rooms()})
    _console().print(
        f"{len(changes)} state changes over the day; simulated {figures['simulated_s']:.0f} s in "
        f"{figures['wall_s']:.3f} s wall ({figures['speedup']}× real time, {figures['events']} events)"
    )


def serve(
    home: Annotated[Path, typer.Argument(help="Home file (homefabric-home/1, JSON or YAML).")],
    state_dir: Annotated[
        Path,
        typer.Option(
            "--state-dir", help="Fabrics, keys, counters, endpoint map (one serve at a time: serve.lock names its PID)."
        ),
    ],
    speed: Speed = 1.0,
    port: Annotated[int, typer.Option(min=0, max=65535, help="Matter UDP port (0 picks a free one).")] = 5540,
    discriminator: Annotated[int, typer.Option(help="12-bit commissioning discriminator.")] = 3840,
    passcode: Annotated[
        int,
        typer.Option(
            help="Setup PIN code (1..99999998, not a trivial one such as 11111111 or 12345678: Matter Core §5.1.7.1)."
        ),
    ] = 20202021,
    interface: Annotated[list[str] | None, typer.Option(help="Network interface(s) for mDNS.")] = None,
    mqtt: Annotated[str | None, typer.Option(help="Also serve on this MQTT broker, HOST:PORT.")] = None,
    mqtt_base: MqttBase = DEFAULT_MQTT_BASE,
    home_id: HomeId = None,
    discovery_prefix: DiscoveryPrefix = DEFAULT_DISCOVERY_PREFIX,
    http: Annotated[str | None, typer.Option(help="Also serve the HTTP API and dashboard on HOST:PORT.")] = None,
    http_token: Token = None,
    runs_dir: RunsDir = None,
    episodes_root: Annotated[Path | None, http_cmd.EPISODES_ROOT] = None,
    allow_model_endpoint: Annotated[list[str] | None, http_cmd.ALLOW_MODEL_ENDPOINT] = None,
    model_key_env: Annotated[list[str] | None, http_cmd.MODEL_KEY_ENV] = None,
    allow_origin: Annotated[list[str] | None, http_cmd.ALLOW_ORIGIN] = None,
    fresh: Annotated[bool, typer.Option(help="Start from HOME, not from the home saved in --state-dir.")] = False,
    log_level: Annotated[
        str,
        typer.Option(
            "--log-level", help="debug, info, warning or error (stderr; Matter events as event=NAME key=value)."
        ),
    ] = "info",
    control_socket: Annotated[
        Path | None,
        typer.Option(
            "--control-socket", hidden=True, help="Unauthenticated JSON control socket (mode 0600), for tests."
        ),
    ] = None,
) -> None:
    """Serve the home as a Matter bridge (every device a bridged endpoint) in real-time pacing, and
    optionally on MQTT (Home Assistant discovery) and HTTP (API + dashboard), all on one fabric."""
    import asyncio

    from bridge.matter.session.pase import is_valid_passcode
    from homefabric_cli.mqtt_cmd import parse_broker
    from homefabric_cli.options import public_bind_warning, topic_base_problem
    from homefabric_cli.preflight import host_problem, tcp_port_problem, udp_port_problem
    from homefabric_cli.serve import serve as run_serve
    from homefabric_cli.serve_logging import LOG_LEVELS, configure_logging
    from homefabric_cli.state_lock import StateDirInUse

    if log_level not in LOG_LEVELS:
        _fail(f"--log-level must be one of {', '.join(LOG_LEVELS)}, got {log_level!r}")
    if not 0 <= discriminator <= 0xFFF:
        _fail(f"--discriminator must be 0..4095, got {discriminator}")
    if not is_valid_passcode(passcode):
        _fail(
            f"--passcode {passcode:08d} is not allowed: Matter Core §5.1.7.1 needs 1..99999998 and forbids "
            "00000000, 11111111, …, 99999999, 12345678 and 87654321"
        )
    if problem := topic_base_problem(mqtt_base):
        _fail(problem)
    try:
        broker = parse_broker(mqtt, what="--mqtt") if mqtt else None
        http_address = parse_broker(http, what="--http", default_port=8080, min_port=0) if http else None
    except ValueError as error:
        _fail(str(error))
    if http_address is not None and (warning := public_bind_warning(http_address[0], http_token)):
        _err_console().print(warning, markup=False, highlight=False)
    http_access = http_cmd.access_options(episodes_root, allow_model_endpoint, model_key_env, allow_origin)
    _load(home)  # validates the file with a clear message before anything starts
    from bridge.matter.codec.persistence import CorruptStateError
    from homefabric_cli.automation_store import STORE_NAME, AutomationStoreError, load_rules
    from homefabric_cli.home_state import StateFileError

    if (state_dir / STORE_NAME).exists():
        try:
            load_rules(state_dir / STORE_NAME)
        except AutomationStoreError as error:
            _fail(str(error))
    from homefabric_cli.state_check import check_fabrics

    try:
        check_fabrics(state_dir)
    except CorruptStateError as error:
        _fail(str(error))
    problem = udp_port_problem(port, "--port (Matter UDP)")
    if http_address is not None:
        problem = problem or host_problem(http_address[0], "--http") or tcp_port_problem(*http_address, "--http")
    if problem:
        _fail(problem)
    configure_logging(log_level)
    try:
        asyncio.run(
            run_serve(
                home,
                state_dir,
                speed=speed,
                port=port,
                discriminator=discriminator,
                passcode=passcode,
                interfaces=interface or None,
                echo=_console().print,
                mqtt=broker,
                mqtt_base=mqtt_base,
                http=http_address,
                http_token=http_token,
                http_access=http_access,
                fresh=fresh,
                home_id=home_id,
                discovery_prefix=discovery_prefix,
                runs_dir=runs_dir,
                control=control_socket,
            )
        )
    except (StateFileError, CorruptStateError, StateDirInUse) as error:
        _fail(str(error))
    except OSError as error:  # a port taken between the check and the bind, an unreadable state dir, …
        _fail(f"serve: {error}")


def demo(
    out: Annotated[Path, typer.Option(help="Where episodes and runs are written.")] = Path("out/demo"),
    per_type: Annotated[int, typer.Option("--per-type", help="Episodes per kind (12 kinds).")] = 3,
    seed: Annotated[int, typer.Option(help="Episode seed: same seed, same episodes.")] = 1,
    concurrency: Annotated[int, typer.Option(help="Episodes run at once.")] = 2,
) -> None:
    """The main job: generate a small episode set, run the oracle and null agents on it, print the reports."""
    from homefabric_cli.demo import run_demo

    reports = run_demo(out, per_type=per_type, seed=seed, concurrency=concurrency, echo=_console().print)
    oracle, null = reports["oracle"]["overall"], reports["null"]["overall"]

    def rate(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.0%}"

    command = runnable_command()  # `homefabric` is on PATH only in an activated venv
    _console().print(
        f"\noracle {rate(oracle['success_rate'])} vs null {rate(null['success_rate'])} over "
        f"{oracle['episodes']} episodes — `{command} bench report {out / 'runs' / 'oracle'}` "
        f"shows it again; `{command} sim demo` runs a day in the complex home."
    )


# The exit status of an unexpected failure (EX_SOFTWARE of sysexits.h), and the variable that shows its traceback.
INTERNAL_ERROR_EXIT = 70
TRACEBACK_ENV = "HOMEFABRIC_TRACEBACK"


@functools.cache
def _home_group() -> typer.Typer:
    from homefabric_cli.matter_cmd import twin_command

    home_app.command("twin")(twin_command)  # `home twin`: an emulated twin of a live Matter home
    home_app.command("generate")(home_generate)
    home_app.command("show")(home_show)
    return home_app


@functools.cache
def _episodes_group() -> typer.Typer:
    # The benchmark's own sub-commands: `episodes import|generate`, `bench run|report`.
    from benchmark.cli import episodes_app, generate_command

    episodes_app.command("generate")(generate_command)
    return episodes_app


def _bench_group() -> typer.Typer:
    from benchmark.cli import bench_app

    return bench_app


def _speech_group() -> typer.Typer:
    from benchmark.suites.voice.cli import speech_app  # `speech render|say|voices`

    return speech_app


def _dataset_group() -> typer.Typer:
    from benchmark.training.cli import dataset_app  # `dataset build`

    return dataset_app


def _matter_group() -> typer.Typer:
    from homefabric_cli.matter_cmd import matter_app  # `matter map`: a mapping file from a live home

    return matter_app


# Each group of sub-commands by name, loading its module when asked for, in the order --help lists them.
GROUPS: dict[str, Callable[[], typer.Typer]] = {
    "devices": lambda: devices_app,
    "home": _home_group,
    "sim": lambda: sim_app,
    "episodes": _episodes_group,
    "bench": _bench_group,
    "speech": _speech_group,
    "dataset": _dataset_group,
    "matter": _matter_group,
}


@functools.cache
def whole_app() -> typer.Typer:
    """The app with every command and group, in the order --help has always listed them (typer lists the commands
    in the order they were added, then the groups)."""
    # Other ways into a home: MCP for agent hosts, MQTT, HTTP, a Matter controller.
    from homefabric_cli.commission import commission_command
    from homefabric_cli.http_cmd import http_command
    from homefabric_cli.mcp_cmd import mcp_command
    from homefabric_cli.mqtt_cmd import mqtt_command

    _root.command("mcp")(mcp_command)
    _root.command("mqtt")(mqtt_command)
    _root.command("http")(http_command)
    _root.command("commission")(commission_command)
    _root.command("serve")(serve)
    _root.command("demo")(demo)
    for name, group in GROUPS.items():
        _root.add_typer(group(), name=name)
    return _root


def __getattr__(name: str) -> typer.Typer:
    # `from homefabric_cli.main import app` (tests, embedders): the whole app, its modules loaded on first use.
    if name == "app":
        return whole_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def app_for(argv: list[str]) -> typer.Typer:
    """The app the console script runs for ``argv``: for ``homefabric GROUP …`` (``bench``, ``episodes``, …) an app
    holding that group alone, so only its module is imported and only its commands are turned into click commands
    when it starts (all of them cost ~1 MiB; perf/memory.py); else, and when the shell asks for completions, the
    whole app."""
    name = argv[1] if len(argv) > 1 else None
    group = GROUPS.get(name) if name is not None else None
    if group is None or COMPLETION_ENV in os.environ:
        return whole_app()
    alone = typer.Typer(**APP_SETTINGS)
    alone.callback()(_main)
    alone.add_typer(group(), name=name)
    return alone


COMPLETION_ENV = "_HOMEFABRIC_COMPLETE"  # set by a shell's completion script: completions need the whole tree


def main() -> None:
    """The console script: the commands, with what the operating system refused (a directory that cannot be
    made, a full disk, a connection refused) as one line naming it, never a traceback — whichever command met it."""
    try:
        app_for(sys.argv)()
    except OSError as error:
        where = f": {error.filename}" if error.filename else ""
        typer.echo(f"error: {error.strerror or error}{where}", err=True)
        raise SystemExit(1) from None
    except Exception as error:  # a homefabric bug: one line naming it; the traceback only when asked for
        if os.environ.get(TRACEBACK_ENV):
            raise
        first_line = (str(error).splitlines() or [""])[0]
        typer.echo(
            f"error: internal error ({type(error).__name__}: {first_line}) — a homefabric bug, please report it; "
            f"{TRACEBACK_ENV}=1 shows the traceback",
            err=True,
        )
        raise SystemExit(INTERNAL_ERROR_EXIT) from None


if __name__ == "__main__":
    main()
