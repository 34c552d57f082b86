"""Issue #14, item 5 (the brief's item 6): a dashboard a tester can drive, in a real headless Chromium — each
new control changes the fabric (thermostat/AC mode and setpoint, appliance start/stop and mode, colour and colour
temperature, fridge/oven setpoints), views have their own URL, a refused value is named in the user's units with
the device named once, and a missing token is a visible state. Screenshots are saved."""

from __future__ import annotations

import asyncio
from pathlib import Path

from emulator.emulated_home import EmulatedHome
from tests.browser import Chromium, until
from tests.emulator.helpers import home as home_config
from tests.http.live_api import running_api

DEVICES = [
    ("ac", "air_conditioner", "living"),
    ("heater", "heat_pump", "living"),
    ("lamp", "extended_color_light", "living"),
    ("washer", "laundry_washer", "utility"),
    ("oven", "oven", "kitchen"),
    ("fridge", "refrigerator", "kitchen"),
]


def test_each_new_control_changes_the_fabric(chromium: Chromium, tmp_path: Path) -> None:
    async def scenario() -> None:
        fabric = EmulatedHome(home_config(DEVICES))
        fabric.invoke("ac", 1, "OnOff", "On")
        fabric.invoke("washer", 1, "OnOff", "On")
        errors: list[str] = []
        async with (
            running_api(fabric, speed=1) as api,
            chromium.page(viewport={"width": 1400, "height": 1200}, errors=errors) as page,
        ):
            await page.goto(api.url + "/#home")
            await page.wait_for_selector("body[data-loaded=true]")
            assert await page.locator("[data-view=charts]").is_hidden()

            # thermostat / AC mode
            await page.select_option("#device-ac select.system-mode", label="Cool")
            await until(lambda: fabric.read("ac", 1, "Thermostat", "SystemMode") == 3)
            await page.select_option("#device-heater select.system-mode", label="Heat")
            await until(lambda: fabric.read("heater", 4, "Thermostat", "SystemMode") == 4)
            # a setpoint in °C
            await page.fill("#device-ac input[data-attribute=OccupiedCoolingSetpoint]", "22.5")
            await page.press("#device-ac input[data-attribute=OccupiedCoolingSetpoint]", "Enter")
            await until(lambda: fabric.read("ac", 1, "Thermostat", "OccupiedCoolingSetpoint") == 2250)
            # a refused value: in the user's units, naming the device once, nothing sent
            before = fabric.read("heater", 4, "Thermostat", "OccupiedHeatingSetpoint")
            await page.fill("#device-heater input[data-attribute=OccupiedHeatingSetpoint]", "99")
            await page.press("#device-heater input[data-attribute=OccupiedHeatingSetpoint]", "Enter")
            toast = await page.wait_for_selector(".toast")
            text = await toast.inner_text()
            assert "Heat to 99 °C is outside 7–30 °C" in text, text
            assert text.count("heater") + text.count("Heat pump") <= 1 and "null" not in text
            assert fabric.read("heater", 4, "Thermostat", "OccupiedHeatingSetpoint") == before

            # colour temperature (K) and colour
            white = page.locator("#device-lamp input.colour-temperature")
            await white.evaluate("(input) => { input.value = 2700; input.dispatchEvent(new Event('change')); }")
            await until(lambda: fabric.read("lamp", 1, "ColorControl", "ColorTemperatureMireds") == 370)
            colour = page.locator("#device-lamp input.colour")
            await colour.evaluate("(input) => { input.value = '#00ff00'; input.dispatchEvent(new Event('change')); }")
            await until(lambda: abs(fabric.read("lamp", 1, "ColorControl", "CurrentHue") - 85) <= 1)

            # appliance mode, start and stop
            washer_mode = page.locator("#device-washer select.mode")
            options = await washer_mode.locator("option").all_inner_texts()
            await washer_mode.select_option(label=options[1])
            await until(
                lambda: fabric.read("washer", 1, "LaundryWasherMode", "CurrentMode") != 0 or options[1] == options[0]
            )
            await page.click("#device-washer button.cycle.start")
            await until(lambda: fabric.read("washer", 1, "OperationalState", "OperationalState") == 1)
            await page.click("#device-washer button.cycle.stop:not([disabled])")
            await until(lambda: fabric.read("washer", 1, "OperationalState", "OperationalState") == 0)

            # fridge and oven setpoints
            await page.fill("#device-fridge input[data-attribute=TemperatureSetpoint]", "4")
            await page.press("#device-fridge input[data-attribute=TemperatureSetpoint]", "Enter")
            await until(lambda: fabric.read("fridge", 1, "TemperatureControl", "TemperatureSetpoint") == 400)
            oven_setpoint = page.locator("#device-oven input[data-attribute=TemperatureSetpoint]")
            await oven_setpoint.fill("180")
            await oven_setpoint.press("Enter")
            await until(lambda: fabric.read("oven", 2, "TemperatureControl", "TemperatureSetpoint") == 18000)

            shot = tmp_path / "controls.png"
            await page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 10_000

            # views have their own URL
            await page.goto(api.url + "/#charts")
            await page.wait_for_selector("body[data-current-view=charts]")
            assert await page.locator("[data-view=home]").is_hidden()
            assert await page.locator("[data-view=charts]").is_visible()
        assert errors == []

    asyncio.run(scenario())


