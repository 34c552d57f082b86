"""Live: python-matter-server 7.0.1 commissions our node with the manual pairing code.

Everything runs inside a fresh network namespace holding a veth pair (facts §1.4): the CHIP
controller's minimal mDNS ignores loopback, and the root namespace would leak mDNS to the LAN.
The node runs in a child process (``python -m tests.matter_bridge.live_node``) entered into the
namespace with ``ip netns exec``; so does ``matter-server``. Timeouts bound every step; the
namespace and processes are always torn down. Skipped when not root or without ``ip netns``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from bridge.matter.attestation import export_paa
from bridge.matter.setup_payload import SetupPayload
from tests.requirements import LIVE_CONTROLLER

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
MATTER_SERVER = VENV_BIN / "matter-server"
PASSCODE, DISCRIMINATOR = 20202021, 3840


pytestmark = pytest.mark.requires(*LIVE_CONTROLLER)


def _sh(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), capture_output=True, text=True, check=check, timeout=20)


@contextlib.contextmanager
def network_namespace():
    name = f"hfm{os.getpid() % 100000}"
    _sh("ip", "netns", "add", name)
    try:
        _sh("ip", "-n", name, "link", "set", "lo", "up")
        _sh("ip", "-n", name, "link", "add", "hfa", "type", "veth", "peer", "name", "hfb")
        _sh("ip", "-n", name, "addr", "add", "10.77.0.1/24", "dev", "hfa")
        _sh("ip", "-n", name, "addr", "add", "fd77::1/64", "dev", "hfa", "nodad")
        _sh("ip", "-n", name, "link", "set", "hfa", "up")
        _sh("ip", "-n", name, "link", "set", "hfb", "up")
        yield name
    finally:
        _sh("ip", "netns", "del", name, check=False)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def process(args: list[str], log: Path):
    handle = log.open("w")
    proc = subprocess.Popen(args, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True, cwd=ROOT)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
        handle.close()


def test_matter_server_commissions_the_node() -> None:
    work = Path(tempfile.mkdtemp(prefix="hf-live-"))
    paa_dir = export_paa(work / "paa")
    code = SetupPayload(PASSCODE, DISCRIMINATOR, 0xFFF1, 0x8000).manual_code()
    ws_port = _free_port()
    with network_namespace() as ns:
        node_cmd = ["ip", "netns", "exec", ns, sys.executable, "-m", "tests.matter_bridge.live_node",
                    str(work / "state")]
        server_cmd = ["ip", "netns", "exec", ns, str(MATTER_SERVER), "--storage-path", str(work / "storage"),
                      "--paa-root-cert-dir", str(paa_dir), "--primary-interface", "hfa",
                      "--listen-address", "127.0.0.1", "--port", str(ws_port), "--log-level-sdk", "progress"]
        with process(node_cmd, work / "node.log") as node, process(server_cmd, work / "server.log") as server:
            time.sleep(2)
            assert node.poll() is None, (work / "node.log").read_text()[-3000:]
            client = subprocess.run(
                ["ip", "netns", "exec", ns, sys.executable, "-m", "tests.matter_bridge.live_client", str(ws_port),
                 code, "150"], capture_output=True, text=True, timeout=240, cwd=ROOT)
            if client.returncode != 0:
                raise AssertionError(f"{client.stderr[-3000:]}\n--- node\n{(work / 'node.log').read_text()[-6000:]}"
                                     f"\n--- server\n{(work / 'server.log').read_text()[-8000:]}")
            result = json.loads(client.stdout.strip().splitlines()[-1])
            assert server.poll() is None
    print(json.dumps({"commission_s": round(result["seconds"], 2), "work": str(work)}))
    assert "error_code" not in result["commission"], (result, (work / "node.log").read_text()[-4000:])
    nodes = result["nodes"]["result"]
    assert len(nodes) == 1 and nodes[0]["available"], nodes
    if not os.environ.get("HF_LIVE_KEEP"):  # keep logs for inspection when asked
        shutil.rmtree(work, ignore_errors=True)
