"""Live: the agent tools over devices homefabric did not make — the matter.js device zoo (``tests/matter_zoo``),
commissioned into python-matter-server 7.0.1 with strict attestation inside a network namespace.

Every tool answer is compared with an independent read (python-matter-server's ``read_attribute`` over the
harness's own websocket, not through the backend); every absent endpoint, cluster or attribute the tools are
asked for must be an error — and the controller is shown to have answered it with a status, so the real path is
the one under test; ids, rooms, types and names are what ``zoo.json`` built, and stay the same after devices are
decommissioned and commissioned again in another order.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_tools.matter_backend import MatterDevice, MatterHome, load_mapping
from agent_tools.matter_backend.naming import (
    attribute_names_by_id,
    attribute_value,
    cluster_by_name,
    cluster_names_by_id,
    status_in_value,
)
from agent_tools.toolbox import ToolBox
from tests.matter_bridge.live_env import HOMEFABRIC
from tests.matter_bridge.live_setup import live_work
from tests.matter_zoo.zoo_env import ZOO_REQUIREMENTS, Zoo, expected_devices, zoo_home
from tests.requirements import LIVE_CONTROLLER

pytestmark = pytest.mark.requires(*LIVE_CONTROLLER, *ZOO_REQUIREMENTS)

# Attributes that move by themselves between two reads (clocks, counters), and the lists the tools leave out.
BENCH_PER_TYPE = 4  # episodes per query type and case generated on the twin (qt1, qt3)
VOLATILE_CLUSTERS = {
    "GeneralDiagnostics",
    "TimeSynchronization",
    "OperationalCredentials",
    "AccessControl",
    "GeneralCommissioning",
    "AdministratorCommissioning",
    "NetworkCommissioning",
    "GroupKeyManagement",
    "IcdManagement",
}


@pytest.fixture(scope="module")
def zoo() -> Iterator[Zoo]:
    with live_work("hf-zoo-") as work, zoo_home(work) as zoo:
        zoo.commission_all()
        yield zoo


@pytest.fixture(scope="module")
def home(zoo: Zoo) -> Iterator[MatterHome]:
    home = MatterHome.connect(zoo.url, connect_context=zoo.socket_context)
    yield home
    home.close()


def device_of(home: MatterHome, key: str) -> MatterDevice:
    entry = expected_devices()[key]
    serial = {**entry.get("basic", {}), **entry.get("info", {})}["serialNumber"]
    return next(d for d in home.devices() if d.serial_number == serial)


def independent(zoo: Zoo, device: MatterDevice, path: str) -> Any:
    """One attribute (``ep/cluster/attr`` on the node) as python-matter-server reads it, raw."""
    return zoo.call("read_attribute", node_id=device.node_id, attribute_path=path).get(path)


def independent_value(zoo: Zoo, device: MatterDevice, endpoint: int, cluster: str, attribute: str) -> Any:
    model = cluster_by_name(cluster)
    assert model is not None
    path = f"{device.endpoints[endpoint]}/{model.cluster_id}/{model.attribute(attribute).attribute_id}"
    raw = independent(zoo, device, path)
    assert status_in_value(raw) is None, (path, raw)
    return attribute_value(cluster, attribute, raw)


def call(tools: ToolBox, name: str, **arguments: Any) -> dict[str, Any]:
    return tools.call(name, arguments)


def ok(answer: dict[str, Any]) -> Any:
    assert answer["error"] is None, answer
    return answer["data"]


# ---------------------------------------------------------------------------------- discovery
def test_ids_names_rooms_and_types_are_as_built(home: MatterHome) -> None:
    tools = ToolBox(home)
    assert len(home.devices()) == len(expected_devices())
    rooms = {r["room_id"] for r in ok(call(tools, "get_rooms"))["rooms"]}
    for key, entry in expected_devices().items():
        device = device_of(home, key)
        spec = {**entry.get("basic", {}), **entry.get("info", {})}
        assert (device.device_type, device.room_id) == (entry["expect"]["device_type"], entry["expect"]["room"]), key
        assert device.device_id == spec["uniqueId"].replace("-", "_"), key
        assert device.name == spec.get("nodeLabel", spec["productName"]), key
        assert device.room_id in rooms
        room_devices = ok(call(tools, "get_room_devices", room_id=device.room_id))
        assert room_devices[device.device_id] == {"device_type": device.device_type}


# ---------------------------------------------------------------------------------- reads
def test_every_attribute_read_matches_an_independent_read(home: MatterHome, zoo: Zoo) -> None:
    tools = ToolBox(home)
    names = cluster_names_by_id()
    compared = 0
    for device in home.devices():
        flat = ok(call(tools, "get_all_attributes", device_id=device.device_id))
        structure = ok(call(tools, "get_device_structure", device_id=device.device_id))
        for endpoint_text, described in structure["endpoints"].items():
            for cluster, entry in described["clusters"].items():
                if cluster in VOLATILE_CLUSTERS:
                    continue
                accepted = flat.get(f"{endpoint_text}.{cluster}.AcceptedCommandList") or []
                assert len(entry["commands"]) <= len(accepted), (device.device_id, cluster)
                for attribute, item in entry["attributes"].items():
                    assert item["value"] == flat[f"{endpoint_text}.{cluster}.{attribute}"], (
                        device.device_id,
                        attribute,
                    )
        for endpoint, number in sorted(device.endpoints.items()):
            raw = zoo.call("read_attribute", node_id=device.node_id, attribute_path=f"{number}/*/*")
            for path, value in sorted(raw.items()):
                _, cluster_id, attribute_id = (int(p) for p in path.split("/"))
                cluster = names.get(cluster_id)
                attribute = attribute_names_by_id(cluster).get(attribute_id) if cluster else None
                if cluster is None or attribute is None or cluster in VOLATILE_CLUSTERS:
                    continue
                if device.bridged and cluster in ("BasicInformation",):
                    continue
                expected = attribute_value(cluster, attribute, value)
                key = f"{endpoint}.{cluster}.{attribute}"
                assert flat.get(key) == expected, (device.device_id, key, flat.get(key), expected)
                answer = call(
                    tools,
                    "get_attribute",
                    device_id=device.device_id,
                    endpoint_id=endpoint,
                    cluster_id=cluster,
                    attribute_id=attribute,
                )
                assert ok(answer) == expected, (device.device_id, key)
                compared += 1
    assert compared > 300, compared  # every device, every endpoint, its clusters' attributes


def test_identity_on_endpoint_0_and_room_states(home: MatterHome, zoo: Zoo) -> None:
    tools = ToolBox(home)
    for key in ("hall_light", "plug", "front_lock"):
        device = device_of(home, key)
        for attribute in ("VendorName", "ProductName", "SerialNumber", "UniqueID"):
            answer = ok(
                call(
                    tools,
                    "get_attribute",
                    device_id=device.device_id,
                    endpoint_id=0,
                    cluster_id="BasicInformation",
                    attribute_id=attribute,
                )
            )
            assert answer == independent_value(zoo, device, 0, "BasicInformation", attribute)
    porch = device_of(home, "porch_light")  # bridged: its endpoint-0 identity is the BridgedDeviceBasicInformation
    serial = ok(
        call(
            tools,
            "get_attribute",
            device_id=porch.device_id,
            endpoint_id=0,
            cluster_id="BasicInformation",
            attribute_id="SerialNumber",
        )
    )
    assert serial == independent_value(zoo, porch, 1, "BridgedDeviceBasicInformation", "SerialNumber") == "sn-1"
    climate = device_of(home, "climate")
    state = ok(call(tools, "get_room_states", room_id=climate.room_id))
    assert state["temperature"] == independent_value(zoo, climate, 1, "TemperatureMeasurement", "MeasuredValue")
    assert state["humidity"] == independent_value(zoo, climate, 2, "RelativeHumidityMeasurement", "MeasuredValue")
    lonely = device_of(home, "front_lock")  # a room without a sensor: an error, not a made-up state
    assert call(tools, "get_room_states", room_id=lonely.room_id)["error"]["type"] == "NOT_SUPPORTED"


# ---------------------------------------------------------------------------------- absent things
def test_absent_endpoints_clusters_attributes_and_commands_are_errors(home: MatterHome, zoo: Zoo) -> None:
    tools = ToolBox(home)
    light, thermostat, plug = device_of(home, "hall_light"), device_of(home, "thermostat"), device_of(home, "plug")
    # the controller really answers these paths with a status in place of a value
    assert status_in_value(independent(zoo, light, "1/514/2")) is not None  # FanControl.PercentSetting
    assert status_in_value(independent(zoo, thermostat, "1/513/3")) is not None  # AbsMinHeatSetpointLimit
    cases = [
        (
            "get_attribute",
            light,
            {"endpoint_id": 1, "cluster_id": "FanControl", "attribute_id": "PercentSetting"},
            "CLUSTER_NOT_FOUND",
        ),
        (
            "get_attribute",
            thermostat,
            {"endpoint_id": 1, "cluster_id": "Thermostat", "attribute_id": "AbsMinHeatSetpointLimit"},
            "ATTRIBUTE_NOT_FOUND",
        ),
        (
            "get_attribute",
            thermostat,
            {"endpoint_id": 1, "cluster_id": "Thermostat", "attribute_id": "MaxCoolSetpointLimit"},
            "ATTRIBUTE_NOT_FOUND",
        ),
        (
            "get_attribute",
            light,
            {"endpoint_id": 7, "cluster_id": "OnOff", "attribute_id": "OnOff"},
            "ENDPOINT_NOT_FOUND",
        ),
        (
            "write_attribute",
            plug,
            {"endpoint_id": 1, "cluster_id": "FanControl", "attribute_id": "PercentSetting", "value": 10},
            "CLUSTER_NOT_FOUND",
        ),
        (
            "write_attribute",
            thermostat,
            {"endpoint_id": 1, "cluster_id": "Thermostat", "attribute_id": "MinHeatSetpointLimit", "value": 1000},
            "ATTRIBUTE_NOT_FOUND",
        ),
        (
            "execute_command",
            light,
            {"endpoint_id": 1, "cluster_id": "LevelControl", "command_id": "MoveToLevel", "args": {"Level": 100}},
            "CLUSTER_NOT_FOUND",
        ),
        (
            "execute_command",
            plug,
            {"endpoint_id": 1, "cluster_id": "DishwasherMode", "command_id": "ChangeToMode", "args": {"NewMode": 1}},
            "CLUSTER_NOT_FOUND",
        ),
    ]
    for tool, device, arguments, code in cases:
        answer = call(tools, tool, device_id=device.device_id, **arguments)
        assert answer["error"] is not None and answer["data"] is None, (tool, arguments, answer)
        assert answer["error"]["type"] == code, (tool, arguments, answer)
    assert independent_value(zoo, plug, 1, "OnOff", "OnOff") is False  # nothing was switched by the refusals


# ---------------------------------------------------------------------------------- changes
Action = tuple[str, dict[str, Any], tuple[int, str, str], Any]  # tool, arguments, (endpoint, cluster, attr), want


def command(cluster: str, name: str, args: dict[str, Any], target: str, want: Any) -> Action:
    return "execute_command", {"cluster_id": cluster, "command_id": name, "args": args}, (1, cluster, target), want


def write(cluster: str, attribute: str, value: Any) -> Action:
    return (
        "write_attribute",
        {"cluster_id": cluster, "attribute_id": attribute, "value": value},
        (1, cluster, attribute),
        value,
    )


ON = command("OnOff", "On", {}, "OnOff", True)


def level(value: int) -> Action:
    return command("LevelControl", "MoveToLevel", {"Level": value, "TransitionTime": 0}, "CurrentLevel", value)


ACTIONS: list[tuple[str, Action]] = [
    ("hall_light", ON),
    ("desk_dimmer", level(200)),
    ("colour_light", ON),
    (
        "colour_light",
        command(
            "ColorControl",
            "MoveToColorTemperature",
            {"ColorTemperatureMireds": 250, "TransitionTime": 0},
            "ColorTemperatureMireds",
            250,
        ),
    ),
    ("thermostat", write("Thermostat", "SystemMode", 3)),
    ("thermostat", write("Thermostat", "OccupiedCoolingSetpoint", 2300)),
    ("fan", write("FanControl", "PercentSetting", 50)),
    ("fan", write("FanControl", "SpeedSetting", 7)),
    ("plug", command("OnOff", "Toggle", {}, "OnOff", True)),
    ("front_lock", command("DoorLock", "UnlockDoor", {}, "LockState", 2)),
    ("front_lock", command("DoorLock", "LockDoor", {}, "LockState", 1)),
    ("porch_light", ON),
    ("bath_dimmer", level(40)),
    ("study_plug", ON),
]


def settled(read: Any, want: Any, timeout_s: float = 5) -> Any:
    deadline = time.monotonic() + timeout_s
    while (value := read()) != want and time.monotonic() < deadline:
        time.sleep(0.2)
    return value


@pytest.mark.parametrize(
    ("key", "action"),
    ACTIONS,
    ids=[f"{key}-{action[1].get('command_id') or action[1].get('attribute_id')}" for key, action in ACTIONS],
)
def test_state_changes_happen_on_the_device(home: MatterHome, zoo: Zoo, key: str, action: Action) -> None:
    tool, arguments, target, want = action
    tools = ToolBox(home)
    device = device_of(home, key)
    answer = call(tools, tool, device_id=device.device_id, endpoint_id=1, **arguments)
    ok(answer)
    endpoint, cluster, attribute = target
    assert settled(lambda: independent_value(zoo, device, endpoint, cluster, attribute), want) == want
    read = ok(
        call(
            tools,
            "get_attribute",
            device_id=device.device_id,
            endpoint_id=endpoint,
            cluster_id=cluster,
            attribute_id=attribute,
        )
    )
    assert read == want
    if tool == "write_attribute":
        assert answer["data"]["new_value"] == want


# ---------------------------------------------------------------------------------- twin, map, recommission
def homefabric_in_zoo(zoo: Zoo, *args: str, timeout_s: float = 120) -> subprocess.CompletedProcess[str]:
    """The CLI run inside the zoo's namespace (where matter-server listens on 127.0.0.1)."""
    return subprocess.run(
        [
            "ip",
            "netns",
            "exec",
            zoo.namespace,
            str(HOMEFABRIC),
            *args,
            "--matter-server",
            f"ws://127.0.0.1:{zoo.port}/ws",
        ],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        env={**os.environ, "COLUMNS": "200"},
    )


