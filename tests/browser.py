"""A real headless Chromium for the dashboard tests — Debian's (tests/requirements.CHROMIUM), driven by Playwright —
in one place: the flags this machine needs, a fresh profile for every launch, and the missing-dependency rule of
tests/requirements.py (skipped locally, a failure under CI=true).

    def test_x(chromium: Chromium) -> None:
        async def scenario() -> None:
            async with running_api(fabric) as api, chromium.page(errors=errors) as page:
                await page.goto(api.url + "/")
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

import pytest

from tests.requirements import CHROMIUM, require

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Page, Playwright, ViewportSize

# No sandbox: the tests run as root in a container. No GPU: there is none. No QUIC, background networking,
# component updates, sync or first-run set-up: nothing but loopback is reachable, and a page load must not
# wait on what tries to go further.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
LAUNCH_TIMEOUT_MS = 30_000
# A launch that has not come up in LAUNCH_TIMEOUT_MS is killed by Playwright and tried once more with a fresh
# profile: on a loaded two-core CI machine Chromium's start has hung once in a full run (after its D-Bus
# complaints, no DevTools pipe in 30 s) while the next launch a moment later was fine.
LAUNCH_ATTEMPTS = 2


class Chromium:
    """``async with chromium.page(...) as page``: one page in a freshly launched browser, closed on exit."""

    @contextlib.asynccontextmanager
    async def page(
        self, *, viewport: ViewportSize | None = None, timeout_ms: float = 10_000, errors: list[str] | None = None
    ) -> AsyncIterator[Page]:
        """``viewport`` None: Playwright's default (1280×720); ``errors`` collects the page's uncaught errors."""
        # Imported here, not at the top: a missing playwright is the requirement check's to report.
        from playwright.async_api import async_playwright

        async with contextlib.AsyncExitStack() as stack:
            playwright = await stack.enter_async_context(async_playwright())
            context = await _launch(playwright, stack, viewport)
            try:
                page = context.pages[0] if context.pages else await context.new_page()
                page.set_default_timeout(timeout_ms)
                if errors is not None:
                    page.on("pageerror", lambda error: errors.append(str(error)))
                yield page
            finally:
                await context.close()


async def _launch(
    playwright: Playwright, stack: contextlib.AsyncExitStack, viewport: ViewportSize | None
) -> BrowserContext:
    """A browser with a profile of its own (Playwright passes it as --user-data-dir: nothing carried over between
    tests), launched again once if the first launch hung."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    for attempt in range(1, LAUNCH_ATTEMPTS + 1):
        profile = stack.enter_context(tempfile.TemporaryDirectory(prefix="hf-chromium-"))
        try:
            return await playwright.chromium.launch_persistent_context(
                profile, executable_path=str(CHROMIUM), args=list(FLAGS), timeout=LAUNCH_TIMEOUT_MS, viewport=viewport
            )
        except PlaywrightTimeout:
            if attempt == LAUNCH_ATTEMPTS:
                raise
    raise AssertionError("unreachable: the last attempt returns or raises")


@pytest.fixture
def chromium() -> Chromium:
    """Launches Chromium pages for one test (missing playwright or Chromium: skipped locally, failed under CI)."""
    require("playwright", "chromium")
    return Chromium()


async def until(check: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait for a condition outside the page (the fabric, the server) that a click in the page brings about."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)
