"""The served home's own state across restarts of ``serve``: attribute values, room environments, workflows
and the virtual clock, kept as a home config (``home.json`` in the state directory), so whatever a home
config holds (automations too, as they are added to it) comes back.

Saved atomically (temp file, fsync, rename): a debounced save after changes, a save at least every
``CLOCK_SAVE_S`` while time moves, and a last one on shutdown. ``serve`` resumes from it unless ``--fresh``.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from emulator.emulated_home import EmulatedHome
from emulator.files import write_atomically
from emulator.home_config import HomeConfigError, dump_home

HOME_STATE_FILE = "home.json"
SAVE_DEBOUNCE_S = 2.0  # wall seconds after a change before it is written (changes in between share a write)
CLOCK_SAVE_S = 60.0  # wall seconds between saves when only time has moved


class StateFileError(ValueError):
    """A state file that cannot be used; the message names the file and the fix."""


def load_served_home(home_path: Path, state_dir: Path, *, fresh: bool) -> tuple[EmulatedHome, str]:
    """The fabric to serve and where it came from: the saved home unless ``fresh`` or there is none."""
    saved = state_dir / HOME_STATE_FILE
    if not fresh and saved.exists():
        try:
            return EmulatedHome.from_file(str(saved)), f"resumed from {saved}"
        except HomeConfigError as error:
            first = str(error).splitlines()[0] if error.problems else str(error)
            reason = error.problems[0][1] if error.problems else first
            raise StateFileError(f"{saved}: the saved home cannot be loaded ({reason[:200]}); start with --fresh to "
                                 f"start again from {home_path} (the saved state is then replaced), or restore "
                                 "the file from a backup") from None
    return EmulatedHome.from_file(str(home_path)), f"from {home_path}"


class HomeSaver:
    """``async with HomeSaver(fabric, state_dir):`` keeps ``home.json`` up to date while serving."""

    def __init__(self, fabric: EmulatedHome, state_dir: Path, *, debounce_s: float = SAVE_DEBOUNCE_S,
                 clock_save_s: float = CLOCK_SAVE_S) -> None:
        self.fabric = fabric
        self.path = state_dir / HOME_STATE_FILE
        self.debounce_s = debounce_s
        self.clock_save_s = clock_save_s
        self.saves = 0
        self._dirty = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._unsubscribe: Any = None
        self._workflows: tuple[tuple[str, str], ...] = ()

    async def __aenter__(self) -> HomeSaver:
        self._unsubscribe = self.fabric.subscribe(lambda _event: self._dirty.set(), sample_interval_s=None)
        self._workflows = self._workflow_states()
        await self.save()  # the file exists (and is current) from the first moment
        self._task = asyncio.create_task(self._loop(), name="homefabric-home-saver")
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._unsubscribe is not None:
            self._unsubscribe()
        await self.save()

    def _workflow_states(self) -> tuple[tuple[str, str], ...]:
        return tuple((w.workflow_id, w.status) for w in self.fabric.workflows())

    async def _loop(self) -> None:
        loop = asyncio.get_running_loop()
        last_save = loop.time()
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._dirty.wait(), self.debounce_s)
            await asyncio.sleep(self.debounce_s if self._dirty.is_set() else 0)
            workflows = self._workflow_states()
            changed = self._dirty.is_set() or workflows != self._workflows
            if changed or loop.time() - last_save >= self.clock_save_s:
                self._dirty.clear()
                self._workflows = workflows
                await self.save()
                last_save = loop.time()

    async def save(self) -> None:
        text = dump_home(self.fabric.to_config())  # on the loop: the fabric is consistent here
        await asyncio.to_thread(write_atomically, self.path, text)
        self.saves += 1
