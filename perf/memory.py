"""Memory: MiB per extra home by tier, and each main command's resident memory once it has loaded what it runs.

* ``homes``: for each tier (``simuhome`` — SimuHome's home shape, ~31 devices —, ``complex``, ``stress``), a fresh
  process generates N home configs, builds one home (so every module and shared table is loaded), then builds
  N more and reports the RSS growth per extra home (``mib_per_home``), after a ``gc.collect()`` each side, per
  device (``kib_per_device``) and for a home of 31 devices at that cost (``mib_per_31_device_home``: the size the
  memory target names; generated SimuHome-shaped homes hold 27–28 on average).
* ``commands``: each command run for real in its own process, its RSS read from ``/proc/PID/status``:
  ``bench run`` (the oracle over 2 generated episodes) when its runner starts (``rss_at_run_mib``: the imports a
  run needs before its first episode) and at its peak (``peak_rss_mib``); ``serve`` (Matter only, and with
  ``--http``), ``http`` and ``mcp`` (stdio) once serving (after their first answer or ready line); and
  ``python -c "import homefabric_cli.main"`` (``cli_import``) for the floor every command starts from.

``--checkout DIR`` measures another checkout (its ``.venv``) with this script: before/after side by side.

Usage: python perf/memory.py [--json] [--homes 40] [--checkout DIR] (Linux: reads /proc)
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent  # the checkout measured (--checkout), with its venv's Python
if "--checkout" in sys.argv[:-1]:
    ROOT = Path(sys.argv[sys.argv.index("--checkout") + 1]).resolve()
sys.path.insert(0, str(ROOT))
PYTHON = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable

TIERS = {"simuhome": 1.0, "complex": 0.25, "stress": 0.05}  # tier → fraction of --homes built (stress is large)
CONSOLE = Path(PYTHON).parent / "homefabric"
REFERENCE_DEVICES = 31  # the home size issue 24's memory target names
SETTLE_S = 0.5  # after a server says it is ready, before its RSS is read


def _rss_mib(pid: int | str = "self") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


# --- MiB per extra home (runs in a child process: --homes-of TIER) -------------------------------------------


def homes_of(tier: str, count: int) -> dict[str, Any]:
    import gc

    from emulator.emulated_home import EmulatedHome
    from emulator.home_generation.generator import generate_home

    configs = [generate_home(tier, seed) for seed in range(1, count + 2)]
    first = EmulatedHome(configs[0])  # loads every module and shared table a home uses
    gc.collect()
    before = _rss_mib()
    homes = [EmulatedHome(config) for config in configs[1:]]
    gc.collect()
    after = _rss_mib()
    devices = sum(len(home.devices()) for home in homes) / len(homes)
    return {
        "tier": tier,
        "extra_homes": len(homes),
        "devices_per_home": round(devices, 1),
        "rss_before_mib": round(before, 1),
        "rss_after_mib": round(after, 1),
        "mib_per_home": round((after - before) / len(homes), 4),
        "kib_per_device": round((after - before) * 1024 / len(homes) / devices, 2),
        # the target is per 31-device home (SimuHome's published homes hold 19–33): the same per-device cost
        "mib_per_31_device_home": round((after - before) / len(homes) / devices * REFERENCE_DEVICES, 4),
        "first": first.name,
    }


def _child_json(args: list[str]) -> dict[str, Any]:
    result = subprocess.run(
        [PYTHON, __file__, *args, "--checkout", str(ROOT)], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(f"perf/memory.py {' '.join(args)} failed: {result.stderr[-800:]}")
    answer: dict[str, Any] = json.loads(result.stdout)
    return answer


# --- commands ------------------------------------------------------------------------------------------------


def _free_port(kind: int = socket.SOCK_STREAM) -> int:
    with socket.socket(socket.AF_INET, kind) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_or_kill(process: subprocess.Popen[str], timeout: float = 10.0) -> None:
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _rss_when_ready(argv: list[str], ready: str, *, timeout: float = 60.0) -> float:
    """Start a server, wait for a stdout line containing ``ready``, let it settle, read its RSS, stop it."""
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "200", "PYTHONUNBUFFERED": "1"},
    )
    lines: queue.Queue[str] = queue.Queue()

    def read_lines() -> None:
        for line in process.stdout or ():
            lines.put(line)

    reader = threading.Thread(target=read_lines, daemon=True)
    reader.start()
    seen: list[str] = []
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                if process.poll() is not None:
                    break
                continue
            seen.append(line)
            if ready in line:
                time.sleep(SETTLE_S)
                return _rss_mib(process.pid)
        raise RuntimeError(f"{' '.join(argv[1:3])} did not say {ready!r}: {''.join(seen)[-800:]}")
    finally:
        process.send_signal(signal.SIGTERM)
        _wait_or_kill(process)


def _mcp_rss(home: Path) -> float:
    process = subprocess.Popen(
        [str(CONSOLE), "mcp", str(home)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-03-26",
                "capabilities": {},
                "clientInfo": {"name": "bench-memory", "version": "1"},
            },
        }
        process.stdin.write(json.dumps(initialize) + "\n")
        process.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) + "\n")
        process.stdin.flush()
        answered = 0
        while answered < 2:
            line = process.stdout.readline()
            if not line:
                raise RuntimeError("homefabric mcp exited before answering tools/list")
            answered += '"id":' in line or '"id": ' in line
        time.sleep(SETTLE_S)
        return _rss_mib(process.pid)
    finally:
        process.stdin.close()  # end of input: the MCP server exits
        _wait_or_kill(process)


CLI_IMPORT_PROBE = r"""
import json, sys
from pathlib import Path
import homefabric_cli.main
status = Path("/proc/self/status").read_text().splitlines()
rss = next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmRSS:"))
print(json.dumps({"rss_mib": round(rss, 1), "modules": len(sys.modules)}))
"""

# The `bench run` child: the real CLI, with the runner's entry wrapped to note RSS before the first episode.
BENCH_RUN_PROBE = r"""
import json, os, resource, sys
from pathlib import Path
from homefabric_cli.main import main  # first, as the console script does (homefabric_cli may set up imports)
try:
    import benchmark.runs.runner as runner
