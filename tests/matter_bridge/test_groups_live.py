"""Group commands and scenes with the real CHIP controller (chip-core, as in python-matter-server):
``homefabric serve`` in a network namespace, a chip-core controller commissions it, installs the group key
set, ACL and memberships, and its ``SendGroupCommand`` (IPv6 multicast, group session keys) switches every
member light — and only those; scenes are stored and recalled (unicast and by group).

Run under the shared lock:
``flock /tmp/homefabric-live.lock .venv/bin/python -m pytest tests/matter_bridge/test_groups_live.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.matter_bridge.live_env import (
    DISCRIMINATOR,
    HOMEFABRIC,
    NODE_IF,
    PASSCODE,
    ROOT,
    Proc,
    live_skip_reason,
    manual_code,
    network_namespace,
    write_small_home,
)

pytestmark = pytest.mark.skipif(live_skip_reason() is not None, reason=live_skip_reason() or "")

MEMBERS, OTHERS = ["lamp", "dimmer"], ["kitchen_light"]


def test_group_command_and_scenes_with_the_chip_controller(tmp_path: Path) -> None:
    from bridge.matter.crypto.attestation import export_paa

    home = write_small_home(tmp_path / "home.json")
    paa = export_paa(tmp_path / "paa")
    (tmp_path / "chip").mkdir()
    with network_namespace("hfg") as namespace:
        serve = Proc(
            [
                "ip",
                "netns",
                "exec",
                namespace,
                str(HOMEFABRIC),
                "serve",
                str(home),
                "--state-dir",
                str(tmp_path / "state"),
                "--interface",
                NODE_IF,
                "--passcode",
                str(PASSCODE),
                "--discriminator",
                str(DISCRIMINATOR),
                "--control-socket",
                str(tmp_path / "control.sock"),
            ],
            tmp_path / "serve.log",
        )
        try:
            deadline = time.monotonic() + 60
            while not (tmp_path / "control.sock").exists():  # serve is up once its control socket is
                assert serve.alive and time.monotonic() < deadline, serve.tail()
                time.sleep(0.2)
            client = subprocess.run(
                [
                    "ip",
                    "netns",
                    "exec",
                    namespace,
                    sys.executable,
                    "-m",
                    "tests.matter_bridge.chip_group_client",
                    str(tmp_path / "chip"),
                    str(paa),
                    manual_code(),
                    ",".join(MEMBERS),
                    ",".join(OTHERS),
                ],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
        finally:
            serve.stop()
    assert client.returncode == 0, f"{client.stderr[-6000:]}\n--- serve\n{serve.tail(6000)}"
    result = json.loads(client.stdout.strip().splitlines()[-1])
    endpoints = result["endpoints"]
    assert result["add_group"] == dict.fromkeys(MEMBERS, 0)
    assert result["group_table"] == [
        {"group": 0x0101, "endpoints": sorted(endpoints[m] for m in MEMBERS), "name": "Evening"}
    ]
    assert result["before"] == dict.fromkeys(MEMBERS + OTHERS, False)
    assert result["after_on"] == {"lamp": True, "dimmer": True, "kitchen_light": False}, serve.tail(6000)
    assert result["after_off"] == dict.fromkeys(MEMBERS + OTHERS, False)
    scene = result["scene"]
    assert scene["store_status"] == 0 and scene["level"] == 200 and scene["on"] is True
    assert scene["info"] == [{"count": 1, "current": 1, "group": 0x0101, "valid": True}]
    assert result["group_recall_level"] == 200
