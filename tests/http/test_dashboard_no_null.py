"""Issue #14 ("no `nullnull`"): a home with one device of every catalogue type, in a real headless Chromium — no
view of the dashboard shows `null`, `undefined` or `NaN` (the text of concatenated missing values)."""

from __future__ import annotations

import asyncio
import re

import pytest

from emulator.catalogue import CATALOGUE
from emulator.fabric import Fabric
from tests.emulator.helpers import home as home_config
from tests.http.live_api import running_api
from tests.http.test_dashboard_browser import CHROMIUM, FLAGS, _async_playwright

pytestmark = pytest.mark.requires("playwright", "chromium")

MISSING = re.compile(r"\b(null|undefined|NaN)\b")
# The page's rendered text without <option>s: "null" is the name of an agent in the run form's agent picker.
VISIBLE_TEXT = """() => {
  const hidden = [...document.querySelectorAll("option")].map((o) => [o, o.textContent]);
  hidden.forEach(([o]) => { o.textContent = ""; });
  const text = document.body.innerText;
  hidden.forEach(([o, t]) => { o.textContent = t; });
  return text;
}"""


def test_no_view_shows_null_for_a_home_with_every_device_type() -> None:
    names = sorted(CATALOGUE)
    fabric = Fabric(home_config([(f"d{i}", name, ("living", "kitchen")[i % 2]) for i, name in enumerate(names)]))

    async def scenario() -> None:
        errors: list[str] = []
        async with running_api(fabric, speed=1) as api, _async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, timeout=30_000)
            try:
                page = await browser.new_page(viewport={"width": 1400, "height": 1200})
                page.set_default_timeout(10_000)
                page.on("pageerror", lambda error: errors.append(str(error)))
                for view in ("home", "charts", "episodes"):
                    await page.goto(f"{api.url}/#{view}")
                    await page.wait_for_selector("body[data-loaded=true]")
                    text = await page.evaluate(VISIBLE_TEXT)
                    found = [text[max(0, m.start() - 80):m.end() + 40] for m in MISSING.finditer(text)]
                    assert not found, (view, found)
                tiles = await page.locator("[id^=device-d]").count()
                assert tiles == len(names)
            finally:
                await browser.close()
        assert errors == []

    asyncio.run(scenario())
