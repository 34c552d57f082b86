"""The dashboard in a real headless Chromium (Debian's, driven by Playwright): the home's rooms and devices
load, a toggle in the page changes the fabric, a fabric change shows up in the page, the clock controls
work, and the episode viewer shows the steps and verdict of a real oracle run. A screenshot is saved."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.browser import Chromium, until
from tests.http.live_api import DIMMER, LIGHT, WASHER, home, running_api, write_some_episodes


async def _until_count(page: object, selector: str, count: int) -> None:
    await page.wait_for_function(f"document.querySelectorAll({selector!r}).length === {count}")  # type: ignore[attr-defined]


def test_dashboard_in_chromium(chromium: Chromium, tmp_path: Path) -> None:
    async def scenario() -> Path:
        fabric = home()
        episodes = tmp_path / "episodes"
        write_some_episodes(episodes)
        errors: list[str] = []
        async with (
            running_api(fabric, speed=20, runs_dir=tmp_path / "runs", episodes_root=tmp_path) as api,
            chromium.page(viewport={"width": 1500, "height": 1300}, errors=errors) as page,
        ):
            await page.goto(api.url + "/")
            await page.wait_for_selector("body[data-loaded=true]")
            await page.wait_for_selector("#live.ok")  # the events WebSocket is open

            # the floor view: every room and device, nested rooms inside their parent
            assert await page.locator("article.room").count() == len(fabric.rooms())
            assert await page.locator("div.device").count() == len(fabric.devices())
            assert await page.locator("#room-bedroom #room-balcony").count() == 1
            assert await page.locator(".floor").count() == 2

            # toggle in the page → the fabric
            toggle = page.locator(f"#device-{LIGHT} button.toggle")
            assert await toggle.inner_text() == "Off"
            await toggle.click()
            await until(lambda: fabric.read(LIGHT, 1, "OnOff", "OnOff") is True)
            await page.wait_for_selector(f"#device-{LIGHT}.is-on")

            # a level control in the page → the fabric
            await page.locator(f"#device-{DIMMER} input.level").fill("200")
            await until(lambda: fabric.read(DIMMER, 1, "LevelControl", "CurrentLevel") == 200)

            # a change made on the fabric directly → the page (over the WebSocket)
            fabric.invoke(LIGHT, 1, "OnOff", "Off")
            await page.wait_for_selector(f"#device-{LIGHT} button.toggle[aria-pressed=false]")
            fabric.invoke(WASHER, 1, "OnOff", "On")
            fabric.invoke(WASHER, 1, "OperationalState", "Start")
            await page.wait_for_selector(f"#device-{WASHER} .appliance.state-running")
            assert "left" in await page.locator(f"#device-{WASHER} .countdown").inner_text()

            # clock controls
            await page.click("#clock-pause")
            await page.wait_for_selector("body[data-clock-running=false]")
            paused_at = fabric.tick
            await asyncio.sleep(0.3)
            assert fabric.tick == paused_at
            await page.fill("#clock-speed", "120")
            await page.press("#clock-speed", "Enter")
            await until(lambda: api.app.state.ctx.pacer.speed == 120)
            await page.click("#clock-resume")
            await page.wait_for_selector("body[data-clock-running=true]")
            await until(lambda: fabric.tick > paused_at)
            before = fabric.tick
            await page.click("button[data-forward='3600']")
            await until(lambda: fabric.tick >= before + 36000)
            await page.wait_for_function(
                f"document.getElementById('clock-time').textContent >= '{fabric.now_text()[:13]}'"
            )
            await page.click("a[data-view-link=charts]")
            await page.wait_for_selector("body[data-current-view=charts]")
            # a few rooms by default (4 charts × 4 rooms); the legend picks more, "all rooms" shows them all
            assert await page.locator(".chart polyline.series").count() == 4 * 4
            await page.locator(".legend-item.hidden").first.click()
            await _until_count(page, ".chart polyline.series", 4 * 5)
            await page.click(".legend-all")
            await _until_count(page, ".chart polyline.series", 4 * len(fabric.rooms()))

            # the episode viewer (its own view, #episodes): a live oracle run, then the same run's stored record
            await page.click("a[data-view-link=episodes]")
            await page.wait_for_selector("body[data-current-view=episodes]")
            await page.fill("#episodes-path", str(episodes))
            await page.click("#load-episodes")
            await page.wait_for_selector("#episode-select option", state="attached")
            ids = await page.eval_on_selector_all("#episode-select option", "os => os.map(o => o.value)")
            await page.select_option("#episode-select", ids)
            await page.click("#start-run")
            await page.wait_for_selector("#verdict.passed")
            await page.wait_for_function("document.querySelectorAll('.step-link').length > 0")
            await page.wait_for_selector("#run-select option[value^='api-']", state="attached")
            run_id = await page.eval_on_selector("#run-select option[value^='api-']", "o => o.value")
            await page.select_option("#run-select", run_id)
            await page.locator("#record-list button.record").first.click()
            await page.wait_for_selector(f".trajectory-title:has-text('{run_id}')")
            assert await page.locator(".step-link").count() >= 2
            await page.click("#step-next")
            assert (await page.inner_text("#step-detail")).startswith("Step 2 of")
            assert await page.locator("#step-detail .observation").count() == 1
            assert await page.locator("table.diff").count() >= 1  # the episode's state diff
            await page.wait_for_selector("#verdict.passed")

            shot = tmp_path / "screenshots" / "dashboard.png"
            shot.parent.mkdir()
            await page.screenshot(path=str(shot), full_page=True)
        assert errors == []
        return shot

    shot = asyncio.run(scenario())
    assert shot.stat().st_size > 10_000
    print(f"dashboard screenshot: {shot}")


def test_dashboard_takes_the_token_from_the_url_fragment(chromium: Chromium) -> None:
    async def scenario() -> None:
        fabric = home()
        async with running_api(fabric, token="frag-t0k") as api, chromium.page() as page:
            await page.goto(api.url + "/#token=frag-t0k")
            await page.wait_for_selector("body[data-loaded=true]")
            await page.wait_for_selector("#live.ok")  # the WebSocket took the token too
            await page.locator(f"#device-{LIGHT} button.toggle").click()
            await until(lambda: fabric.read(LIGHT, 1, "OnOff", "OnOff") is True)

    asyncio.run(scenario())
