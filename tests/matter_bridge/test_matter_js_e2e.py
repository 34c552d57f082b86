"""End to end with a second, independent controller stack: matter.js 0.17.9 (``@matter/main`` +
``@project-chip/matter.js``, the stack under the Open Home Foundation's matter.js Matter Server).

The same journey as ``test_controller_e2e.py`` (python-matter-server / CHIP SDK), against the same small home
served by ``homefabric serve`` in a fresh network namespace: DNS-SD discovery, commissioning with strict
attestation (the controller's only trusted PAA is the one ``serve`` exports; an error-level attestation
finding aborts), a wildcard read of the whole node with every attribute decoded by matter.js's own model,
invoke, write, a subscription that reports a change made inside the home, and RemoveFabric.

The controller is ``tests/matter_js/controller.mjs`` (``npm ci`` there installs the pinned packages), driven
over stdin/stdout by ``matter_js_client.MatterJsController``. Run under ``flock /tmp/homefabric-live.lock``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.matter.crypto.attestation import PAA_DER_FILE
from tests.matter_bridge.live_env import DISCRIMINATOR, HOME_DEVICES, PASSCODE
from tests.matter_bridge.live_setup import LiveSetup, live_setup
from tests.requirements import LIVE_CONTROLLER

ON_OFF, BRIDGED_INFO = 6, 0x39
AGGREGATOR, BRIDGED_NODE = 0x0E, 0x13


pytestmark = pytest.mark.requires(*LIVE_CONTROLLER, "node", "matter.js")


class Live(LiveSetup):
    """The module's live setup (``live_setup.LiveSetup``): ``serve`` alone, driven by matter.js."""

    def __init__(self, work: Path) -> None:
        super().__init__(work, speed=600, namespace_prefix="hfj", matter_server=False, matter_js=True)
        self.found: list[dict[str, Any]] = []  # what discovery and commissioning answered (the first test checks)
        self.commissioned: dict[str, Any] = {}

    def commission(self) -> None:
        async def scenario() -> None:
            started = time.monotonic()
            self.found = await self.mjs.call("discover", discriminator=DISCRIMINATOR, seconds=4, timeout_s=30)
            self.commissioned = await self.mjs.call(
                "commission",
                passcode=PASSCODE,
                discriminator=DISCRIMINATOR,
                paa=str(self.bridge.paa_dir / PAA_DER_FILE),
                timeout_s=120,
            )
            self.timings["discover_and_commission_s"] = time.monotonic() - started
            self.layout = await self.bridge.control("endpoints")

        self.run(scenario(), 150)
        self.node_id = self.commissioned["node_id"]


@pytest.fixture(scope="module")
def live() -> Iterator[Live]:
    with live_setup(Live, work_prefix="hf-mjs-", report="matter_js_timings") as setup:
        yield setup


def test_discover_and_commission_with_strict_attestation(live: Live) -> None:
    live.need_node()
    found, result = live.found, live.commissioned
    assert [(d["discriminator"], d["CM"], d["VP"]) for d in found] == [(DISCRIMINATOR, 1, "65521+32768")], found
    # Strict: nothing error-level; what is left is what any test-credential device gets (test CD, test PAA).
    assert not [f for f in result["attestation"] if f["level"] == "error"], result["attestation"]
    assert [(f["node_id"], f["label"]) for f in live.fabrics()] == [(live.node_id, "matter.js")]


def test_wildcard_read_decodes_every_attribute(live: Live) -> None:
    node_id = live.need_node()

    async def scenario() -> dict[str, Any]:
        started = time.monotonic()
        result = await live.mjs.call("read_all", node_id=node_id, timeout_s=120)
        live.timings["read_all_s"] = time.monotonic() - started
        return result

    result = live.run(scenario())
    values = result["values"]
    assert result["undecoded"] == []  # matter.js's model knows every cluster and attribute we serve
    bridged = sorted(int(n) for entry in live.layout.values() for n in entry["endpoints"].values())
    assert result["endpoints"] == 2 + len(bridged)  # root + aggregator + bridged endpoints
    assert values["0/29/3"] == [1, *bridged]
    assert [d["deviceType"] for d in values["1/29/0"]] == [AGGREGATOR]
    for device_id, (_, _, device_type) in HOME_DEVICES.items():
        top = live.endpoint(device_id)
        assert {d["deviceType"] for d in values[f"{top}/29/0"]} == {BRIDGED_NODE, device_type}, device_id
        assert values[f"{top}/57/5"] == device_id  # NodeLabel
        assert values[f"{top}/57/17"] is True  # Reachable
    assert result["attributes"] == len(values) > 400


def test_invoke_and_write_change_the_home(live: Live) -> None:
    node_id = live.need_node()
    control = live.bridge.control

    async def scenario() -> None:
        lamp = live.endpoint("lamp")
        for command, expected in ((1, True), (0, False), (2, True)):  # On, Off, Toggle
            await live.mjs.call("invoke", node_id=node_id, endpoint=lamp, cluster=ON_OFF, command=command)
            assert await control("read", device="lamp", endpoint=1, cluster="OnOff", attribute="OnOff") is expected
            read = await live.mjs.call("read", node_id=node_id, endpoint=lamp, cluster=ON_OFF, attribute=0)
            assert read["value"] is expected
        await live.mjs.call(
            "write", node_id=node_id, endpoint=lamp, cluster=BRIDGED_INFO, attribute=5, value="desk lamp"
        )
        read = await live.mjs.call("read", node_id=node_id, endpoint=lamp, cluster=BRIDGED_INFO, attribute=5)
        assert read["value"] == "desk lamp"

    live.run(scenario())


def test_subscription_reports_a_change_made_inside_the_home(live: Live) -> None:
    node_id = live.need_node()
    control = live.bridge.control

    async def scenario() -> None:
        lamp = live.endpoint("lamp")
        await live.mjs.call("subscribe", node_id=node_id, timeout_s=60)
        state = await control("read", device="lamp", endpoint=1, cluster="OnOff", attribute="OnOff")
        since = len(live.mjs.events)
        started = time.monotonic()
        await control("invoke", device="lamp", endpoint=1, cluster="OnOff", command="Toggle")
        event = await live.mjs.wait_event(
            lambda e: e.get("event") == "attribute" and e["path"] == f"{lamp}/6/0" and e["value"] is (not state),
            20,
            since,
        )
        live.timings["subscription_latency_s"] = event["received"] - started

    live.run(scenario())


def test_remove_fabric(live: Live) -> None:
    node_id = live.need_node()

    async def scenario() -> None:
        await live.mjs.call("remove", node_id=node_id, timeout_s=60)
        await live.until_fabrics(0)

    live.run(scenario())
    live.node_id = None
    # serve's log tells the story as event=... lines; the subscription ended at removal, not at a later report.
    log = (live.work / "serve.log").read_text()
    for event in (
        "event=session_established kind=pase",
        "event=fabric_added fabric=1",
        "event=commissioning_complete fabric=1",
        "event=session_established kind=case",
        "event=subscription_established",
        "event=fabric_removed fabric=1",
    ):
        assert event in log, event
    ended = [line for line in log.splitlines() if "event=subscription_ended" in line]
    assert ended and "reason=fabric_removed" in ended[0], ended
    removed_at = log.index("event=fabric_removed fabric=1")
    assert log.index("reason=fabric_removed") > removed_at > log.index("event=subscription_established")
