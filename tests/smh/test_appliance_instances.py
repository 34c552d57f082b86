"""Every generator operation on an appliance (the microwave, fridge, freezer and washer options included) becomes
an instance the fabric replays (setup and reference succeed, doing nothing fails), the oracle solves in both
settings, and a wrong action fails the verifier."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from agent_tools.smh.home_env import HomeEnv
from agent_tools.smh.rules import Action
from benchmark.suites.smh.agents import NullDr, OracleDr, OracleEia
from benchmark.suites.smh.generate import _instance
from benchmark.suites.smh.generate.core import Draft, Scene, act
from benchmark.suites.smh.generate.homes import APPLIANCES, build_home
from benchmark.suites.smh.generate.ops import appliance_ops, colloquial_ops
from benchmark.suites.smh.heating import with_heating_results
from benchmark.suites.smh.instance import Instance, dump_instance
from benchmark.suites.smh.run import run_suite
from benchmark.suites.smh.session import Homes
from benchmark.suites.smh.verifier import AttemptedAction, Prediction, verify
from emulator.emulated_home import EmulatedHome
from emulator.files import write_atomically
from emulator.home_config import HomeConfig, dump_home

NEW_SERVICES = {
    "microwave_steam_oven.set_cooking_time",
    "microwave_steam_oven.set_power_level",
    "microwave_steam_oven.set_work_mode",
    "microwave_steam_oven.start",
    "set_mode",
    "set_spin_speed",
    "set_rinses",
}


def _home() -> HomeConfig:
    for seed in range(50):  # the first seed whose drawn rooms hold a kitchen and a utility room
        try:
            return build_home(
                "appliances",
                "medium",
                seed,
                (
                    ("microwave_oven", "refrigerator", "oven", "dishwasher"),
                    ("freezer",),
                    ("laundry_washer", "laundry_dryer"),
                    ("water_heater",),
                ),
            )
        except ValueError:
            continue
    raise AssertionError("no medium home holds the appliances")


@pytest.fixture(scope="module")
def appliance_ops_suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Instance]]:
    home = _home()
    setup: list[Action] = []
    fabric = EmulatedHome(home)
    env = HomeEnv(fabric)
    for did in [d.id for d in home.devices if d.type in ("laundry_washer", "laundry_dryer", "dishwasher")]:
        if env.read(did, "state") == "off":  # so that their programme options are offered too
            setup.append(act(did, "turn_on"))
            assert env.call(did, "turn_on").ok
    scene = Scene(home, random.Random(3), "medium", fabric=fabric)
    ops = [op for did in scene.of(*APPLIANCES) for op in appliance_ops(scene, did) + colloquial_ops(scene, did)]
    drafts = [
        Draft(f"{phrase[0].upper()}{phrase[1:]}.", "execute", [action], setup=list(setup)) for phrase, action in ops
    ]
    instances = [
        _instance("clear_command", "medium", index, "homes/appliances.json", home, scene, draft)
        for index, draft in enumerate(drafts)
    ]
    out = tmp_path_factory.mktemp("smh-appliance-ops")
    for folder in ("homes", "instances"):
        (out / folder).mkdir()
    write_atomically(out / "homes" / "appliances.json", dump_home(home))
    for instance in instances:
        write_atomically(out / "instances" / f"{instance.id}.json", dump_instance(instance))
    return out, instances


def test_every_new_service_is_exercised(appliance_ops_suite: tuple[Path, list[Instance]]) -> None:
    suite_dir, instances = appliance_ops_suite
    types = {d.id: d.type for d in Homes(suite_dir).config("homes/appliances.json").devices}
    assert {types[a.did] for i in instances for a in i.goal.reference} == set(APPLIANCES)
    assert {a.locator for i in instances for a in i.goal.reference} >= NEW_SERVICES


def test_the_oracle_solves_them_in_both_settings_and_the_null_agent_none(
    appliance_ops_suite: tuple[Path, list[Instance]],
) -> None:
    suite_dir, instances = appliance_ops_suite
    for setting, agent in (("dr", OracleDr()), ("eia", OracleEia())):
        records = asyncio.run(run_suite(suite_dir, instances, setting, agent))
        assert [(r["instance_id"], r["verdict"]["detail"]) for r in records if not r["verdict"]["overall_pass"]] == []
    records = asyncio.run(run_suite(suite_dir, instances, "dr", NullDr()))
    assert [r["instance_id"] for r in records if r["verdict"]["overall_pass"]] == []


def _wrong_values(env: HomeEnv, action: Action) -> list[Action]:
    """The same service with each argument in turn moved to another value its schema allows; without arguments,
    the device's other argument-free services."""
    component, _, name = action.locator.rpartition(".")
    view = env.export_device(action.did)
    services = (
        view["services"] if not component else next(c for c in view["components"] if c["name"] == component)["services"]
    )
    service = next(s for s in services if s["name"] == name)
    if not action.arguments:
        prefix = f"{component}." if component else ""
        return [
            Action(did=action.did, locator=prefix + s["name"], arguments={})
            for s in services
            if not s["arguments"] and s["name"] != name
        ]
    out = []
    for schema in service["arguments"]:
        key, value = schema["name"], action.arguments[schema["name"]]
        if "options" in schema:
            wrong = next(o for o in schema["options"] if o != value)
        else:
            step, high = schema.get("precision", 1), schema["range"][1]
            wrong = value + step if value + step <= high else value - step
        out.append(Action(did=action.did, locator=action.locator, arguments={**action.arguments, key: wrong}))
    return out


