"""Issue #21, a newcomer's first hour, through the console script: `-h`, no `<bool>` labels, tables that keep
one line per row in a pipe, the demo's closing hint runnable as printed, and the commissioning hint about
interfaces and IPv6."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import websockets

from tests.test_cli_exit_codes import HOMEFABRIC, homefabric, one_line_error


def test_dash_h_is_help_and_flags_carry_no_bool_label() -> None:
    for args in ([], ["bench", "run"], ["serve"], ["home", "generate"], ["mcp"]):
        short, long = homefabric(*args, "-h"), homefabric(*args, "--help")
        assert short.returncode == 0 and short.stdout == long.stdout, (args, short.stderr)
        assert "<bool>" not in short.stdout and "Usage:" in short.stdout, args


def test_tables_keep_one_line_per_row_when_not_a_terminal() -> None:
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    result = subprocess.run([HOMEFABRIC, "devices", "types"], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("│ ")]
    names = [json_row["name"] for json_row in json.loads(homefabric("devices", "types", "--json").stdout)]
    assert [row.split("│")[1].strip() for row in rows if row.split("│")[1].strip()] == names  # no wrapped names
    assert all(line.count("│") == 5 for line in rows) and max(map(len, rows)) > 80


def test_the_demos_closing_hint_runs_as_printed_in_a_fresh_shell(tmp_path: Path) -> None:
    fresh_shell = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "COLUMNS": "200"}  # no venv on PATH
    demo = subprocess.run(
        [HOMEFABRIC, "demo", "--per-type", "1", "--out", str(tmp_path / "demo")],
        capture_output=True,
        text=True,
        timeout=600,
        env=fresh_shell,
        cwd=tmp_path,
    )
    assert demo.returncode == 0, demo.stderr[-2000:]
    hint = re.search(r"`([^`]*bench report[^`]*)`", demo.stdout)
    assert hint is not None, demo.stdout[-1000:]
    again = subprocess.run(
        hint.group(1), shell=True, capture_output=True, text=True, timeout=300, env=fresh_shell, cwd=tmp_path
    )
    assert again.returncode == 0, (shlex.split(hint.group(1)), again.stderr[-2000:])
    assert "oracle" in again.stdout or "success" in again.stdout.lower()


@pytest.fixture
def refusing_matter_server() -> Iterator[str]:
    """A websocket peer speaking matter-server's protocol whose commissioning fails as on a loopback-only host."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    holder: dict[str, object] = {}

    async def handler(ws: websockets.ServerConnection) -> None:
        await ws.send(
            json.dumps(
                {
                    "fabric_id": 1,
                    "compressed_fabric_id": 4242,
                    "schema_version": 11,
                    "min_supported_schema_version": 9,
                    "sdk_version": "2024.11.4",
                    "wifi_credentials_set": False,
                    "thread_credentials_set": False,
                    "bluetooth_enabled": False,
                }
            )
        )
        async for message in ws:
            request = json.loads(message)
            await ws.send(
                json.dumps(
                    {
                        "message_id": request["message_id"],
                        "error_code": 1,
                        "details": "Commission with code failed for node 7.",
                    }
                )
            )

    async def main() -> None:
        async with websockets.serve(handler, "127.0.0.1", 0) as server:
            holder["port"] = next(iter(server.sockets)).getsockname()[1]
            holder["stop"] = asyncio.Event()
            ready.set()
            await holder["stop"].wait()  # type: ignore[attr-defined]

    thread = threading.Thread(target=lambda: loop.run_until_complete(main()), daemon=True)
    thread.start()
    assert ready.wait(10)
    yield f"ws://127.0.0.1:{holder['port']}/ws"
    loop.call_soon_threadsafe(holder["stop"].set)  # type: ignore[attr-defined]
    thread.join(10)


def test_a_failed_commissioning_hints_at_interfaces_and_ipv6(refusing_matter_server: str) -> None:
    result = homefabric("commission", "--matter-server", refusing_matter_server, "--timeout", "10")
    line = one_line_error(result, "NodeCommissionFailed", "IPv6", "--interface")
    assert result.returncode == 4 and "loopback" in line