def test_the_twin_holds_the_live_values(home: MatterHome, zoo: Zoo) -> None:
    from agent_tools.matter_backend.twin import TWIN_KEY, live_values, state_paths
    from emulator.emulated_home import EmulatedHome
    from emulator.home_config import load_home

    out = zoo.work / "twin.json"
    done = homefabric_in_zoo(zoo, "home", "twin", "--out", str(out))
    assert done.returncode == 0, done.stderr
    config = load_home(out)
    twin = EmulatedHome(config)
    report = config.extensions[TWIN_KEY]
    nodes = {n["node_id"]: n for n in zoo.nodes_dump()}
    twinned = [d for d in home.devices() if d.device_id not in {e["device_id"] for e in report["left_out"]}]
    assert len(twinned) == len(home.devices()) - 2  # the two On/Off plug-in units: no catalogue type
    compared = 0
    for device in twinned:
        live = state_paths(live_values(nodes[device.node_id], device))
        assert report["devices"][device.device_id]["differs"] == {}, device.device_id
        for path, value in state_paths(twin.read_all(device.device_id)).items():
            if path in live:
                assert value == live[path], (device.device_id, path)
                compared += 1
    assert compared > 50, compared
    assert twin.read("zoo_thermostat_4", 1, "Thermostat", "OccupiedCoolingSetpoint") == 2300  # as the tools set it


