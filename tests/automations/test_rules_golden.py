"""Golden bytes of a mix of rules run in virtual time: every-second and daily crons, gating conditions, state
triggers with hold times, a loop cut by the guard, rules enabled, disabled and removed on the way, a restart
from the saved rules. The fired-event log, the saved rules file, the home file's rules and every rule's status
must stay byte-identical whatever the engine stores per rule (pinned before the rule store was made compact).

Regenerate only for an intended behaviour change: ``HOMEFABRIC_REGOLDEN=1 pytest tests/automations/...``."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from emulator.emulated_home import EmulatedHome
from emulator.events import AutomationEvent
from homefabric_cli.automation_store import dump_rules, load_rules
from tests.emulator.helpers import fabric

GOLDEN = Path(__file__).parent / "golden" / "rules_mix.json"
HUMIDITY_PATH = "2.RelativeHumidityMeasurement.MeasuredValue"


def _step(device: str, command: str, **args: Any) -> dict[str, Any]:
    return {"kind": "invoke", "device_id": device, "endpoint": 1, "cluster": "OnOff", "command": command, "args": args}


def _rules() -> list[dict[str, Any]]:
    lamp_on = {"device_id": "lamp", "path": "1.OnOff.OnOff", "op": "==", "value": True}
    lamp_off = {**lamp_on, "value": False}
    return [
        {"name": "tick", "trigger": {"kind": "time", "cron": "* * * * * ?"}, "actions": [_step("lamp", "Toggle")]},
        {
            "name": "tick while lit",
            "trigger": {"kind": "time", "cron": "*/2 * * * * ?"},
            "conditions": [lamp_on],
            "actions": [_step("fan", "Toggle")],
        },
        {
            "name": "daily",
            "trigger": {"kind": "time", "cron": "0 1 9 ? * MON-SUN"},
            "actions": [
                {
                    "kind": "write",
                    "device_id": "hum",
                    "endpoint": 1,
                    "cluster": "FanControl",
                    "attribute": "PercentSetting",
                    "value": 40,
                },
                _step("hum", "On"),
            ],
        },
        {"name": "off again", "trigger": {"kind": "state", "condition": lamp_on}, "actions": [_step("lamp", "Off")]},
        {"name": "on again", "trigger": {"kind": "state", "condition": lamp_off}, "actions": [_step("lamp", "On")]},
        {
            "name": "humid held",
            "trigger": {
                "kind": "state",
                "condition": {"room_id": "bath", "variable": "humidity", "op": ">", "value": 5003, "for_s": 20},
            },
            "actions": [_step("deh", "On")],
        },
        {
            "name": "sensor humid",
            "trigger": {
                "kind": "state",
                "condition": {"device_id": "hum", "path": HUMIDITY_PATH, "op": ">=", "value": 5006},
            },
            "conditions": [{"room_id": "bath", "variable": "temperature", "op": "<", "value": 9000}],
            "actions": [_step("fan", "On")],
        },
        {
            "name": "later",
            "trigger": {"kind": "time", "cron": "30 * * * * ? 2025"},
            "enabled": False,
            "actions": [_step("fan", "Off")],
        },
    ]


def _home() -> EmulatedHome:
    devices = [("hum", "humidifier", "bath"), ("deh", "dehumidifier", "bath"), ("lamp", "on_off_light", "hall")]
    home = fabric([*devices, ("fan", "on_off_light", "hall")], rooms={"bath": {"humidity": 5000}, "hall": {}})
    home.invoke("hum", 1, "OnOff", "On")
    home.write("hum", 1, "FanControl", "PercentSetting", 100)
    return home


def _run(store: Path) -> dict[str, Any]:
    home = _home()
    events: list[AutomationEvent] = []
    home.subscribe_automations(events.append)
    ids = [home.add_automation(rule).id for rule in _rules()]
    home.advance(45)
    home.enable_automation(ids[-1])
    home.disable_automation(ids[1])
    home.advance(40)
    home.remove_automation(ids[4])
    home.enable_automation(ids[1])
    home.advance(60)
    saved = dump_rules(home.automations())
    restarted = _home()
    store.write_text(saved, encoding="utf-8")
    restarted.replace_automations(load_rules(store))
    restarted.subscribe_automations(events.append)
    restarted.advance(30)
    log = "".join(json.dumps(event.to_dict(), sort_keys=True) + "\n" for event in events)
    return {
        "events": len(events),
        "events_sha256": hashlib.sha256(log.encode()).hexdigest(),
        "first_events": [event.to_dict() for event in events[:12]],
        "kinds": sorted({event.kind for event in events}),
        "status": [home.automation_status(rule_id) for rule_id in ids if rule_id != ids[4]],
        "history_tail": home.automation_history()[-3:],
        "rules_file": saved,
        "restarted_rules_file": dump_rules(restarted.automations()),
        "home_file_rules": _home_rules(restarted),
    }


def _home_rules(home: EmulatedHome) -> list[dict[str, Any]]:
    return [rule.model_dump(mode="json") for rule in home.to_config().automations]


def test_a_mix_of_rules_fires_and_saves_the_pinned_bytes(tmp_path: Path) -> None:
    produced = json.dumps(_run(tmp_path / "automations.json"), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if os.environ.get("HOMEFABRIC_REGOLDEN"):
        GOLDEN.write_text(produced, encoding="utf-8")
    assert produced == GOLDEN.read_text(encoding="utf-8")
