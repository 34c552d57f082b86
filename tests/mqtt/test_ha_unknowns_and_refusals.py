"""Home Assistant, for real (issue 21): no entity published as ``null`` ("unknown" in Home Assistant) where the
home knows better, and a command homefabric refuses reaches Home Assistant — as the device's "Command refused"
event entity, with the refused entity's unchanged state sent again so an optimistic control snaps back. Against a
real mosquitto started by the test, with Home Assistant's documented discovery schema (tests/mqtt/ha_schema.py)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import jsonschema

from bridge.mqtt.entities import REFUSED_EVENT, entities_for
from bridge.mqtt.state import entity_state
from emulator.emulated_home import EmulatedHome
from emulator.home_generation.generator import generate_home
from tests.emulator.helpers import fabric as make_fabric
from tests.mqtt.broker import Mosquitto, Recorder, on_topic
from tests.mqtt.ha_schema import DEVICE_CONFIG, semantic_problems
from tests.mqtt.test_bridge_live import ROOT, bridge_for, command_topic, run, state_topic


def _nulls(fabric: EmulatedHome) -> dict[str, list[str]]:
    """device type / entity → the fields published as null."""
    out: dict[str, list[str]] = {}
    for device in fabric.devices():
        for entity in entities_for(device):
            state = entity_state(fabric, entity) or {}
            nulls = sorted(key for key, value in state.items() if value is None)
            if nulls:
                out.setdefault(f"{device.device_type}/{entity.key}", []).extend(nulls)
    return out


def test_idle_appliances_media_volume_meters_and_energy_publish_values_not_null() -> None:
    simple, complex_home = EmulatedHome(generate_home("simple", 3)), EmulatedHome(generate_home("complex", 3))
    # What is left: a plug that is on, with nothing modelled plugged in, has no load to report (unknown).
    for fabric in (simple, complex_home):
        assert {key for key in _nulls(fabric) if not key.startswith("smart_plug/power_")} == set()
    # The meter nothing feeds (SimuHome's electrical sensor) has no power or energy entity at all …
    meter = next(d for d in complex_home.devices() if d.device_type == "electrical_sensor")
    assert not {e.options.get("sensor") for e in entities_for(meter)} & {"power", "energy"}
    # … and a robot vacuum, which has no phases, no phase entity.
    vacuum = next(d for d in complex_home.devices() if d.device_type == "rvc")
    assert "phase" not in {e.options.get("sensor") for e in entities_for(vacuum)}


def test_values_that_stood_for_unknown_are_the_homes_real_values() -> None:
    fabric = make_fabric(
        [
            ("washer", "laundry_washer", "utility"),
            ("tv", "tv", "living"),
            ("pump", "heat_pump", "utility"),
            ("plug", "smart_plug", "living"),
        ]
    )

    def value(device: str, key: str) -> dict[str, Any]:
        entity = next(e for e in entities_for(fabric.device(device)) if e.key == key)
        return entity_state(fabric, entity) or {}

    assert value("washer", "phase_1") == {"value": "idle"} and value("washer", "countdown_1") == {"value": 0}
    assert value("tv", "volume_1") == {"value": 0}  # never set: the bottom of its range, as the dashboard shows
    energy = next(e.key for e in entities_for(fabric.device("pump")) if e.options.get("sensor") == "energy")
    power_w = fabric.read("pump", 2, "ElectricalPowerMeasurement", "ActivePower") / 1000
    assert value("pump", energy) == {"value": 0.0}
    fabric.advance(3600)  # an hour at a steady standby draw: integrated, though the attribute is still null
    assert fabric.read("pump", 2, "ElectricalEnergyMeasurement", "CumulativeEnergyImported") is None
    assert value("pump", energy) == {"value": round(power_w / 1000, 3)}
    # Off: the plug's relay is open, 0 W; its energy is a number from the start.
    assert value("plug", "power_2") == {"value": 0.0} and value("plug", "energy_2") == {"value": 0.0}
    # Washer running: the phase is the cycle's, the countdown its own.
    fabric.invoke("washer", 1, "OnOff", "On")
    fabric.invoke("washer", 1, "OperationalState", "Start")
    assert value("washer", "phase_1") != {"value": "idle"} and value("washer", "countdown_1")["value"] > 0


def test_a_refused_command_is_a_home_assistant_event_and_the_state_snaps_back(broker: Mosquitto) -> None:
    fabric = make_fabric([("tv", "tv", "living"), ("dishwasher", "dishwasher", "kitchen")])
    assert fabric.read("tv", 1, "OnOff", "OnOff") is False and fabric.read("dishwasher", 1, "OnOff", "OnOff") is False

    async def scenario() -> None:
        async with bridge_for(fabric, broker) as bridge, Recorder(broker.port, "homeassistant/#", f"{ROOT}/#") as rec:
            await bridge.wait_connected()
            config = (await rec.wait_for(on_topic(bridge.topics.discovery("tv"))))[0].json()
            jsonschema.validate(config, DEVICE_CONFIG)
            assert semantic_problems(config) == []
            event = config["cmps"]["command_refused"]
            assert event["p"] == "event" and event["state_topic"] == f"{ROOT}/tv/error"
            assert event["event_types"] == [REFUSED_EVENT]
            before = fabric.snapshot()

            # TV volume while the TV is off: refused; Home Assistant gets the event and the unchanged volume
            await rec.wait_for(on_topic(state_topic("tv", "volume_1")))
            mark = rec.mark()
            await rec.publish(command_topic("tv", "volume_1"), "60")
            answer = (await rec.wait_for(on_topic(f"{ROOT}/tv/error"), since=mark))[0]
            refusal = answer.json()
            assert refusal["event_type"] == REFUSED_EVENT and "off" in refusal["message"]
            assert refusal["error"]["code"] == "DEPENDENCY_VIOLATION" and not answer.retain
            again = (await rec.wait_for(on_topic(state_topic("tv", "volume_1")), since=mark))[0]
            assert again.json() == {"value": 0}

            # the dishwasher's Start while it is off: the same, on its own topic
            mark = rec.mark()
            await rec.publish(command_topic("dishwasher", "start_1"), "PRESS")
            refusal = (await rec.wait_for(on_topic(f"{ROOT}/dishwasher/error"), since=mark))[0].json()
            assert refusal["event_type"] == REFUSED_EVENT and refusal["message"]
            await asyncio.sleep(0.1)
            assert EmulatedHome.diff(before, fabric.snapshot()) == []
            assert json.loads(json.dumps(refusal)) == refusal  # attributes Home Assistant can store

    run(scenario())
