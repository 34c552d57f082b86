"""Issue #21 item D over the real HTTP server: an every-second rule costs bytes, not megabytes; schedules that
can never fire are refused with a one-line reason; the number of rules has a cap with a one-line error."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

import emulator.automations.home_rules
from emulator.automations.cron import parse_cron
from emulator.automations.model import MAX_RULES
from homefabric_cli.automation_store import STORE_NAME, keep_automations, load_rules
from tests.http.live_api import LIGHT, home, running_api

EVERY_SECOND = {
    "name": "every second",
    "trigger": {"kind": "time", "cron": "* * * * * ?"},
    "actions": [{"kind": "invoke", "device_id": LIGHT, "endpoint": 1, "cluster": "OnOff", "command": "Toggle"}],
}


def _run(coro: Any, timeout_s: float = 120) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout_s))


def _with_cron(cron: str) -> dict[str, Any]:
    return {**EVERY_SECOND, "trigger": {"kind": "time", "cron": cron}}


def test_rules_that_can_never_fire_are_refused() -> None:
    async def scenario() -> None:
        fabric = home()
        async with running_api(fabric) as api, httpx.AsyncClient(base_url=api.url) as client:
            february = await client.post("/api/automations", json=_with_cron("0 0 8 31 2 ?"))
            assert february.status_code == 422 and "never fires" in february.text
            past = await client.post("/api/automations", json=_with_cron("0 0 8 * * ? 1999"))
            assert past.status_code == 400 and "never fires after now" in past.json()["message"]
            assert (await client.get("/api/automations")).json() == []
            assert (await client.post("/api/automations", json=_with_cron("0 0 8 29 2 ?"))).status_code == 201

    _run(scenario())


def test_the_number_of_rules_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(emulator.automations.home_rules, "MAX_RULES", 3)

    async def scenario() -> None:
        fabric = home()
        async with running_api(fabric) as api, httpx.AsyncClient(base_url=api.url) as client:
            for _ in range(3):
                assert (await client.post("/api/automations", json=EVERY_SECOND)).status_code == 201
            refused = await client.post("/api/automations", json=EVERY_SECOND)
            assert refused.status_code == 400 and "already has 3 automations, the limit" in refused.json()["message"]
            assert "\n" not in refused.json()["message"]
            assert len((await client.get("/api/automations")).json()) == 3

    _run(scenario())


def test_every_second_rules_cost_little_memory_and_fire_every_second() -> None:
    fabric = home()
    fabric.add_automation({**EVERY_SECOND, "name": "first"})  # first use: imports and caches
    gc.collect()
    tracemalloc.start()
    for index in range(1, MAX_RULES):
        fabric.add_automation({**EVERY_SECOND, "name": f"every second {index}"})
    gc.collect()
    kept_per_rule = tracemalloc.get_traced_memory()[0] / (MAX_RULES - 1)
    tracemalloc.stop()
    # Tabulating a day's 86,400 seconds cost about 3.3 MB per rule, keeping the validated pydantic model about
    # 4 KB; the compact stored rule (sharing its trigger, actions and parsed cron with its equals) about 400 bytes.
    assert kept_per_rule < 1024, f"{kept_per_rule:.0f} bytes kept per every-second rule"
    start = fabric.now()
    fabric.advance(3)
    assert [rule.fire_count for rule in fabric.automations()] == [3] * MAX_RULES
    schedule = parse_cron("* * * * * ?")
    assert schedule is parse_cron("* * * * * ?")  # parsed once
    assert len(schedule.firings(start, start + timedelta(hours=1))) == 3600


def test_rules_due_together_are_saved_once_after_the_whole_batch(tmp_path: Path) -> None:
    """Saving the rules file after each firing cost a dump of every rule per firing (1,000 every-second rules:
    1,000 dumps of 1,000 rules per virtual second); the file is now written once per batch, complete."""
    fabric = home()
    for index in range(50):
        fabric.add_automation({**EVERY_SECOND, "name": f"every second {index}"})
    keep_automations(fabric, tmp_path)
    saved_counts: list[list[int]] = []
    fabric.on_automations_changed(
        lambda: saved_counts.append([rule.fire_count for rule in load_rules(tmp_path / STORE_NAME)])
    )
    fabric.advance(3)
    assert saved_counts == [[1] * 50, [2] * 50, [3] * 50]
