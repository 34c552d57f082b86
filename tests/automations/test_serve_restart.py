"""Rules survive `homefabric serve` being killed with SIGKILL: the real console script in a network namespace
(the Matter node's mDNS must not reach the LAN), driven through its control socket. Run under the live lock."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from emulator.files import write_atomically
from emulator.home_config import dump_home
from tests.emulator.helpers import home
from tests.matter_bridge.live_env import HOMEFABRIC, NODE_IF, ControlClient, Proc, network_namespace

RULE = {
    "name": "evening lamp",
    "trigger": {"kind": "time", "cron": "0/2 * * * * ?"},
    "actions": [{"kind": "invoke", "device_id": "lamp", "endpoint": 1, "cluster": "OnOff", "command": "Toggle"}],
}


@pytest.mark.requires("root", "ip-netns", "homefabric")
def test_rules_survive_a_kill_9_of_serve(tmp_path: Path) -> None:
    path = tmp_path / "home.json"
    write_atomically(str(path), dump_home(home([("lamp", "on_off_light", "hall")])))
    state_dir, control_path = tmp_path / "state", tmp_path / "control.sock"

    async def start(namespace: str, log: str) -> tuple[Proc, ControlClient]:
        proc = Proc(
            [
                "ip",
                "netns",
                "exec",
                namespace,
                str(HOMEFABRIC),
                "serve",
                str(path),
                "--state-dir",
                str(state_dir),
                "--speed",
                "10",
                "--interface",
                NODE_IF,
                "--port",
                "5540",
                "--control-socket",
                str(control_path),
            ],
            tmp_path / log,
        )
        control = ControlClient(control_path)
        try:
            await control.connect(timeout_s=60)
        except OSError as error:
            proc.stop()
            raise AssertionError(f"serve did not come up:\n{proc.tail()}") from error
        return proc, control

    async def scenario(namespace: str) -> None:
        proc, control = await start(namespace, "serve1.log")
        try:
            added = await control("add_automation", rule=RULE)
            assert added["id"] == "auto-0001"
            for _ in range(100):  # every 2 virtual seconds at ×10: it fires within a wall second
                rules = await control("automations")
                if rules[0]["fire_count"] >= 2:
                    break
                await asyncio.sleep(0.1)
            fired_before = rules[0]["fire_count"]
            assert fired_before >= 2 and rules[0]["last_fired"] is not None
            await control.close()
            proc.kill(signal.SIGKILL)
            await asyncio.to_thread(proc.popen.wait, 10)
        finally:
            proc.stop()
        control_path.unlink(missing_ok=True)
        proc, control = await start(namespace, "serve2.log")
        try:
            rules = await control("automations")
            assert [r["id"] for r in rules] == ["auto-0001"] and rules[0]["name"] == "evening lamp"
            assert rules[0]["fire_count"] >= fired_before - 1  # at most the firing in flight at the kill
            assert rules[0]["next_firing"] is not None
            second = await control("add_automation", rule={**RULE, "name": "second"})
            assert second["id"] == "auto-0002"
        finally:
            await control.close()
            proc.stop()

    with network_namespace("hfauto") as namespace:
        asyncio.run(asyncio.wait_for(scenario(namespace), 120))