except ImportError:  # a checkout from before benchmark/ was laid out in rooms
    import benchmark.runner as runner

def rss():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

# what an episode run should not need: the Matter wire, MQTT, HTTP, the speech stack, plots, the LLM client
HEAVY = ("bridge.matter.session", "aiomqtt", "uvicorn", "fastapi", "benchmark.suites.voice.voice_hearing",
         "benchmark.speech", "numpy", "scipy", "matplotlib", "httpx")
real_run = runner.Runner.run
seen = {}

async def noted_run(self, *args, **kwargs):
    seen["rss_at_run_mib"] = rss()
    seen["modules_at_run"] = len(sys.modules)
    seen["heavy_at_run"] = sorted(m for m in HEAVY if m in sys.modules)
    seen["tls_ran_at_run"] = "SSLContext" in vars(sys.modules.get("ssl", sys))  # OpenSSL's TLS layer loaded
    return await real_run(self, *args, **kwargs)

runner.Runner.run = noted_run
sys.argv = ["homefabric", *sys.argv[1:]]
try:
    main()
except SystemExit as exit:
    code = exit.code
else:
    code = 0
seen["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
Path(os.environ["BENCH_MEMORY_OUT"]).write_text(json.dumps(seen))
sys.exit(code or 0)
"""


def _bench_run(workdir: Path) -> dict[str, Any]:
    try:
        from benchmark.generation.generate import generate_episodes, write_episodes
    except ImportError:  # a checkout from before benchmark/ was laid out in rooms
        from benchmark.generate import generate_episodes, write_episodes  # type: ignore[no-redef, import-not-found]  # gone in this checkout

    episodes = workdir / "episodes"
    write_episodes(generate_episodes(["qt1"], 1, 7), episodes)
    out = workdir / "probe.json"
    result = subprocess.run(
        [
            PYTHON,
            "-c",
            BENCH_RUN_PROBE,
            "bench",
            "run",
            "--agent",
            "oracle",
            "--episodes",
            str(episodes),
            "--out",
            str(workdir / "run"),
            "--quiet",
        ],
        cwd=ROOT,
        env={**os.environ, "BENCH_MEMORY_OUT": str(out)},
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0 or not out.exists():
        raise RuntimeError(f"homefabric bench run failed ({result.returncode}): {result.stderr[-800:]}")
    seen: dict[str, Any] = json.loads(out.read_text())
    return {key: round(value, 1) if isinstance(value, float) else value for key, value in seen.items()}


def commands() -> dict[str, Any]:
    from emulator.home_config import dump_home
    from emulator.home_generation.generator import generate_home

    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        home = workdir / "home.json"
        home.write_text(dump_home(generate_home("simuhome", 1)))
        floor = subprocess.run([PYTHON, "-c", CLI_IMPORT_PROBE], cwd=ROOT, check=True, capture_output=True, text=True)
        figures["cli_import"] = json.loads(floor.stdout)
        figures["bench run"] = _bench_run(workdir)
        serve = [str(CONSOLE), "serve", str(home), "--port", str(_free_port(socket.SOCK_DGRAM))]
        figures["serve"] = {
            "rss_mib": round(_rss_when_ready([*serve, "--state-dir", str(workdir / "state1")], "serving "), 1)
        }
        figures["serve --http"] = {
            "rss_mib": round(
                _rss_when_ready(
                    [*serve, "--state-dir", str(workdir / "state2"), "--http", f"127.0.0.1:{_free_port()}"],
                    "HTTP API and dashboard",
                ),
                1,
            )
        }
        figures["http"] = {
            "rss_mib": round(
                _rss_when_ready([str(CONSOLE), "http", str(home), "--port", str(_free_port())], "dashboard"), 1
            )
        }
        figures["mcp"] = {"rss_mib": round(_mcp_rss(home), 1)}
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--homes", type=int, default=40, help="extra simuhome homes built (fewer of the big tiers)")
    parser.add_argument("--homes-of", choices=sorted(TIERS), help=argparse.SUPPRESS)  # the child's job
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    options = parser.parse_args()
    if options.homes < 1:
        parser.error(f"--homes must be at least 1, got {options.homes}")
    if options.homes_of:
        print(json.dumps(homes_of(options.homes_of, options.homes)))
        return 0
    results: dict[str, Any] = {"checkout": str(ROOT), "homes": {}, "commands": {}}
    for tier, fraction in TIERS.items():
        results["homes"][tier] = _child_json(
            ["--homes-of", tier, "--homes", str(max(2, round(options.homes * fraction)))]
        )
    results["commands"] = commands()
    if options.json:
        print(json.dumps(results, indent=2))
    else:
        for tier, figures in results["homes"].items():
            print(
                f"{tier:9s} {figures['devices_per_home']:7.1f} devices: {figures['mib_per_home']:.3f} MiB per "
                f"extra home ({figures['kib_per_device']:.2f} KiB per device, "
                f"{figures['mib_per_31_device_home']:.3f} MiB per {REFERENCE_DEVICES}-device home)"
            )
        for command, figures in results["commands"].items():
            print(f"{command:14s} {figures}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
