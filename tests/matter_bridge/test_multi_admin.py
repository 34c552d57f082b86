"""Multi-admin with two controller stacks on one bridge.

python-matter-server 7.0.1 (CHIP SDK) commissions the home, then opens an enhanced commissioning window
with its own standard call (``open_commissioning_window``: a fresh PAKE verifier); matter.js 0.17.9
commissions a second fabric through that window. Then: both subscriptions deliver the same change at once,
each fabric's ACL is its own (matter.js narrows its fabric's entries to endpoint 0 and is refused on the lamp,
while the CHIP controller keeps full control), and removing matter.js's fabric leaves the CHIP controller's
fabric, session and subscription working. Run under ``flock /tmp/homefabric-live.lock``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.matter.crypto.attestation import PAA_DER_FILE
from tests.matter_bridge.live_env import DISCRIMINATOR, PASSCODE, manual_code
from tests.matter_bridge.live_setup import LiveSetup, live_setup
from tests.matter_bridge.matter_js_client import MatterJsError
from tests.requirements import LIVE_CONTROLLER

pytestmark = pytest.mark.requires(*LIVE_CONTROLLER, "node", "matter.js")
WINDOW_DISCRIMINATOR = 2345
ON_OFF = 6


class Live(LiveSetup):
    """The module's live setup (``live_setup.LiveSetup``): matter-server and matter.js, one fabric each."""

    run_timeout_s = 150

    def __init__(self, work: Path) -> None:
        super().__init__(work, speed=60, namespace_prefix="hfm", matter_js=True)
        self.chip_node: int | None = None
        self.mjs_node: int | None = None
        self.lamp = 0

    async def chip_lamp(self) -> Any:
        path = f"{self.lamp}/6/0"
        return (await self.bridge.matter.call("read_attribute", node_id=self.chip_node, attribute_path=path))[path]


@pytest.fixture(scope="module")
def live() -> Iterator[Live]:
    with live_setup(Live, work_prefix="hf-multi-", report="multi_admin_timings") as setup:
        yield setup


def test_second_fabric_through_the_first_controllers_enhanced_window(live: Live) -> None:
    async def scenario() -> dict[str, Any]:
        started = time.monotonic()
        node = await live.bridge.matter.call(
            "commission_with_code", code=manual_code(), network_only=True, timeout_s=120
        )
        live.chip_node = node["node_id"]
        live.layout = await live.bridge.control("endpoints")
        live.lamp = live.endpoint("lamp")
        window = await live.bridge.matter.call(
            "open_commissioning_window", node_id=live.chip_node, discriminator=WINDOW_DISCRIMINATOR, timeout_s=60
        )
        result = await live.mjs.call(
            "commission",
            passcode=window["setup_pin_code"],
            discriminator=WINDOW_DISCRIMINATOR,
            paa=str(live.bridge.paa_dir / PAA_DER_FILE),
            timeout_s=120,
        )
        live.mjs_node = result["node_id"]
        live.timings["both_fabrics_s"] = time.monotonic() - started
        return result

    result = live.run(scenario())
    assert not [f for f in result["attestation"] if f["level"] == "error"]
    fabrics = live.fabrics()
    assert len(fabrics) == 2 and len({f["fabric_id"] for f in fabrics} | {f["fabric_index"] for f in fabrics}) >= 2
    assert fabrics[1]["label"] == "matter.js"
    log = (live.work / "serve.log").read_text()
    assert "event=window_open kind=enhanced discriminator=2345" in log


def test_both_controllers_subscribed_at_once(live: Live) -> None:
    if live.mjs_node is None:
        pytest.skip("no second fabric")

    async def scenario() -> None:
        await live.mjs.call("subscribe", node_id=live.mjs_node, timeout_s=60)
        state = await live.bridge.control("read", device="lamp", endpoint=1, cluster="OnOff", attribute="OnOff")
        chip_since, mjs_since = len(live.bridge.matter.events), len(live.mjs.events)
        await live.bridge.control("invoke", device="lamp", endpoint=1, cluster="OnOff", command="Toggle")
        path = f"{live.lamp}/6/0"
        await asyncio.gather(
            live.bridge.matter.wait_event(
                lambda e: e["event"] == "attribute_updated" and e["data"][1] == path and e["data"][2] is (not state),
                20,
                chip_since,
            ),
            live.mjs.wait_event(lambda e: e.get("path") == path and e["value"] is (not state), 20, mjs_since),
        )

    live.run(scenario())
    subscribed = [
        line for line in (live.work / "serve.log").read_text().splitlines() if "event=subscription_established" in line
    ]
    assert {line.split("fabric=")[1].split()[0] for line in subscribed} == {"1", "2"}, subscribed


