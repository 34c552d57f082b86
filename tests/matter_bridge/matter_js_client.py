"""The second controller stack: matter.js (``@matter/main`` + ``@project-chip/matter.js`` 0.17.9, pinned by
``tests/matter_js/package-lock.json``), run as ``node tests/matter_js/controller.mjs`` inside the test's
network namespace and driven over its stdin/stdout (one JSON request per line, answers prefixed ``@@hf``).

It needs ``node`` and ``npm ci`` in tests/matter_js: the ``requires("node", "matter.js")`` marker of
tests/requirements.py skips without them locally and fails under ``CI=true``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.matter_bridge.event_wait import wait_event
from tests.matter_bridge.live_env import CONTROLLER_IF, ROOT

MATTER_JS_DIR = ROOT / "tests" / "matter_js"
SCRIPT = MATTER_JS_DIR / "controller.mjs"
PREFIX = b"@@hf "
LINE_LIMIT = 16 * 1024 * 1024  # one answer is one line: a wildcard read of a big node is megabytes


class MatterJsError(RuntimeError):
    pass


class MatterJsController:
    """One matter.js controller process (its own fabric, its own storage); use ``async with``."""

    def __init__(self, namespace: str, storage: Path, log: Path) -> None:
        self.namespace, self.storage, self.log_path = namespace, storage, log
        self.events: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._changed = asyncio.Condition()
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._log: Any = None

    async def __aenter__(self) -> MatterJsController:
        self.storage.mkdir(parents=True, exist_ok=True)
        self._log = self.log_path.open("ab")
        self._proc = await asyncio.create_subprocess_exec(
            "ip",
            "netns",
            "exec",
            self.namespace,
            shutil.which("node") or "node",
            str(SCRIPT),
            str(self.storage),
            CONTROLLER_IF,
            cwd=MATTER_JS_DIR,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=self._log,
            start_new_session=True,
            limit=LINE_LIMIT,
        )
        self._reader = asyncio.create_task(self._read())
        try:
            await self.wait_event(lambda e: e.get("event") == "ready", 60)
        except BaseException:
            await self.close()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        while line := await self._proc.stdout.readline():
            if not line.startswith(PREFIX):
                self._log.write(line)
                continue
            message = json.loads(line[len(PREFIX) :])
            future = self._pending.pop(message.get("id", -1), None)
            if future is not None:
                if not future.done():
                    future.set_result(message)
                continue
            async with self._changed:
                message["received"] = time.monotonic()
                self.events.append(message)
                self._changed.notify_all()
        for future in self._pending.values():
            if not future.done():
                future.set_exception(MatterJsError(f"matter.js controller exited\n{self.tail()}"))

    async def call(self, op: str, *, timeout_s: float = 60, **fields: Any) -> Any:
        assert self._proc is not None and self._proc.stdin is not None
        request_id = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self._proc.stdin.write(json.dumps({"id": request_id, "op": op, **fields}).encode() + b"\n")
        await self._proc.stdin.drain()
        try:
            answer = await asyncio.wait_for(future, timeout_s)
        finally:
            self._pending.pop(request_id, None)
        if not answer["ok"]:
            raise MatterJsError(f"{op}: {answer['error']}")
        return answer["result"]

    async def wait_event(
        self, predicate: Callable[[dict[str, Any]], bool], timeout_s: float, since: int = 0
    ) -> dict[str, Any]:
        """The first event at index ≥ ``since`` matching ``predicate``, waiting up to ``timeout_s``."""
        return await wait_event(self.events, self._changed, predicate, timeout_s, since)

    def tail(self, chars: int = 6000) -> str:
        with contextlib.suppress(OSError):
            if self._log is not None:
                self._log.flush()
            return self.log_path.read_text(errors="replace")[-chars:]
        return ""

    async def close(self) -> None:
        proc = self._proc
        if proc is None:
            return
        self._proc = None
        if proc.returncode is None and proc.stdin is not None:
            with contextlib.suppress(Exception):
                proc.stdin.write(b'{"op": "quit"}\n')
                await proc.stdin.drain()
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)
        if self._log is not None:
            self._log.close()
