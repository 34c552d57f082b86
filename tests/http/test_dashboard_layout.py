"""The dashboard's layout and wording in a real headless Chromium, on the 135-device complex home at
Playwright's default 1280×720 viewport (issue 21, newcomer item 6). Layout is asserted with element bounding
boxes, never pixels: the automations table inside its panel, every control inside its device tile, one label per
mode dropdown, no stray ``null`` after a live run, the room/type/search filters, the episodes box prefilled."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from emulator.emulated_home import EmulatedHome
from emulator.home_generation.generator import generate_home
from tests.browser import Chromium
from tests.http.live_api import running_api, write_some_episodes

# Box of every element matching a selector, and of the element it must stay inside, in page pixels.
_SPILLS = """([inner, outer]) => [...document.querySelectorAll(inner)].filter((node) => node.offsetParent !== null)
  .map((node) => { const box = node.getBoundingClientRect(), frame = node.closest(outer).getBoundingClientRect();
    return { id: node.closest(outer).id, what: node.className || node.tagName, left: box.left - frame.left,
             right: frame.right - box.right }; })
  .filter((gap) => gap.left < -0.5 || gap.right < -0.5)"""


def _complex_home() -> EmulatedHome:
    return EmulatedHome(generate_home("complex", 3))


def _first(fabric: EmulatedHome, device_type: str) -> str:
    return next(d.device_id for d in fabric.devices() if device_type in d.device_id)


async def _open(page: Any, url: str) -> None:
    await page.goto(url + "/")
    await page.wait_for_selector("body[data-loaded=true]")


def test_the_automations_table_fits_its_panel(chromium: Chromium) -> None:
    fabric = _complex_home()
    dishwasher = _first(fabric, "dishwasher")
    fabric.add_automation(
        {
            "name": "dishwasher_done_notify_kitchen",
            "trigger": {
                "kind": "state",
                "condition": {
                    "device_id": dishwasher,
                    "path": "1.OperationalState.OperationalState",
                    "op": "==",
                    "value": 0,
                    "for_s": 300,
                },
            },
            "actions": [
                {"kind": "invoke", "device_id": dishwasher, "endpoint": 1, "cluster": "OnOff", "command": "Off"}
            ],
        }
    )

    async def scenario() -> tuple[dict[str, float], int, int]:
        async with running_api(fabric) as api, chromium.page() as page:
            await _open(page, api.url)
            await page.wait_for_selector("#automation-list[data-loaded=true] table.automations")
            boxes = await page.evaluate("""() => {
              const panel = document.querySelector('.automations-panel').getBoundingClientRect();
              const cell = document.querySelector('table.automations td.fire-count').getBoundingClientRect();
              return { panel: panel.right, lastCell: cell.right };
            }""")
            return (
                boxes,
                await page.evaluate("document.documentElement.scrollWidth"),
                await page.evaluate("window.innerWidth"),
            )

    boxes, page_width, window_width = asyncio.run(scenario())
    assert boxes["lastCell"] <= boxes["panel"], boxes  # the last column ("Fired") is inside the panel, not cut off
    assert page_width <= window_width  # and the page does not scroll sideways


def test_every_control_stays_inside_its_device_tile(chromium: Chromium) -> None:
    fabric = _complex_home()

    async def scenario() -> tuple[list[Any], list[Any]]:
        async with running_api(fabric) as api, chromium.page() as page:
            await _open(page, api.url)
            spills: list[Any] = await page.evaluate(
                _SPILLS, ["div.device select, div.device input, div.device button", "div.device"]
            )
            narrow: list[Any] = await page.evaluate("""() => [...document.querySelectorAll('div.device select')]
              .map((s) => [s.closest('div.device').id, s.getBoundingClientRect().width]).filter(([, w]) => w < 60)""")
            return spills, narrow

    spills, narrow = asyncio.run(scenario())
    assert spills == []  # no dropdown, setpoint or button sticks out of its tile
    assert narrow == []  # …nor is one squeezed to nothing to fit


def test_each_of_the_water_heaters_dropdowns_says_which_mode_it_sets(chromium: Chromium) -> None:
    fabric = _complex_home()
    heater = _first(fabric, "water_heater")

    async def scenario() -> tuple[list[str], list[str]]:
        async with running_api(fabric) as api, chromium.page() as page:
            await _open(page, api.url)
            labels = await page.locator(f"#device-{heater} label.select-row > span").all_inner_texts()
            aria = [
                await s.get_attribute("aria-label") or "" for s in await page.locator(f"#device-{heater} select").all()
            ]
            return labels, aria

    labels, aria = asyncio.run(scenario())
    assert len(labels) == 2 and len(set(labels)) == 2, labels  # a thermostat system mode and a WaterHeaterMode
    assert "Water heater mode" in labels
    assert any("Thermostat" in a for a in aria) and any("WaterHeaterMode" in a for a in aria), aria


def test_the_home_filters_by_room_type_and_search(chromium: Chromium) -> None:
    fabric = _complex_home()
    kitchen = next(r for r in fabric.rooms() if r.name == "Kitchen")
    # a room shows the rooms nested in it too (the complex home's pantry is inside its kitchen)
    kitchen_rooms = {kitchen.room_id} | {r.room_id for r in fabric.rooms() if r.parent == kitchen.room_id}
    in_kitchen = {d.device_id for d in fabric.devices() if d.room_id in kitchen_rooms}
    lights = [d.device_id for d in fabric.devices() if d.device_type == "on_off_light"]
    visible = (
        "() => [...document.querySelectorAll('div.device')].filter((d) => d.offsetParent !== null).map((d) => d.id)"
    )
    height = "document.documentElement.scrollHeight"

    async def scenario() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with running_api(fabric) as api, chromium.page() as page:
            await _open(page, api.url)
            seen["all"], seen["all_height"] = len(await page.evaluate(visible)), await page.evaluate(height)
            await page.select_option("#floor-room", kitchen.room_id)
            seen["room"], seen["room_height"] = set(await page.evaluate(visible)), await page.evaluate(height)
            seen["rooms_shown"] = await page.locator("article.room:visible").count()
            await page.select_option("#floor-room", "")
            await page.select_option("#floor-type", label="On/off light")
            seen["type"] = sorted(await page.evaluate(visible))
            await page.select_option("#floor-type", "")
            await page.fill("#floor-search", "kitchen dishwasher")
            seen["search"] = await page.evaluate(visible)
            seen["count"] = await page.inner_text("#floor-count")
            await page.fill("#floor-search", "no such device")
            seen["nothing"] = await page.evaluate(visible)
            seen["floors_shown"] = await page.locator("section.floor:visible").count()
            # a fast-forward re-renders the home (new tiles): the filters stay as the user set them
            await page.fill("#floor-search", "kitchen dishwasher")
            await page.evaluate("document.querySelector('div.device').dataset.old = 'yes'")
            await page.click("button[data-forward='600']")
            await page.wait_for_function("!document.querySelector('div.device[data-old]')")
            seen["after_render"] = await page.evaluate(visible)
        return seen

    seen = asyncio.run(scenario())
    assert seen["all"] == len(fabric.devices()) > 130  # the complex home: its 135 room devices and its home systems
    assert len(kitchen_rooms) > 1
    assert seen["room"] == {f"device-{d}" for d in in_kitchen} and seen["rooms_shown"] == len(kitchen_rooms)
    assert seen["room_height"] < seen["all_height"] / 4  # one room, not the whole 6,000-pixel home
    assert seen["type"] == sorted(f"device-{d}" for d in lights)
    assert seen["search"] == [f"device-{_first(fabric, 'kitchen_dishwasher')}"]
    assert seen["count"] == f"1 of {len(fabric.devices())} devices"
    assert seen["nothing"] == [] and seen["floors_shown"] == 0
    assert seen["after_render"] == seen["search"]


def test_the_episodes_box_starts_at_the_servers_episodes_root(chromium: Chromium, tmp_path: Path) -> None:
    async def scenario() -> tuple[str, str]:
        async with (
            running_api(EmulatedHome(generate_home("medium", 3)), episodes_root=tmp_path) as api,
            chromium.page() as page,
        ):
            await page.goto(api.url + "/#episodes")
            await page.wait_for_selector("#episodes-path[data-root]", state="attached")
            return await page.input_value("#episodes-path"), await page.eval_on_selector(
                "#episodes-path", "box => box.dataset.root"
            )

    assert asyncio.run(scenario()) == (str(tmp_path), str(tmp_path))


def test_a_live_run_ends_without_a_stray_null(chromium: Chromium, tmp_path: Path) -> None:
    fabric = EmulatedHome(generate_home("medium", 3))
    write_some_episodes(tmp_path / "episodes")

    async def scenario() -> tuple[list[str], str]:
        errors: list[str] = []
        async with (
            running_api(fabric, runs_dir=tmp_path / "runs", episodes_root=tmp_path) as api,
            chromium.page(errors=errors) as page,
        ):
            await page.goto(api.url + "/#episodes")
            await page.wait_for_selector("body[data-loaded=true]")
            await page.fill("#episodes-path", str(tmp_path / "episodes"))
            await page.click("#load-episodes")
            await page.wait_for_selector("#episode-select option", state="attached")
            first = await page.eval_on_selector("#episode-select option", "o => o.value")
            await page.select_option("#episode-select", [first])
            await page.click("#start-run")
            await page.wait_for_selector("#verdict.passed")
            await page.wait_for_selector("#trajectory details")  # the episode's state diff, the last part
            # the text directly inside the trajectory view: no bare "null" written by replaceChildren
            loose = await page.evaluate("""() => [...document.getElementById('trajectory').childNodes]
              .filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent)""")
            text = await page.inner_text("#trajectory")
        assert errors == []
        return loose, text

    loose, text = asyncio.run(scenario())
    assert loose == [] and not text.rstrip().endswith("null"), text[-200:]


# The device library's newest types (issue 22): one tile each, their state shown and their controls working.
NEW_TYPES = (
    "temperature_sensor", "humidity_sensor", "pressure_sensor", "flow_sensor", "rain_sensor", "water_freeze_detector",
    "water_valve", "pump", "pump_controller", "generic_switch", "on_off_light_switch", "dimmer_switch",
    "color_dimmer_switch", "door_lock_controller", "video_remote_control", "mode_select", "dimmable_plug_in_unit",
    "wine_cooler", "cooktop", "extractor_hood", "solar_power", "battery_storage", "evse",
)  # fmt: skip


def test_every_new_device_type_shows_its_state_and_its_controls_work(chromium: Chromium) -> None:
    from emulator.scenarios import turn_on_cook_surface
    from tests.browser import until
    from tests.emulator.helpers import home as home_config
    from tests.http.test_dashboard_no_null import MISSING, VISIBLE_TEXT

    fabric = EmulatedHome(home_config([(name, name, "kitchen") for name in NEW_TYPES]))
    fabric.invoke("water_valve", 1, "ValveConfigurationAndControl", "Open", {})
    turn_on_cook_surface(fabric, "cooktop", 2)  # at the hob: Matter lets a controller only switch it off

    async def scenario() -> dict[str, str]:
        errors: list[str] = []
        async with (
            running_api(fabric, speed=1) as api,
            chromium.page(viewport={"width": 1400, "height": 1200}, errors=errors) as page,
        ):
            await _open(page, api.url)
            texts = {name: await page.locator(f"#device-{name}").inner_text() for name in NEW_TYPES}
            text = await page.evaluate(VISIBLE_TEXT)
            assert not [text[max(0, m.start() - 60) : m.end() + 30] for m in MISSING.finditer(text)]

            await page.click("#device-water_valve button.valve")  # an open valve offers Close
            await until(lambda: fabric.read("water_valve", 1, "ValveConfigurationAndControl", "CurrentState") == 0)
            await page.wait_for_selector("#device-water_valve button.valve:has-text('Open valve')")
            await page.select_option("#device-pump select.pump-mode", label="Maximum")
            await until(lambda: fabric.read("pump", 1, "PumpConfigurationAndControl", "OperationMode") == 2)
            await page.click("#device-evse button.evse")
            await until(lambda: fabric.read("evse", 1, "EnergyEvse", "SupplyState") == 1)
            await page.wait_for_selector("#device-evse button.evse:has-text('Stop charging')")
            mode = page.locator("#device-mode_select select.mode")
            await mode.select_option(index=1)
            wanted = int(await mode.input_value())
            await until(lambda: fabric.read("mode_select", 1, "ModeSelect", "CurrentMode") == wanted)
            await page.select_option("#device-extractor_hood select.fan-mode", label="Auto")
            await until(lambda: fabric.read("extractor_hood", 1, "FanControl", "FanMode") == 5)
            # a cook surface is switched on at the hob (OffOnly); the dashboard can only switch it off
            assert await page.locator("#device-cooktop button.toggle[data-endpoint='3']").is_disabled()
            await page.click("#device-cooktop button.toggle[data-endpoint='2']:has-text('2: On')")
            await until(lambda: fabric.read("cooktop", 2, "OnOff", "OnOff") is False)
        assert errors == []
        return texts

    texts = asyncio.run(scenario())
    assert "Close valve" in texts["water_valve"] and "m³/h" in texts["water_valve"]  # opened before the page
    assert "kPa" in texts["pressure_sensor"] and "m³/h" in texts["flow_sensor"]
    assert "Battery" in texts["battery_storage"] and " W" in texts["solar_power"]
    assert "Not plugged in" in texts["evse"] and "Enable charging" in texts["evse"]
    assert "Pump mode" in texts["pump"] and "kPa" in texts["pump"]
    assert "2: On" in texts["cooktop"] and "3: Off" in texts["cooktop"]
    assert all(texts[name].strip() for name in NEW_TYPES)  # every tile renders, at least its name and type