def test_each_fabrics_acl_is_enforced_separately(live: Live) -> None:
    if live.mjs_node is None:
        pytest.skip("no second fabric")

    async def scenario() -> tuple[str, Any]:
        restricted = await live.mjs.call("restrict_acl", node_id=live.mjs_node, endpoint=0)
        assert restricted["entries"] and all(e["fabricIndex"] == 2 for e in restricted["entries"])
        with pytest.raises(MatterJsError) as refused:
            await live.mjs.call("invoke", node_id=live.mjs_node, endpoint=live.lamp, cluster=ON_OFF, command=2)
        before = await live.chip_lamp()
        await live.bridge.matter.call(
            "device_command",
            node_id=live.chip_node,
            endpoint_id=live.lamp,
            cluster_id=ON_OFF,
            command_name="Toggle",
            payload={},
        )
        return str(refused.value), (before, await live.chip_lamp())

    refusal, (before, after) = live.run(scenario())
    assert "UnsupportedAccess" in refusal or "126" in refusal, refusal
    assert after is (not before)  # fabric 1's administrator is untouched by fabric 2's ACL
    acl = live.fabric_state()["acl"]
    assert {e["fabricIndex"] for e in acl} == {1, 2}
    assert [e["targets"] for e in acl if e["fabricIndex"] == 1] == [None]
    log = (live.work / "serve.log").read_text()
    assert "event=acl_denied fabric=2" in log and f"endpoint={live.lamp} cluster=0x0006" in log


def test_removing_one_fabric_leaves_the_other_working(live: Live) -> None:
    if live.mjs_node is None:
        pytest.skip("no second fabric")

    async def scenario() -> None:
        await live.mjs.call("remove", node_id=live.mjs_node, timeout_s=60)
        await live.until_fabrics(1)
        # The CHIP controller's fabric, session and subscription carry on.
        state = await live.bridge.control("read", device="lamp", endpoint=1, cluster="OnOff", attribute="OnOff")
        since = len(live.bridge.matter.events)
        await live.bridge.control("invoke", device="lamp", endpoint=1, cluster="OnOff", command="Toggle")
        path = f"{live.lamp}/6/0"
        await live.bridge.matter.wait_event(
            lambda e: e["event"] == "attribute_updated" and e["data"][1] == path and e["data"][2] is (not state),
            20,
            since,
        )
        assert await live.chip_lamp() is (not state)
        await live.bridge.matter.call(
            "device_command",
            node_id=live.chip_node,
            endpoint_id=live.lamp,
            cluster_id=ON_OFF,
            command_name="Toggle",
            payload={},
        )
        assert await live.chip_lamp() is state

    live.run(scenario())
    assert [f["fabric_index"] for f in live.fabrics()] == [1]
    assert {e["fabricIndex"] for e in live.fabric_state()["acl"]} == {1}


def test_matter_js_opens_the_window_and_the_chip_controller_joins() -> None:
    """The other direction, with matter.js's own multi-admin call: ``openEnhancedCommissioningWindow()``
    revokes any open window first and accepts only FAILURE + the cluster status WindowNotOpen for "none
    open" (cluster-specific statuses on the wire), then opens one with a verifier of its own."""

    async def scenario(setup: Live) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
        first = await setup.mjs.call(
            "commission",
            passcode=PASSCODE,
            discriminator=DISCRIMINATOR,
            paa=str(setup.bridge.paa_dir / PAA_DER_FILE),
            timeout_s=120,
        )
        window = await setup.mjs.call("open_window", node_id=first["node_id"], timeout_s=60)
        node = await setup.bridge.matter.call(
            "commission_with_code", code=window["manual_code"], network_only=True, timeout_s=120
        )
        return window, node, setup.fabrics()

    with live_setup(Live, work_prefix="hf-multi-rev-", report="multi_admin_reverse_timings") as setup:
        window, node, fabrics = setup.run(scenario(setup), 240)
    assert len(window["manual_code"]) in (11, 21) and window["qr_code"].startswith("MT:")
    assert node["available"] and node["is_bridge"]
    assert len(fabrics) == 2 and fabrics[0]["label"] == "matter.js"
