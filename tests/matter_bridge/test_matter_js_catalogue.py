"""Every catalogue type served at once and read back by a second, independent controller stack (matter.js 0.17.9,
see test_matter_js_e2e.py): ``homefabric serve`` bridges a home holding one device of each type; matter.js
commissions it and reads the whole node with a wildcard read, decoding every attribute with its own model of the
specification. Nothing may be left undecoded, and each device's bridged endpoint carries its official device type.
Run under ``flock /tmp/homefabric-live.lock``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from emulator.catalogue import CATALOGUE
from tests.matter_bridge.live_setup import LiveSetup, live_setup
from tests.matter_bridge.test_matter_js_e2e import BRIDGED_NODE, Live
from tests.requirements import LIVE_CONTROLLER

pytestmark = pytest.mark.requires(*LIVE_CONTROLLER, "node", "matter.js")


def write_catalogue_home(path: Path) -> Path:
    from emulator.home_config import HomeConfig, dump_home

    home = HomeConfig.model_validate(
        {
            "name": "catalogue home",
            "base_time": "2025-06-21 12:00:00",
            "extensions": {},
            "rooms": [
                {
                    "id": "room",
                    "name": "room",
                    "type": "room",
                    "environment": {"temperature": 2200, "humidity": 5000, "illuminance": 300, "pm10": 20},
                }
            ],
            "devices": [{"id": name, "type": name, "room": "room", "attributes": {}} for name in sorted(CATALOGUE)],
        }
    )
    path.write_text(dump_home(home))
    return path


class CatalogueLive(Live):
    """Live's commissioning (matter.js, strict attestation) against the home of every type."""

    run_timeout_s = 300

    def __init__(self, work: Path) -> None:
        LiveSetup.__init__(
            self,
            work,
            speed=1,
            namespace_prefix="hfk",
            matter_server=False,
            matter_js=True,
            home=write_catalogue_home(work / "home.json"),
        )
        self.found: list[dict[str, Any]] = []
        self.commissioned: dict[str, Any] = {}


@pytest.fixture(scope="module")
def live() -> Iterator[CatalogueLive]:
    with live_setup(
        CatalogueLive, work_prefix="hf-mjk-", report="matter_js_catalogue_timings", start_timeout_s=240
    ) as setup:
        yield setup


def test_every_catalogue_type_is_read_back_clean(live: CatalogueLive) -> None:
    node_id = live.need_node()

    async def scenario() -> dict[str, Any]:
        started = time.monotonic()
        result = await live.mjs.call("read_all", node_id=node_id, timeout_s=280)
        live.timings["read_all_s"] = time.monotonic() - started
        return result

    result = live.run(scenario(), 300)
    values = result["values"]
    assert result["undecoded"] == []  # matter.js's model knows every cluster and attribute we serve
    assert len(live.layout) == len(CATALOGUE) >= 55
    bridged = sorted(int(n) for entry in live.layout.values() for n in entry["endpoints"].values())
    assert result["endpoints"] == 2 + len(bridged)  # root + aggregator + every device's endpoints
    for name, spec in CATALOGUE.items():
        for endpoint_spec in spec.endpoints:
            ep = live.endpoint(name, endpoint_spec.endpoint_id)
            served = {d["deviceType"] for d in values[f"{ep}/29/0"]}
            assert {t for t, _ in endpoint_spec.device_types} <= served, (name, endpoint_spec.endpoint_id)
            servers = set(values[f"{ep}/29/1"])
            assert {s.build().cluster_id for s in endpoint_spec.clusters} <= servers, name
        assert BRIDGED_NODE in {d["deviceType"] for d in values[f"{live.endpoint(name)}/29/0"]}
        assert values[f"{live.endpoint(name)}/57/5"] == name  # NodeLabel
    valve = live.endpoint("water_valve")
    assert values[f"{valve}/129/4"] == 0  # ValveConfigurationAndControl.CurrentState: closed
    evse = live.endpoint("evse")
    assert values[f"{evse}/153/0"] == 0  # EnergyEvse.State: not plugged in
