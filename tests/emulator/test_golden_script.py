"""Golden bytes of the home's public calls: a fixed script on generated homes, compared with committed files.

The script reads, writes (accepted and refused), invokes every argument-free command, schedules workflows, adds
time and state automations, fast-forwards and snapshots two generated homes (simuhome seed 3, complex seed 7),
and drives an admin ToolBox session; every result's JSON, every refusal, the events, the diffs and the final
home file are compared byte for byte with ``tests/emulator/golden/``. A change in any of them is a change in
behaviour: regenerate (``HOMEFABRIC_REGEN_GOLDEN=1``) only when that change is intended.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from agent_tools import ToolBox
from emulator.catalogue import CATALOGUE
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.home_config import dump_home, loads_home
from emulator.home_generation.generator import generate_home
from emulator.workflows import WorkflowStep
from tests.emulator.helpers import home as home_of

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = os.environ.get("HOMEFABRIC_REGEN_GOLDEN") == "1"


def _plain(value: Any) -> Any:
    """A result as the JSON it serialises to (a typed result's ``to_dict``, a plain dict as it is)."""
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    model_dump = getattr(value, "model_dump", None)
    return model_dump(mode="json") if callable(model_dump) else value


class Recorder:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, label: str, value: Any) -> None:
        self.lines.append(json.dumps({"call": label, "result": value}, sort_keys=False, default=repr))

    def call(self, label: str, function: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            result = function(*args, **kwargs)
        except HomeError as error:
            self.add(label, {"refused": error.to_dict(), "text": str(error)})
            return None
        self.add(label, _plain(result))
        return result

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def _home_script(home: EmulatedHome, first_schedule: str | None) -> str:
    """The script on ``home``; ``first_schedule``: the first workflow's start (None: now)."""
    out = Recorder()
    events: list[dict[str, Any]] = []
    home.subscribe(lambda event: events.append(event.to_dict()))
    home.subscribe_automations(lambda event: events.append({"automation": event.to_dict()}))
    first = home.snapshot()
    out.add("rooms", [room.__dict__ for room in home.rooms()])
    for device in home.devices():
        did = device.device_id
        structure = home.describe_device(did)
        out.add(f"describe {did}", structure)
        out.call(f"read_all {did}", home.read_all, did)
        for ep_text, endpoint in structure["endpoints"].items():
            ep = int(ep_text)
            for cluster, spec in endpoint["clusters"].items():
                for name, attribute in spec["attributes"].items():
                    if attribute["writable"]:
                        out.call(
                            f"write {did} {ep}.{cluster}.{name} same",
                            home.write,
                            did,
                            ep,
                            cluster,
                            name,
                            attribute["value"],
                        )
                        out.call(
                            f"write {did} {ep}.{cluster}.{name} bad", home.write, did, ep, cluster, name, "not a value"
                        )
                for name, command in spec["commands"].items():
                    if not any(arg.get("required") for arg in command["arguments"]):
                        out.call(f"invoke {did} {ep}.{cluster}.{name}", home.invoke, did, ep, cluster, name, {})
                        out.call(
                            f"apply {did} {ep}.{cluster}.{name}",
                            home.apply,
                            WorkflowStep.invoke(did, ep, cluster, name),
                        )
        out.call(f"read {did} missing", home.read, did, 1, "NoSuchCluster", "X")
        out.call(f"invoke {did} missing", home.invoke, did, 1, "OnOff", "NoSuchCommand", {})
        out.call(f"invoke {did} bad args", home.invoke, did, 1, "OnOff", "On", [1])
    out.call("device missing", home.read, "no_such_device", 1, "OnOff", "OnOff")
    out.call("path bad", home.read_path, "x", "OnOff")
    out.call("advance bad", home.advance, -1)
    lights = [d.device_id for d in home.devices() if d.device_type in ("on_off_light", "dimmable_light")]
    rooms = [room.room_id for room in home.rooms()]
    steps = [WorkflowStep.invoke(light, 1, "OnOff", "Toggle") for light in lights[:3]]
    workflow = out.call(
        "schedule",
        home.schedule,
        first_schedule or home.now_text(),
        steps,
        "toggle lights",
    )
    later = home.time_text(home.tick + 600)
    workflow = out.call("schedule later", home.schedule, later, steps, "toggle lights later")
    second = out.call("schedule cancel", home.schedule, later, steps[:1], "to cancel")
    if second is not None:
        out.call("cancel", home.cancel, second.workflow_id)
    acs = [d.device_id for d in home.devices() if d.device_type == "air_conditioner"]
    failing = out.call(
        "schedule failing later",
        home.schedule,
        later,
        [
            WorkflowStep.invoke(acs[0], 1, "OnOff", "Off"),
            WorkflowStep.write(acs[0], 1, "FanControl", "PercentSetting", 55),
        ],
    )
    out.call("schedule refused", home.schedule, later, [WorkflowStep.write(lights[0], 1, "OnOff", "OnOff", 3)])
    if lights:
        out.call(
            "automation time",
            home.add_automation,
            {
                "name": "every hour",
                "trigger": {"kind": "time", "cron": "0 0 * * * ? *"},
                "actions": [
                    {"kind": "invoke", "device_id": lights[0], "endpoint": 1, "cluster": "OnOff", "command": "Toggle"}
                ],
            },
        )
        out.call(
            "automation state",
            home.add_automation,
            {
                "name": "warm room",
                "trigger": {
                    "kind": "state",
                    "condition": {
                        "room_id": rooms[0],
                        "variable": "temperature",
                        "op": "<",
                        "value": 2700,
                        "for_s": 60,
                    },
                },
                "actions": [
                    {"kind": "invoke", "device_id": lights[-1], "endpoint": 1, "cluster": "OnOff", "command": "On"}
                ],
            },
        )
        out.call(
            "automation refused",
            home.add_automation,
            {
                "name": "bad",
                "trigger": {"kind": "time", "cron": "0 0 * * * ? *"},
                "actions": [
                    {
                        "kind": "write",
                        "device_id": lights[0],
                        "endpoint": 1,
                        "cluster": "OnOff",
                        "attribute": "OnOff",
                        "value": 1,
                    }
                ],
            },
        )
    for seconds in (0, 30, 600, 3600, 6 * 3600):
        out.call(f"advance {seconds}", home.advance, seconds)
        out.add(f"room states after {seconds}", {room: home.room_state(room) for room in rooms})
    if workflow is not None:
        out.add("workflow", home.workflow(workflow.workflow_id).to_dict(with_steps=True))
    if failing is not None:
        out.add("failing workflow", home.workflow(failing.workflow_id).to_dict(with_steps=True))
    out.add("workflows", [w.to_dict() for w in home.workflows()])
    out.add("automations", [home.automation_status(rule.id) for rule in home.automations()])
    out.add("automation history", home.automation_history())
    out.add(
        "events",
        {
            "count": len(events),
            "sha256": hashlib.sha256(json.dumps(events, default=repr).encode()).hexdigest(),
            "first": events[:50],
        },
    )
    last = home.snapshot()
    out.add("snapshot", last)
    out.add("diff", EmulatedHome.diff(first, last))
    out.add("to_config", json.loads(dump_home(home.to_config())))
    return out.text()


def _catalogue_script() -> str:
    """The script on one device of every catalogue type (what a generated home may not hold), then the save/load
    round trip of every value it left: the reloaded home's snapshot, and whether it saves the same file."""
    rooms = ("living_room", "kitchen")
    home = EmulatedHome(home_of([(name, name, rooms[index % 2]) for index, name in enumerate(sorted(CATALOGUE))]))
    text = _home_script(home, None)
    saved = dump_home(home.to_config())
    reloaded = EmulatedHome(loads_home(saved))
    out = Recorder()
    out.add("reloaded snapshot", reloaded.snapshot())
    out.add("reloaded saves the same file", dump_home(reloaded.to_config()) == saved)
    return text + out.text()


def _tool_session() -> str:
    home = EmulatedHome(generate_home("simuhome", 3))
    tools = ToolBox(home, profile="simuhome_ext", admin=True)
    light = next(d.device_id for d in home.devices() if d.device_type in ("on_off_light", "dimmable_light"))
    ac = next(d.device_id for d in home.devices() if d.device_type == "air_conditioner")
    room = home.device(ac).room_id
    on = {"device_id": light, "endpoint_id": 1, "cluster_id": "OnOff", "command_id": "On", "args": {}}
    fan = {"device_id": ac, "endpoint_id": 1, "cluster_id": "FanControl", "attribute_id": "PercentSetting"}
    script: list[tuple[str, dict[str, Any]]] = [
        ("get_rooms", {}),
        ("get_room_devices", {"room_id": room}),
        ("get_room_states", {"room_id": room}),
        ("get_device_structure", {"device_id": ac}),
        ("get_all_attributes", {"device_id": ac}),
        ("get_attribute", {**fan}),
        ("get_attribute", {**fan, "attribute_id": "Nope"}),
        ("execute_command", on),
        ("execute_command", {**on, "command_id": "Nope"}),
        ("execute_command", {**on, "device_id": "nobody"}),
        ("write_attribute", {**fan, "value": 40}),
        ("execute_command", {"device_id": ac, "endpoint_id": 1, "cluster_id": "OnOff", "command_id": "On", "args": {}}),
        ("write_attribute", {**fan, "value": 40}),
        ("write_attribute", {**fan, "value": 400}),
        ("write_attribute", {**fan, "value": "x"}),
        (
            "execute_command",
            {
                "device_id": ac,
                "endpoint_id": 1,
                "cluster_id": "FanControl",
                "command_id": "Step",
                "args": {"Direction": 0},
            },
        ),
        ("get_current_time", {}),
        (
            "schedule_workflow",
            {
                "start_time": "2025-08-23 13:00:00",
                "steps": [
                    {"tool": "execute_command", "args": {**on, "command_id": "Off"}},
                    {"tool": "write_attribute", "args": {**fan, "value": 70}},
                ],
                "description": "noon",
            },
        ),
        (
            "schedule_workflow",
            {
                "start_time": "2025-08-23 13:00:00",
                "steps": [{"tool": "write_attribute", "args": {**fan, "value": 700}}],
            },
        ),
        ("get_workflow_list", {}),
        ("get_workflow_status", {"workflow_id": "wf-0001"}),
        (
            "create_automation",
            {
                "name": "evening",
                "trigger": {"type": "time", "cron": "0 0 18 * * ? *"},
                "actions": [{"tool": "execute_command", "args": on}],
            },
        ),
        (
            "create_automation",
            {
                "name": "hot",
                "trigger": {
                    "type": "state",
                    "condition": {"room_id": room, "variable": "temperature", "operator": ">", "value": 2500},
                },
                "actions": [{"tool": "write_attribute", "args": {**fan, "value": 90}}],
            },
        ),
        ("list_automations", {}),
        ("set_tick_interval", {"tick_interval": 1}),
        ("advance", {"seconds": 3600}),
        ("get_current_time", {}),
        ("get_workflow_list", {}),
        ("get_workflow_status", {"workflow_id": "wf-0001"}),
        ("cancel_workflow", {"workflow_id": "wf-0001"}),
        ("list_automations", {}),
        ("advance", {"seconds": 6 * 3600}),
        ("list_automations", {}),
        ("delete_automation", {"automation_id": "auto-0001"}),
        ("get_home_state", {}),
        ("remove_device", {"device_id": light}),
        ("get_room_devices", {"room_id": room}),
        ("finish", {"answer": "done"}),
    ]
    lines = []
    for name, args in script:
        if name == "advance":  # time passes between the agent's calls
            lines.append(json.dumps({"advance": args["seconds"], "events_run": home.advance(args["seconds"])}))
            continue
        lines.append(json.dumps({"tool": name, "args": args, "envelope": tools.call(name, args)}, default=repr))
    return "\n".join(lines) + "\n"


CASES = {
    "simuhome-3": lambda: _home_script(EmulatedHome(generate_home("simuhome", 3)), "2025-08-23 12:00:00"),
    "complex-7": lambda: _home_script(EmulatedHome(generate_home("complex", 7)), None),
    "catalogue": _catalogue_script,
    "tools-simuhome-3": _tool_session,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_bytes(case: str) -> None:
    text = CASES[case]()
    path = GOLDEN / f"{case}.jsonl.gz"
    if REGENERATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_bytes(gzip.compress(text.encode(), mtime=0))
    expected = gzip.decompress(path.read_bytes()).decode()
    if text != expected:
        got, want = text.splitlines(), expected.splitlines()
        first = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), min(len(got), len(want)))
        pytest.fail(
            f"{case}: line {first} differs\n got: {got[first][:600] if first < len(got) else None}\n"
            f"want: {want[first][:600] if first < len(want) else None}"
        )
