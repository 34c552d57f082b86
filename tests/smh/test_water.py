"""Water in SMH-Bench (issue 22): the valve and the leak sensor in the HomeEnv view, the opt-in ``water`` homes
and the templates that use them, solved by the oracle and by no null agent."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from agent_tools.smh.home_env import HomeEnv
from agent_tools.smh.rules import SmhAutomation, SmhCondition, SmhTrigger, to_spec
from benchmark.runs.spec import parse_spec
from benchmark.suites.smh.generate import generate_suite
from benchmark.suites.smh.generate.core import act
from benchmark.suites.smh.instance import Instance, load_instances
from benchmark.suites.smh.runner import SmhRunner
from emulator.emulated_home import EmulatedHome
from emulator.home_config import load_home
from emulator.scenarios import sense_water
from tests.smh.homes import every_product_home

WATER_SUBS = ("clear_command", "colloquial_request", "noisy_utterance", "state_driven", "status_inquiry")


@pytest.fixture(scope="module")
def water_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("smh-water")
    generate_suite(out, 7, {"simple": 4, "medium": 2, "complex": 2}, WATER_SUBS, water=True)
    return out


def _mentions_water(instance: Instance) -> bool:
    text = instance.model_dump_json()
    return "water_valve" in text or "leak" in text


def test_the_valve_is_a_water_valve_product_with_open_and_close() -> None:
    fabric = every_product_home()
    env = HomeEnv(fabric)
    view = env.export_device("water_valve")
    assert (view["userdata"]["category"], view["userdata"]["subcategory"]) == ("valve", "water_valve")
    assert [s["name"] for s in view["services"]] == ["open", "close"]
    (state,) = view["attributes"]
    assert (state["name"], state["options"], state["value"]) == ("state", ["closed", "open"], "closed")
    opened = env.call("water_valve", "open")
    assert opened.ok and opened.changes == [
        {"did": "water_valve", "attribute": "state", "old": "closed", "new": "open"}
    ]
    assert fabric.read_path("water_valve", "1.ValveConfigurationAndControl.TargetState") == 1
    fabric.advance(5)  # the valve's 3 s travel ends: CurrentState open, no target
    assert fabric.read_path("water_valve", "1.ValveConfigurationAndControl.CurrentState") == 1
    assert env.read("water_valve", "state") == "open"
    assert env.call("water_valve", "close").ok and env.read("water_valve", "state") == "closed"
    refused = env.call("water_valve", "close", {"seconds": 3})
    assert refused.code == "UNKNOWN_ARGUMENT"


def test_a_leak_rule_built_from_smh_terms_closes_the_valve_when_water_appears() -> None:
    fabric = every_product_home()
    env = HomeEnv(fabric)
    sensor = env.export_device("water_leak_detector")
    assert (sensor["userdata"]["category"], sensor["userdata"]["subcategory"]) == ("sensor", "leak_sensor")
    assert sensor["attributes"][0]["name"] == "leak_detected" and sensor["attributes"][0]["value"] == "no"
    assert env.call("water_valve", "open").ok
    fabric.advance(5)
    rule = SmhAutomation(
        trigger=SmhTrigger(
            state=SmhCondition(did="water_leak_detector", attribute="leak_detected", op="==", value="yes")
        ),
        actions=[act("water_valve", "close")],
    )
    fabric.add_automation(to_spec(env, rule))
    sense_water(fabric, "water_leak_detector", True)
    fabric.advance(5)
    assert env.read("water_leak_detector", "leak_detected") == "yes"
    assert fabric.read_path("water_valve", "1.ValveConfigurationAndControl.CurrentState") == 0
    assert env.read("water_valve", "state") == "closed"


def test_water_homes_hold_one_main_valve_and_leak_sensors_in_wet_rooms(water_dir: Path) -> None:
    assert json.loads((water_dir / "suite.json").read_text())["water"] is True
    for path in sorted((water_dir / "homes").glob("*.json")):
        home = load_home(path)
        kinds = Counter(d.type for d in home.devices)
        assert kinds["water_valve"] == 1 and kinds["water_leak_detector"] >= 1, path.name
        rooms = {r.id: r.type for r in home.rooms}
        for device in home.devices:
            if device.type == "water_leak_detector":
                assert rooms[device.room] in ("kitchen", "bathroom", "utility_room", "toilet"), path.name
        EmulatedHome(home)  # the fabric builds it


def test_templates_take_their_water_variants(water_dir: Path) -> None:
    instances = load_instances(water_dir)
    water = [i for i in instances if _mentions_water(i)]
    subs = {i.subcategory for i in water}
    assert {"state_driven", "status_inquiry", "clear_command"} <= subs, subs
    leak_rules = [
        a
        for i in water
        if i.subcategory == "state_driven"
        for a in i.goal.automations
        if a.trigger.state and a.trigger.state.attribute == "leak_detected"
    ]
    assert leak_rules and all(r.actions[0].locator == "close" for r in leak_rules)
    asked = [i for i in water if i.subcategory == "status_inquiry"]
    assert all(i.goal.answer and set(i.goal.answer.facts) <= {"yes", "no"} for i in asked)


@pytest.mark.parametrize(("agent", "rate"), [("oracle", 100.0), ("null", 0.0)])
def test_the_oracle_solves_every_water_instance_and_the_null_agent_none(
    water_dir: Path, tmp_path: Path, agent: str, rate: float
) -> None:
    spec = parse_spec(
        {
            "suite": "smh",
            "episodes": {"path": str(water_dir)},
            "agent": {"name": agent},
            "out": str(tmp_path / agent),
            "concurrency": 1,
            "smh": {"settings": ["dr", "eia"]},
        }
    )
    result = asyncio.run(SmhRunner(spec, tmp_path / agent).run())
    assert result.ran == 2 * len(load_instances(water_dir))
    assert result.summary["overall"]["success_rate"] == rate


def test_with_water_joins_only_the_smh_suite_on_the_command_line(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "homefabric_cli.main", "episodes", "generate", "--with-water"]
    refused = subprocess.run([*command, "--out", str(tmp_path / "e")], capture_output=True, text=True)
    assert refused.returncode == 2
    assert refused.stderr.strip() == "error: --with-water works with --suite smh, not simuhome"
    assert not (tmp_path / "e").exists()
    out = tmp_path / "smh"
    done = subprocess.run(
        [*command, "--suite", "smh", "--per-subcategory", "1,0,0", "--out", str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "suite.json").read_text())["water"] is True
    assert all("water_valve" in p.read_text() for p in (out / "homes").glob("*.json"))
