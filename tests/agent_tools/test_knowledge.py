"""Offline cluster documentation search and physics-derived control rules."""

from __future__ import annotations

import json

import pytest

from agent_tools.cluster_docs import BM25, all_chunks, search, search_text, tokenize
from agent_tools.control_rules import control_rules, control_rules_payload
from emulator.catalogue import CATALOGUE
from emulator.physics import PhysicsParams


def test_tokenize_splits_camel_case() -> None:
    assert tokenize("PercentSetting of the FanControl") == [
        "percentsetting",
        "percent",
        "setting",
        "fancontrol",
        "fan",
        "control",
    ]


def test_docs_cover_every_cluster_and_device_type() -> None:
    titles = {c.title for c in all_chunks()}
    assert "Cluster FanControl (0x0202)" in titles
    assert {f"Device type {name}" for name in CATALOGUE} <= titles


def test_every_served_cluster_and_every_physics_role_is_documented() -> None:
    from agent_tools.cluster_docs import _ROLE_EFFECTS, cluster_chunks

    served = {spec.cluster for t in CATALOGUE.values() for ep in t.endpoints for spec in ep.clusters}
    titles = {c.title.split(" (")[0] for c in all_chunks()}
    assert {f"Cluster {name}" for name in served} <= titles
    for name in served:  # a page says what the cluster is, not only its attribute table
        assert len(cluster_chunks(name)[0].text.split("\n", 1)[-1]) > 40, name
    roles = {role for t in CATALOGUE.values() for role, _ in t.roles}
    assert roles <= set(_ROLE_EFFECTS), roles - set(_ROLE_EFFECTS)


def test_button_presses_and_charging_sessions_are_documented_as_events() -> None:
    switch = search_text("Switch MultiPressComplete event totalNumberOfPressesCounted", 3)
    assert "- Switch.MultiPressComplete (event id 6): previousPosition, totalNumberOfPressesCounted" in switch
    assert "- EnergyEvse.EnergyTransferStarted" in search_text("EnergyEvse EnergyTransferStarted event", 3)
    valve = next(c.text for c in all_chunks() if c.title == "Device type water_valve")
    assert "Physics role flow_meter (endpoint 2): FlowMeasurement.MeasuredValue follows the valve" in valve


def test_fan_speed_percent_finds_fan_control() -> None:
    top = search("fan speed percent", 3)
    assert top[0].title.startswith("Cluster FanControl")
    attributes = search("FanControl PercentSetting range", 1)[0].text
    assert "- FanControl.PercentSetting: uint (nullable), writable, range 0..100" in attributes


def test_dishwasher_start_finds_the_dishwasher_and_its_power_rule() -> None:
    top = search("dishwasher start", 3)
    assert top[0].title == "Device type dishwasher"
    assert "OperationalState (commands" in top[0].text and "Start" in top[0].text
    assert "OnOff.On" in top[0].text  # dead front: switch on first


def test_docs_carry_ranges_enums_and_aliases() -> None:
    # Asks for the cluster's attribute: device-type chunks that mention SystemMode in prose rank close to the
    # cluster chunk for a bare "Thermostat SystemMode", and their order shifts whenever the catalogue grows.
    text = search_text("Thermostat cluster SystemMode enum Cool Heat", 3)
    assert "Thermostat.SystemMode: enum SystemModeEnum (Off=0, Auto=1, Cool=3, Heat=4" in text
    setpoints = search("cooling setpoint range", 1)[0].text
    assert "Thermostat.OccupiedCoolingSetpoint: int, writable, range 1600..3200" in setpoints
    commands = search_text("WindowCovering GoToLiftPercentage lift_percent_100ths", 2)
    assert "lift_percent_100ths" in commands and "0..10000" in commands


def test_search_is_deterministic_and_bounded() -> None:
    assert search_text("light level", 4) == search_text("light level", 4)
    assert len(search("light level", 4)) == 4
    assert search_text("zzzz qqqq", 3) == ""


def test_bm25_ties_break_by_document_order() -> None:
    index = BM25([["fan"], ["fan"], ["light"]])
    assert index.top(["fan"], 3) == [0, 1]


def _types(state: str) -> set[str]:
    return {rule["device_type"] for rule in control_rules(state)}


def test_control_rules_list_only_acting_device_types() -> None:
    assert {"air_conditioner", "heat_pump", "fan"} <= _types("temperature")
    assert "air_purifier" not in _types("temperature") and "tv" not in _types("temperature")
    assert _types("air_quality") == {"air_purifier"}
    assert _types("humidity") == {"humidifier", "dehumidifier"}
    assert {"on_off_light", "dimmable_light", "window_covering_controller"} <= _types("illuminance")


def test_air_conditioner_rule_actions_and_equilibrium() -> None:
    cool = next(
        r
        for r in control_rules("temperature")
        if r["device_type"] == "air_conditioner" and r["direction"] == "decrease"
    )
    required = [
        (a["cluster_id"], a.get("command_id") or a.get("attribute_id"), a.get("value"))
        for a in cool["actions"]["required"]
    ]
    assert required[:2] == [("OnOff", "On", None), ("Thermostat", "SystemMode", 3)]
    assert ("FanControl", "PercentSetting") in {
        (a["cluster_id"], a.get("attribute_id")) for a in cool["actions"]["optional"]
    }
    assert "2.5 °C" in cool["note"] and "22.50 °C" in cool["note"]
    heat_pump = next(
        r for r in control_rules("temperature") if r["device_type"] == "heat_pump" and r["direction"] == "increase"
    )
    assert all(a["endpoint_id"] == 4 for a in heat_pump["actions"]["required"])
    assert not any(a["cluster_id"] == "OnOff" for a in heat_pump["actions"]["required"])


def test_rules_follow_physics_params() -> None:
    faster = control_rules("temperature", PhysicsParams(hvac_rate_c_per_s=0.001))
    ac = next(r for r in faster if r["device_type"] == "air_conditioner")
    assert "5.0 °C" in ac["note"]
    assert "window_covering_controller" not in {
        r["device_type"] for r in control_rules("illuminance", PhysicsParams(covering_blocks_daylight=0))
    }


@pytest.mark.parametrize("state", ["temperature", "humidity", "air_quality", "illuminance"])
def test_payload_shape(state: str) -> None:
    payload = control_rules_payload(state)
    assert set(payload) == {"state", "control_rules"} and payload["state"] == state
    rules = json.loads(payload["control_rules"])
    for rule in rules:
        assert {"device_type", "actions", "note"} <= set(rule) and set(rule["actions"]) == {"required", "optional"}
        for action in rule["actions"]["required"] + rule["actions"]["optional"]:
            assert action["type"] in ("execute_command", "write_attribute")


def test_outputs_do_not_depend_on_hash_seed() -> None:
    """Docs, rules and structures are byte-identical across interpreter runs (no set/hash ordering)."""
    import os
    import subprocess
    import sys

    script = (
        "import hashlib, json\n"
        "from agent_tools import ToolBox\n"
        "from emulator.emulated_home import EmulatedHome\n"
        "from emulator.home_generation.generator import generate_home\n"
        "t = ToolBox(EmulatedHome(generate_home('simuhome', 3)))\n"
        "out = [t.call('get_cluster_doc', {'query': 'fan speed percent', 'top_k': 5}),\n"
        "       t.call('get_environment_control_rules', {'state': 'temperature'}),\n"
        "       t.call('get_device_structure', {'device_id': 'kitchen_dishwasher_1'}), t.schemas()]\n"
        "print(hashlib.sha256(json.dumps(out).encode()).hexdigest())\n"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(digests) == 1
