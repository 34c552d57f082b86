"""The served home's own state across restarts of ``serve``: attribute values, room environments, workflows
and the virtual clock, kept as a home config (``home.json`` in the state directory), so whatever a home
config holds (automations too, as they are added to it) comes back.

Saved atomically (temp file, fsync, rename): a debounced save after changes, a save at least every
``CLOCK_SAVE_S`` while time moves, and a last one on shutdown. ``serve`` resumes from it unless ``--fresh``.

Between two saves every device change is written ahead to ``home.journal`` (one JSON line: device, attribute
path, value) from inside the call that makes it, so before the call is acknowledged: a kill -9 at any moment
loses no acknowledged change (the kernel holds what was written); the journal is fsynced with each save, so a
power cut loses at most the debounce window. Loading replays the journal over ``home.json``; each save drops
the lines it covers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
from pathlib import Path
from typing import Any

from emulator.emulated_home import EmulatedHome
from emulator.events import AttributeEvent
from emulator.files import write_atomically
from emulator.home_config import HomeConfig, HomeConfigError, dump_home, load_home

HOME_STATE_FILE = "home.json"
JOURNAL_FILE = "home.journal"
SAVE_DEBOUNCE_S = 2.0  # wall seconds after a change before it is written (changes in between share a write)
CLOCK_SAVE_S = 60.0  # wall seconds between saves when only time has moved


class StateFileError(ValueError):
    """A state file that cannot be used; the message names the file and the fix."""


def load_served_home(home_path: Path, state_dir: Path, *, fresh: bool) -> tuple[EmulatedHome, str]:
    """The fabric to serve and where it came from: the saved home unless ``fresh`` or there is none."""
    saved = state_dir / HOME_STATE_FILE
    if not fresh and saved.exists():
        try:
            config = replay_journal(load_home(saved), state_dir / JOURNAL_FILE)
            return EmulatedHome(config), f"resumed from {saved}"
        except HomeConfigError as error:
            first = str(error).splitlines()[0] if error.problems else str(error)
            reason = error.problems[0][1] if error.problems else first
            raise StateFileError(
                f"{saved}: the saved home cannot be loaded ({reason[:200]}); start with --fresh to "
                f"start again from {home_path} (the saved state is then replaced), or restore "
                "the file from a backup"
            ) from None
    return EmulatedHome.from_file(str(home_path)), f"from {home_path}"


def replay_journal(config: HomeConfig, journal: Path) -> HomeConfig:
    """``config`` with the journal's changes applied in order (a torn or foreign line is skipped)."""
    try:
        lines = journal.read_bytes().splitlines()
    except FileNotFoundError:
        return config
    devices = {device.id: device for device in config.devices}
    for line in lines:
        try:
            device_id, path, value = json.loads(line)
        except (ValueError, TypeError):
            continue
        if device_id in devices and isinstance(path, str):
            devices[device_id].attributes[path] = value
    return config


class ChangeJournal:
    """The write-ahead file of device changes since the last save (see the module's note)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()  # changes arrive from the loop and from worker threads
        self._fd = self._open()

    def _open(self) -> int:
        return os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)

    def append(self, device_id: str, path: str, value: Any) -> bool:
        """Write one change now (False: the value is not JSON; the next save keeps it instead)."""
        try:
            line = json.dumps([device_id, path, value], separators=(",", ":"), allow_nan=False) + "\n"
        except (TypeError, ValueError):
            return False
        with self._lock:
            os.write(self._fd, line.encode("utf-8"))
        return True

    def mark(self) -> int:
        """Where the journal ends now (taken with the snapshot a save writes)."""
        with self._lock:
            return os.fstat(self._fd).st_size

    def drop_until(self, offset: int) -> None:
        """After a save covering everything before ``offset``: keep only the later lines (fsynced)."""
        with self._lock:
            with open(self.path, "rb") as source:
                source.seek(offset)
                rest = source.read()
            temp = self.path.with_name(self.path.name + ".tmp")  # one fixed name: a kill leaves no pile
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                os.write(fd, rest)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, self.path)
            os.close(self._fd)
            self._fd = self._open()

    def close(self) -> None:
        with self._lock:
            os.close(self._fd)


class HomeSaver:
    """``async with HomeSaver(fabric, state_dir):`` keeps ``home.json`` up to date while serving."""

    def __init__(
        self,
        fabric: EmulatedHome,
        state_dir: Path,
        *,
        debounce_s: float = SAVE_DEBOUNCE_S,
        clock_save_s: float = CLOCK_SAVE_S,
    ) -> None:
        self.fabric = fabric
        self.path = state_dir / HOME_STATE_FILE
        self.debounce_s = debounce_s
        self.clock_save_s = clock_save_s
        self.saves = 0
        self._dirty = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._unsubscribe: Any = None
        self._workflows: tuple[tuple[str, str], ...] = ()
        self._journal: ChangeJournal

    def _changed(self, event: AttributeEvent) -> None:
        self._dirty.set()
        if event.cluster != "Descriptor" and self.fabric.physics_source(event.device_id, event.path) is None:
            self._journal.append(event.device_id, event.path, event.new)  # before the change is acknowledged

    async def __aenter__(self) -> HomeSaver:
        self._journal = ChangeJournal(self.path.with_name(JOURNAL_FILE))
        self._unsubscribe = self.fabric.subscribe(self._changed, sample_interval_s=None)
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
        self._journal.close()

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
        covered = self._journal.mark()
        text = dump_home(self.fabric.to_config())  # on the loop: the fabric is consistent here
        await asyncio.to_thread(write_atomically, self.path, text)
        await asyncio.to_thread(self._journal.drop_until, covered)
        self.saves += 1