def test_a_missing_token_is_a_visible_state(chromium: Chromium, tmp_path: Path) -> None:
    async def scenario() -> None:
        fabric = EmulatedHome(home_config(DEVICES[:1]))
        async with running_api(fabric, token="s3cret") as api, chromium.page() as page:
            page.on("dialog", lambda dialog: asyncio.ensure_future(dialog.dismiss()))
            await page.goto(api.url + "/")
            await page.wait_for_selector("body[data-auth=required]")
            assert await page.locator("#auth-banner").is_visible()
            assert "Token required" in await page.inner_text("#auth-banner")
            await page.screenshot(path=str(tmp_path / "token-required.png"))
            await page.goto(api.url + "/#token=s3cret")
            await page.reload()
            await page.wait_for_selector("body[data-loaded=true]")
            assert await page.locator("#auth-banner").is_hidden()
            assert "token=" not in page.url  # the secret does not stay in the address bar

    asyncio.run(scenario())


def test_the_record_list_follows_the_run_shown(chromium: Chromium, tmp_path: Path) -> None:
    from tests.http.live_api import home, write_some_episodes

    async def scenario() -> None:
        episodes = tmp_path / "episodes"
        ids = write_some_episodes(episodes)
        async with (
            running_api(home(), runs_dir=tmp_path / "runs", episodes_root=tmp_path) as api,
            chromium.page(viewport={"width": 1400, "height": 1000}, timeout_ms=15_000) as page,
        ):
            await page.goto(api.url + "/#episodes")
            await page.wait_for_selector("body[data-loaded=true]")
            await page.fill("#episodes-path", str(episodes))
            await page.click("#load-episodes")
            await page.wait_for_selector("#episode-select option", state="attached")
            for run in range(2):
                await page.select_option("#episode-select", ids[: run + 1])
                await page.click("#start-run")
                await page.wait_for_function(
                    "document.querySelector('#run-select').value.startsWith('api-') && "
                    "document.querySelector('#record-list').dataset.run === "
                    "document.querySelector('#run-select').value"
                )
                run_id = await page.eval_on_selector("#run-select", "s => s.value")
                # the list shows this run's records (not the previous run's), without choosing it by hand
                await page.wait_for_function(
                    f"document.querySelectorAll('#record-list button.record').length === {run + 1}"
                )
                assert await page.eval_on_selector("#record-list", "l => l.dataset.run") == run_id

    asyncio.run(scenario())
