"""Automations over HTTP (a real uvicorn on 127.0.0.1) and the dashboard panel in the real Chromium."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

import httpx
import websockets

from emulator.automations.cron import parse_cron
from tests.browser import Chromium
from tests.http.live_api import LIGHT, home, running_api

RULE = {
    "name": "light every 5 s",
    "trigger": {"kind": "time", "cron": "0/5 * * * * ?"},
    "actions": [{"kind": "invoke", "device_id": LIGHT, "endpoint": 1, "cluster": "OnOff", "command": "Toggle"}],
}


def _run(coro: Any, timeout_s: float = 60) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout_s))


def test_rules_over_http() -> None:
    async def scenario() -> None:
        fabric = home()
        async with running_api(fabric) as api, httpx.AsyncClient(base_url=api.url) as client:
            created = await client.post("/api/automations", json=RULE)
            assert created.status_code == 201, created.text
            rule = created.json()
            assert rule["id"] == "auto-0001" and rule["kind"] == "time" and rule["next_firing"] is not None
            start = fabric.now()
            assert (await client.post("/api/clock/fast-forward", json={"seconds": 12})).status_code == 200
            due = parse_cron(RULE["trigger"]["cron"]).firings(start, start + timedelta(seconds=12))
            listed = (await client.get("/api/automations")).json()
            assert listed[0]["fire_count"] == len(due) >= 2
            assert listed[0]["last_fired"] == due[-1].strftime("%Y-%m-%d %H:%M:%S")
            history = (await client.get("/api/automations/history")).json()
            assert [e["kind"] for e in history] == ["fired"] * len(due) and history[0]["rule_id"] == "auto-0001"
            disabled = (await client.post("/api/automations/auto-0001/disable")).json()
            assert disabled["enabled"] is False and disabled["next_firing"] is None
            assert fabric.automation("auto-0001").enabled is False
            assert (await client.post("/api/automations/auto-0001/enable")).json()["enabled"] is True

            bad = await client.post(
                "/api/automations", json={**RULE, "trigger": {"kind": "time", "cron": "0 0 8 * * * *"}}
            )
            assert bad.status_code == 422 and "exactly one of day-of-month" in bad.text
            unknown = await client.post(
                "/api/automations", json={**RULE, "actions": [{**RULE["actions"][0], "device_id": "nope"}]}
            )
            assert unknown.status_code == 404 and unknown.json()["code"] == "DEVICE_NOT_FOUND"
            async with websockets.connect(api.ws_url + "/ws/events", open_timeout=5) as ws:
                assert '"hello"' in await asyncio.wait_for(ws.recv(), 5)
                await client.post("/api/clock/fast-forward", json={"seconds": 5})
                while True:  # the firing arrives among the attribute events
                    message = json.loads(await asyncio.wait_for(ws.recv(), 5))
                    if message["type"] == "automation":
                        break
                assert message["rule_id"] == "auto-0001" and message["kind"] == "fired"
                assert message["actions"][0]["command"] == "Toggle"
            missing = await client.delete("/api/automations/auto-0042")
            assert missing.status_code == 404 and missing.json()["allowed"] == ["auto-0001"]
            assert (await client.delete("/api/automations/auto-0001")).status_code == 200
            assert (await client.get("/api/automations")).json() == []

    _run(scenario())


def test_automations_panel_in_chromium(chromium: Chromium) -> None:
    async def scenario() -> None:
        fabric = home()
        cron = fabric.add_automation(RULE)
        humid = fabric.add_automation(
            {
                "name": "bath humid",
                "trigger": {
                    "kind": "state",
                    "condition": {"room_id": "bathroom", "variable": "humidity", "op": ">", "value": 9000},
                },
                "actions": [RULE["actions"][0]],
                "enabled": False,
            }
        )
        errors: list[str] = []
        async with running_api(fabric, speed=20) as api, chromium.page(timeout_ms=15_000, errors=errors) as page:
            await page.goto(api.url + "/")
            await page.wait_for_selector("#automation-list[data-loaded=true]")
            assert await page.locator("table.automations tbody tr").count() == 2
            row = page.locator(f"#automation-{cron.id}")
            assert await row.locator(".kind").inner_text() == "time"
            assert "cron 0/5 * * * * ? *" in await row.locator(".trigger").inner_text()
            assert await row.locator(".next-firing").inner_text() != "–"
            await page.wait_for_function(  # it fires while the page is open (×20 pacing)
                f"document.querySelector('#automation-{cron.id} .last-fired').textContent !== 'never'"
            )
            assert await page.locator(f"#automation-{humid.id}.disabled").count() == 1
            await page.locator(f"#automation-{humid.id} button.automation-toggle").click()
            await page.wait_for_selector(f"#automation-{humid.id}.enabled")
            assert fabric.automation(humid.id).enabled is True
            await page.locator(f"#automation-{cron.id} button.automation-toggle").click()
            await page.wait_for_selector(f"#automation-{cron.id}.disabled")
            assert fabric.automation(cron.id).enabled is False
            assert await page.locator(f"#automation-{cron.id} .next-firing").inner_text() == "–"
        assert errors == []

    _run(scenario(), 150)  # room for a second Chromium launch (tests/browser.py)
