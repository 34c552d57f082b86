"""Issue #14 ("no `nullnull`"): a home with one device of every catalogue type, in a real headless Chromium — no
view of the dashboard shows `null`, `undefined` or `NaN` (the text of concatenated missing values)."""

from __future__ import annotations

import asyncio
import re

from emulator.catalogue import CATALOGUE
from emulator.emulated_home import EmulatedHome
from tests.browser import Chromium
from tests.emulator.helpers import home as home_config
from tests.http.live_api import running_api

MISSING = re.compile(r"\b(null|undefined|NaN)\b")
# The page's rendered text without <option>s: "null" is the name of an agent in the run form's agent picker.
VISIBLE_TEXT = """() => {
  const hidden = [...document.querySelectorAll("option")].map((o) => [o, o.textContent]);
  hidden.forEach(([o]) => { o.textContent = ""; });
  const text = document.body.innerText;
  hidden.forEach(([o, t]) => { o.textContent = t; });
  return text;
}"""


def test_no_view_shows_null_for_a_home_with_every_device_type(chromium: Chromium) -> None:
    names = sorted(CATALOGUE)
    fabric = EmulatedHome(home_config([(f"d{i}", name, ("living", "kitchen")[i % 2]) for i, name in enumerate(names)]))

    async def scenario() -> None:
        errors: list[str] = []
        async with (
            running_api(fabric, speed=1) as api,
            chromium.page(viewport={"width": 1400, "height": 1200}, errors=errors) as page,
        ):
            for view in ("home", "charts", "episodes"):
                await page.goto(f"{api.url}/#{view}")
                await page.wait_for_selector("body[data-loaded=true]")
                text = await page.evaluate(VISIBLE_TEXT)
                found = [text[max(0, m.start() - 80) : m.end() + 40] for m in MISSING.finditer(text)]
                assert not found, (view, found)
            tiles = await page.locator("[id^=device-d]").count()
            assert tiles == len(names)
        assert errors == []

    asyncio.run(scenario())