def test_the_home_is_brought_to_an_initial_state_where_matter_allows(home: MatterHome, zoo: Zoo) -> None:
    from agent_tools.matter_backend.initial_state import prepare

    target = {d.device_id: dict(home.read_all(d.device_id)) for d in home.devices()}
    ids = {key: device_of(home, key).device_id for key in expected_devices()}
    light_on = independent_value(zoo, device_of(home, "hall_light"), 1, "OnOff", "OnOff")
    wanted = {
        ("hall_light", "1.OnOff.OnOff"): not light_on,
        ("desk_dimmer", "1.LevelControl.CurrentLevel"): 60,
        ("desk_dimmer", "1.OnOff.OnOff"): False,
        ("colour_light", "1.ColorControl.ColorTemperatureMireds"): 300,
        ("thermostat", "1.Thermostat.OccupiedHeatingSetpoint"): 1900,
        ("fan", "1.FanControl.PercentSetting"): 20,
        ("front_lock", "1.DoorLock.LockState"): 2,
    }
    for (key, path), value in wanted.items():
        target[ids[key]][path] = value
    target[ids["door_contact"]]["1.BooleanState.StateValue"] = False  # a sensor's state: nothing sets it
    target["no_such_device"] = {"1.OnOff.OnOff": True}
    contact = [(ids["door_contact"], "1.BooleanState.StateValue")]  # an episode that asks about it
    unasked = prepare(home, target, apply=False)  # nobody asks about the contact: its state is no problem
    assert [p for p in unasked.problems if "BooleanState" in p] == [] and len(unasked.problems) == 1
    planned = prepare(home, target, contact, apply=False)  # a dry run: says what it would do, changes nothing
    assert {(a["device_id"], a["path"]) for a in planned.actions} == {(ids[k], p) for k, p in wanted}
    assert len(planned.problems) == 2 and not planned.runnable
    assert independent_value(zoo, device_of(home, "hall_light"), 1, "OnOff", "OnOff") is light_on
    done = prepare(home, target, contact)
    assert not done.runnable
    assert len(done.problems) == 2, done.problems
    assert "'no_such_device' is not in this home" in done.problems[0]
    assert "1.BooleanState.StateValue" in done.problems[1] and "no write or command sets it" in done.problems[1]
    for (key, path), value in wanted.items():
        endpoint, cluster, attribute = path.split(".")
        assert independent_value(zoo, device_of(home, key), int(endpoint), cluster, attribute) == value, path
    assert {(a["device_id"], a["path"]) for a in done.actions} == {(ids[k], p) for k, p in wanted}
    # derived values followed (the fan's PercentCurrent); nothing else needed doing
    del target["no_such_device"]
    target[ids["door_contact"]]["1.BooleanState.StateValue"] = True
    again = prepare(home, target)
    assert again.runnable and again.actions == [], again.to_dict()
    assert prepare(
        home, {ids["thermostat"]: {}}, must_serve=[(ids["thermostat"], "1.Thermostat.MinHeatSetpointLimit")]
    ).problems == [
        f"device {ids['thermostat']!r} does not serve 1.Thermostat.MinHeatSetpointLimit, which the episode needs"
    ]