def _verdict(homes: Homes, instance: Instance, actions: list[Action]) -> bool:
    env = homes.h0(instance)
    h0_state = env.state()
    attempted = []
    for action in actions:
        result = env.call(action.did, action.locator, action.arguments)
        attempted.append(
            AttemptedAction(
                did=action.did,
                locator=action.locator,
                arguments=action.arguments,
                code=result.code,
                message=result.message,
            )
        )
    prediction = Prediction(instance_id=instance.id, setting="eia", agent="fixed", mode="execute", actions=attempted)
    final = with_heating_results(env, h0_state, env.state())  # as both settings do
    return verify(instance, prediction, h0_state, final, lambda: homes.h0(instance)).overall_pass


def test_a_wrong_action_fails_the_verifier(appliance_ops_suite: tuple[Path, list[Instance]]) -> None:
    """Another value for the same service fails; so does the right action plus a change nobody asked for."""
    suite_dir, instances = appliance_ops_suite
    homes = Homes(suite_dir)
    for instance in instances:
        gold = instance.goal.reference
        assert _verdict(homes, instance, gold), instance.id
        wrong = _wrong_values(homes.h0(instance), gold[0])
        assert wrong, instance.id
        for action in wrong:
            assert not _verdict(homes, instance, [action]), (instance.id, action)
        extra = next(i.goal.reference[0] for i in instances if i.goal.reference[0].did != gold[0].did)
        assert not _verdict(homes, instance, [*gold, extra]), instance.id


def test_the_check_reads_the_quantity_start_heating_set() -> None:
    """Above the tank's level the recorded target is exactly the one asked for; at or below it the tank stays (the
    generator asks only for targets above it)."""
    from tests.smh.homes import every_product_home

    for quantity, recorded in ((80, 80), (100, 100), (30, 50)):
        env = HomeEnv(every_product_home())
        h0_state = env.state()
        assert env.read("water_heater", "water_quantity") == 50
        assert env.call(
            "water_heater",
            "start_heating",
            {"work_mode": "manual", "target_water_quantity": quantity, "target_water_temperature": 60},
        ).ok
        final = with_heating_results(env, h0_state, env.state())
        assert final["water_heater"]["target_water_quantity"] == recorded
        assert final["water_heater"]["heating_state"] == "heating"  # the state the episode ended in
    untouched = HomeEnv(every_product_home())
    assert (
        "target_water_quantity"
        not in with_heating_results(untouched, untouched.state(), untouched.state())["water_heater"]
    )
