"""The rules file `serve` keeps: atomic round trip, and a corrupt file refused in one line before serving."""

from __future__ import annotations

from pathlib import Path

import pytest

from homefabric_cli.automation_store import STORE_NAME, AutomationStoreError, keep_automations, load_rules
from tests.emulator.helpers import fabric
from tests.test_cli_exit_codes import homefabric, one_line_error

RULE = {
    "name": "morning",
    "trigger": {"kind": "time", "cron": "0 0 7 * * ?"},
    "actions": [{"kind": "invoke", "device_id": "lamp", "endpoint": 1, "cluster": "OnOff", "command": "On"}],
}


def test_rules_are_saved_on_every_change_and_replace_the_home_files(tmp_path: Path) -> None:
    first = fabric([("lamp", "on_off_light", "hall")])
    keep_automations(first, tmp_path)
    assert load_rules(tmp_path / STORE_NAME) == []
    rule = first.add_automation(RULE)
    first.advance(86400)
    stored = load_rules(tmp_path / STORE_NAME)
    assert [r.id for r in stored] == [rule.id] and stored[0].fire_count == 1
    first.disable_automation(rule.id)
    assert load_rules(tmp_path / STORE_NAME)[0].enabled is False

    second = fabric([("lamp", "on_off_light", "hall")])
    second.add_automation({**RULE, "name": "from the home file"})
    keep_automations(second, tmp_path)  # the state dir's rules win
    assert [(r.id, r.name, r.enabled, r.fire_count) for r in second.automations()] == [(rule.id, "morning", False, 1)]

    third = fabric([("lamp", "on_off_light", "hall")])
    fresh_rule = third.add_automation({**RULE, "name": "fresh"})
    keep_automations(third, tmp_path, fresh=True)  # serve --fresh: the home file's rules, and they are stored
    assert [r.name for r in third.automations()] == ["fresh"]
    assert [r.id for r in load_rules(tmp_path / STORE_NAME)] == [fresh_rule.id]


def test_a_corrupt_rules_file_is_named(tmp_path: Path) -> None:
    (tmp_path / STORE_NAME).write_text('[{"name": "x"}]')
    with pytest.raises(AutomationStoreError, match=r"automations.json: invalid rules file: \[0\]\.trigger"):
        load_rules(tmp_path / STORE_NAME)


def test_serve_refuses_a_corrupt_rules_file_in_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home.json"
    fabric([("lamp", "on_off_light", "hall")]).save(str(home))
    state = tmp_path / "state"
    state.mkdir()
    (state / STORE_NAME).write_text("{not json")
    result = homefabric("serve", str(home), "--state-dir", str(state), "--port", "0")
    one_line_error(result, STORE_NAME, "invalid rules file")