def records_of(run: Path) -> dict[str, dict[str, Any]]:
    return {r["episode_id"]: r for r in map(json.loads, (run / "records.jsonl").read_text().splitlines())}


def test_bench_run_on_the_live_zoo_gives_the_verdicts_of_its_twin(home: MatterHome, zoo: Zoo) -> None:
    """commission → twin → generate on the twin → run on the twin (emulated) and on the live zoo."""
    work = zoo.work
    assert homefabric_in_zoo(zoo, "home", "twin", "--out", str(work / "bench-twin.json")).returncode == 0
    episodes, on_twin, live_oracle, live_null = (work / n for n in ("episodes", "run-twin", "run-live", "run-null"))
    generated = subprocess.run(
        [
            str(HOMEFABRIC),
            "episodes",
            "generate",
            "--home",
            str(work / "bench-twin.json"),
            "--qt",
            "qt1,qt3",
            "--per-type",
            str(BENCH_PER_TYPE),
            "--seed",
            "5",
            "--out",
            str(episodes),
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert generated.returncode == 0, generated.stderr
    emulated = subprocess.run(
        [
            str(HOMEFABRIC),
            "bench",
            "run",
            "--agent",
            "oracle",
            "--episodes",
            str(episodes),
            "--out",
            str(on_twin),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert emulated.returncode == 0, emulated.stderr
    planned = homefabric_in_zoo(
        zoo, "bench", "run", "--agent", "oracle", "--episodes", str(episodes), "--dry-run", "--json", timeout_s=300
    )
    assert planned.returncode == 0, planned.stderr
    dry = {row["episode_id"]: row for row in json.loads(planned.stdout)["episodes"]}
    for out, agent in ((live_oracle, "oracle"), (live_null, "null")):
        done = homefabric_in_zoo(
            zoo,
            "bench",
            "run",
            "--agent",
            agent,
            "--episodes",
            str(episodes),
            "--out",
            str(out),
            "--quiet",
            timeout_s=600,
        )
        assert done.returncode == 0, done.stderr
    twin, live, null = records_of(on_twin), records_of(live_oracle), records_of(live_null)
    runnable = sorted(e for e, r in live.items() if r["status"] != "not_runnable_on_this_home")
    not_runnable = {e: live[e]["error"] for e in sorted(set(live) - set(runnable))}
    passed = [e for e in runnable if live[e]["status"] == "passed"]
    figures = {
        "episodes": len(live),
        "runnable": len(runnable),
        "dry_run_runnable": sum(r["runnable"] for r in dry.values()),
        "oracle_passed_live": len(passed),
        "oracle_passed_twin": sum(r["status"] == "passed" for r in twin.values()),
        "null_passed_live": sum(null[e]["status"] == "passed" for e in runnable),
        "not_runnable": not_runnable,
    }
    print(json.dumps({"zoo_bench": figures}, indent=1))
    assert all(twin[e]["status"] == "passed" for e in twin)  # the oracle solves every episode on the twin
    assert len(runnable) >= 0.75 * len(live), figures
    assert len(passed) >= 0.95 * len(runnable), figures
    assert all(live[e]["status"] == twin[e]["status"] for e in runnable), figures  # the same verdicts
    assert figures["null_passed_live"] == 0, figures
    assert set(runnable) <= {e for e, r in dry.items() if r["runnable"]}  # the dry run promised no less
    assert all(null[e]["status"] == live[e]["status"] for e in not_runnable)  # not runnable for any agent


def test_map_then_recommission_in_another_order_keeps_ids(home: MatterHome, zoo: Zoo) -> None:
    out = zoo.work / "mapping.json"
    done = homefabric_in_zoo(zoo, "matter", "map", "--out", str(out))
    assert done.returncode == 0, done.stderr
    mapping = load_mapping(out)
    before = {d.device_id: (d.device_type, d.room_id, d.name, d.endpoints) for d in home.devices()}
    assert {e.device_id: (e.device_type, e.room_id, e.name) for e in mapping.devices} == {
        k: v[:3] for k, v in before.items()
    }
    old_nodes = dict(zoo.node_ids)
    again = ["bridge", "thermostat", "hall_light"]
    for key in again:
        zoo.decommission(key)
    for key in again:  # matter.js opens commissioning again once its last fabric is gone
        deadline = time.monotonic() + 60
        while True:
            try:
                zoo.commission(key)
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(2)
    assert all(zoo.node_ids[k] != old_nodes[k] for k in again)
    fresh = MatterHome.connect(zoo.url, connect_context=zoo.socket_context)
    mapped = MatterHome.connect(zoo.url, connect_context=zoo.socket_context, mapping=mapping)
    try:
        after = {d.device_id: (d.device_type, d.room_id, d.name, d.endpoints) for d in fresh.devices()}
        assert after == before
        assert {d.device_id: d.node_id for d in mapped.devices()} == {d.device_id: d.node_id for d in fresh.devices()}
        light = device_of(fresh, "hall_light")
        assert ok(
            call(
                ToolBox(mapped),
                "get_attribute",
                device_id=light.device_id,
                endpoint_id=1,
                cluster_id="OnOff",
                attribute_id="OnOff",
            )
        ) == independent_value(zoo, light, 1, "OnOff", "OnOff")
    finally:
        fresh.close()
        mapped.close()
    print(json.dumps({"zoo_node_ids": {"before": old_nodes, "after": zoo.node_ids}}))
