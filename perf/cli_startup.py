"""Start-up cost of the `homefabric` console script: CPU seconds (user + system, of the child process) and wall
seconds per command, median of N runs after one warm-up run (which also fills the catalogue index cache).

Usage: python perf/cli_startup.py [--runs 5] [--json]
The target the issue sets: `--help` and `devices types` under 0.5 s of CPU. Also: `homefabric mcp HOME` over
stdio, from spawn to the answer to ``initialize`` and to ``tools/list`` (wall, and CPU until exit). `--mcp-only
--console OTHER/homefabric` times another checkout's script (before/after side by side).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CONSOLE_SCRIPT = Path(sys.executable).parent / "homefabric"
COMMANDS = (
    ("--help",),
    ("--version",),
    ("devices", "types"),
    ("devices", "types", "--json"),
    ("bench", "--help"),
    ("serve", "--help"),
)
TARGET_CPU_S = 0.5


def run_once(argv: tuple[str, ...]) -> tuple[float, float]:
    """(cpu_s, wall_s) of one run; the CPU figure is this child's rusage, not the machine's load."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(
        [str(CONSOLE_SCRIPT), *argv], capture_output=True, env={**os.environ, "COLUMNS": "120"}, check=False
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"homefabric {' '.join(argv)} exited {result.returncode}: {result.stderr.decode()[-500:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def measure(runs: int) -> dict[str, Any]:
    figures = {}
    for argv in COMMANDS:
        run_once(argv)  # warm-up: page cache, bytecode, the catalogue index
        samples = [run_once(argv) for _ in range(runs)]
        cpu = statistics.median(s[0] for s in samples)
        figures[" ".join(argv)] = {
            "cpu_s": round(cpu, 3),
            "wall_s": round(statistics.median(s[1] for s in samples), 3),
            "under_target": cpu < TARGET_CPU_S,
        }
    return {
        "console_script": str(CONSOLE_SCRIPT),
        "runs": runs,
        "target_cpu_s": TARGET_CPU_S,
        "commands": figures,
        "mcp_initialize": measure_mcp(runs),
    }


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-03-26",
        "capabilities": {},
        "clientInfo": {"name": "cli_startup", "version": "1"},
    },
}


TOOLS_LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def mcp_once(home: Path) -> tuple[float, float, float]:
    """(cpu_s, wall_s) from spawning `homefabric mcp HOME` to its initialize reply; CPU of the whole child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    child = subprocess.Popen(
        [str(CONSOLE_SCRIPT), "mcp", str(home)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
    child.stdin.flush()
    reply = child.stdout.readline()
    wall = time.perf_counter() - started
    child.stdin.write((json.dumps(INITIALIZED) + "\n" + json.dumps(TOOLS_LIST) + "\n").encode())
    child.stdin.flush()
    listing = child.stdout.readline()
    wall_list = time.perf_counter() - started
    child.stdin.close()
    child.wait(30)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if b'"result"' not in reply or b'"tools"' not in listing:
        raise SystemExit(f"homefabric mcp answered initialize with {reply[:300]!r}, tools/list with {listing[:300]!r}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall, wall_list


def measure_mcp(runs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home.json"
        subprocess.run([str(CONSOLE_SCRIPT), "home", "generate", "--out", str(home)], capture_output=True, check=True)
        mcp_once(home)  # warm-up
        samples = [mcp_once(home) for _ in range(runs)]
    return {
        "cpu_s_until_exit": round(statistics.median(s[0] for s in samples), 3),
        "wall_s_to_initialize": round(statistics.median(s[1] for s in samples), 3),
        "wall_s_to_tools_list": round(statistics.median(s[2] for s in samples), 3),
    }


def main() -> None:
    global CONSOLE_SCRIPT  # --console: the script every measurement spawns
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--mcp-only", action="store_true", help="only the `homefabric mcp` figures")
    parser.add_argument(
        "--console",
        type=Path,
        default=CONSOLE_SCRIPT,
        help="the console script to time (e.g. another checkout's, for a before/after)",
    )
    args = parser.parse_args()
    CONSOLE_SCRIPT = args.console
    if args.mcp_only:
        print(json.dumps({"console_script": str(CONSOLE_SCRIPT), "mcp_initialize": measure_mcp(args.runs)}))
        return
    report = measure(args.runs)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for command, figure in report["commands"].items():
        print(f"homefabric {command:28} {figure['cpu_s']:.3f} s CPU  {figure['wall_s']:.3f} s wall")
    mcp = report["mcp_initialize"]
    print(
        f"homefabric mcp HOME (stdio) initialize  {mcp['wall_s_to_initialize']:.3f} s wall  "
        f"tools/list {mcp['wall_s_to_tools_list']:.3f} s wall  "
        f"{mcp['cpu_s_until_exit']:.3f} s CPU in all"
    )


if __name__ == "__main__":
    main()
