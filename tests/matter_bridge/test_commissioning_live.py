"""Live: python-matter-server 7.0.1 commissions our node with the manual pairing code.

Everything runs inside a fresh network namespace holding a veth pair (facts §1.4): the CHIP
controller's minimal mDNS ignores loopback, and the root namespace would leak mDNS to the LAN.
The node runs in a child process (``python -m tests.matter_bridge.live_node``) entered into the
namespace with ``ip netns exec``; so does ``matter-server``. Timeouts bound every step; the
namespace and processes are always torn down. Skipped when not root or without ``ip netns``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from bridge.matter.crypto.attestation import export_paa
from tests.matter_bridge.live_env import (
    CONTROLLER_IF,
    MATTER_SERVER,
    ROOT,
    Proc,
    free_port,
    manual_code,
    network_namespace,
)
from tests.matter_bridge.live_setup import live_work
from tests.requirements import LIVE_CONTROLLER

pytestmark = pytest.mark.requires(*LIVE_CONTROLLER)


def test_matter_server_commissions_the_node() -> None:
    with live_work("hf-live-") as work:
        paa_dir = export_paa(work / "paa")
        code = manual_code()
        ws_port = free_port()
        with network_namespace("hfm") as ns:
            node_cmd = [
                "ip",
                "netns",
                "exec",
                ns,
                sys.executable,
                "-m",
                "tests.matter_bridge.live_node",
                str(work / "state"),
            ]
            server_cmd = [
                "ip",
                "netns",
                "exec",
                ns,
                str(MATTER_SERVER),
                "--storage-path",
                str(work / "storage"),
                "--paa-root-cert-dir",
                str(paa_dir),
                "--primary-interface",
                CONTROLLER_IF,
                "--listen-address",
                "127.0.0.1",
                "--port",
                str(ws_port),
                "--log-level-sdk",
                "progress",
            ]
            node, server = Proc(node_cmd, work / "node.log"), Proc(server_cmd, work / "server.log")
            try:
                time.sleep(2)
                assert node.alive, node.tail(3000)
                client = subprocess.run(
                    [
                        "ip",
                        "netns",
                        "exec",
                        ns,
                        sys.executable,
                        "-m",
                        "tests.matter_bridge.live_client",
                        str(ws_port),
                        code,
                        "150",
                    ],
                    capture_output=True,
                    text=True,
                    timeout=240,
                    cwd=ROOT,
                )
                if client.returncode != 0:
                    raise AssertionError(
                        f"{client.stderr[-3000:]}\n--- node\n{node.tail(6000)}\n--- server\n{server.tail(8000)}"
                    )
                result = json.loads(client.stdout.strip().splitlines()[-1])
                assert server.alive
            finally:
                node.stop()
                server.stop()
        print(json.dumps({"commission_s": round(result["seconds"], 2), "work": str(work)}))
        assert "error_code" not in result["commission"], (result, node.tail(4000))
        nodes = result["nodes"]["result"]
        assert len(nodes) == 1 and nodes[0]["available"], nodes
