"""The live setup of the end-to-end tests (test_controller_e2e, test_matter_js_e2e, test_multi_admin,
agent_tools/test_matter_backend_live): one event loop that every socket lives on, the small home (or one of the
test's) served by ``live_env.LiveBridge``, optionally a matter.js controller in the same namespace, the shared node,
and the teardown — each module subclasses ``LiveSetup`` with its own commissioning and shorthands, or uses it as is.
``live_work`` alone is the work directory of live tests that start other processes (``scripts/up``, a bare node).

Not in live_env.py: matter_js_client imports live_env, and this module needs both.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

from tests.matter_bridge.live_env import LiveBridge, write_small_home
from tests.matter_bridge.matter_js_client import MatterJsController


class LiveSetup:
    """The bridge (``homefabric serve``, with matter-server unless ``matter_server=False``), a matter.js controller
    when ``matter_js=True``, the node the module's tests share, and the timings they measure."""

    run_timeout_s: float = 120

    def __init__(
        self,
        work: Path,
        *,
        speed: float,
        namespace_prefix: str,
        matter_server: bool = True,
        matter_js: bool = False,
        home: Path | None = None,
    ) -> None:
        self.work = work
        self.loop = asyncio.new_event_loop()
        home = write_small_home(work / "home.json") if home is None else home  # the small home unless given one
        self.bridge = LiveBridge(
            home, work, speed=speed, namespace_prefix=namespace_prefix, matter_server=matter_server
        )
        self.with_matter_js = matter_js
        self.controller: MatterJsController | None = None
        self.node_id: int | None = None
        self.layout: dict[str, Any] = {}  # the control socket's ``endpoints``: device → its Matter endpoints
        self.timings: dict[str, float] = {}

    @property
    def mjs(self) -> MatterJsController:
        assert self.controller is not None, "this setup has no matter.js controller"
        return self.controller

    def run(self, coro: Coroutine[Any, Any, Any], timeout_s: float | None = None) -> Any:
        """Run ``coro`` on the setup's loop; a failure or timeout is an AssertionError with every process's log."""
        limit = self.run_timeout_s if timeout_s is None else timeout_s
        try:
            return self.loop.run_until_complete(asyncio.wait_for(coro, limit))
        except BaseException as error:
            tail = f"\n--- matter.js\n{self.controller.tail()}" if self.controller else ""
            raise AssertionError(f"{type(error).__name__}: {error}\n{self.bridge.logs()}{tail}") from error

    async def start(self) -> None:
        await self.bridge.__aenter__()
        if self.with_matter_js:  # in the bridge's namespace, so it can only start after it
            self.controller = MatterJsController(
                self.bridge.namespace, self.work / "matter-js", self.work / "matter-js.log"
            )
            await self.controller.__aenter__()

    async def stop(self) -> None:
        if self.controller is not None:
            await self.controller.close()
        await self.bridge.__aexit__(None, None, None)

    def commission(self) -> None:
        raise NotImplementedError(f"{type(self).__name__} commissions in its own tests")

    def need_node(self) -> int:
        if self.node_id is None:  # run alone (-k), or the first test failed: commission here, as it does
            self.commission()
        assert self.node_id is not None
        return self.node_id

    def endpoint(self, device_id: str, device_endpoint: int = 1) -> int:
        """The bridged Matter endpoint of ``device_id``'s own endpoint ``device_endpoint``."""
        return int(self.layout[device_id]["endpoints"][str(device_endpoint)])

    def fabric_state(self) -> dict[str, Any]:
        """``serve``'s stored fabrics and ACL (state/fabrics.json)."""
        return json.loads((self.bridge.state_dir / "fabrics.json").read_text())

    def fabrics(self) -> list[dict[str, Any]]:
        return self.fabric_state().get("fabrics", [])

    async def until_fabrics(self, count: int, timeout_s: float = 20) -> None:
        """Wait until ``serve`` has stored exactly ``count`` fabrics (a removal is written after its answer)."""
        deadline = time.monotonic() + timeout_s
        while len(self.fabrics()) != count:
            assert time.monotonic() < deadline, self.fabric_state()
            await asyncio.sleep(0.2)


Setup = TypeVar("Setup", bound=LiveSetup)


@contextlib.contextmanager
def live_setup(
    make: Callable[[Path], Setup], *, work_prefix: str, report: str, start_timeout_s: float = 120
) -> Iterator[Setup]:
    """A started setup in a fresh work directory; on exit everything stopped, the timings printed as JSON under
    ``report``, and the work directory deleted (kept, logs and all, with HF_LIVE_KEEP=1)."""
    with live_work(work_prefix) as work:
        setup = make(work)
        try:
            setup.run(setup.start(), start_timeout_s)
            yield setup
        finally:
            setup.loop.run_until_complete(setup.stop())
            setup.loop.close()
            print(json.dumps({report: {k: round(v, 3) for k, v in setup.timings.items()}, "work": str(work)}))


@contextlib.contextmanager
def live_work(prefix: str) -> Iterator[Path]:
    """A fresh work directory for a live test's state and logs, deleted on exit — kept with HF_LIVE_KEEP=1."""
    work = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield work
    finally:
        if not os.environ.get("HF_LIVE_KEEP"):
            shutil.rmtree(work, ignore_errors=True)
