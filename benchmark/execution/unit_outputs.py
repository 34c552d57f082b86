"""The outputs of units of work, kept on disk while the work runs, so a killed run resumes where it stopped.

One file per unit (:attr:`WorkUnit.file_name`) in a directory, each written atomically as its unit comes back, and
a state file saying what the work is (the spec or parameters it was started with): ``--resume`` continues only the
same work, keeps the units already written and runs the rest. ``dataset build`` keeps its units (``OUT/units/``,
state ``OUT/build.json``); ``speech render`` keeps them until its manifest is written (``OUT/.render/``, state
``OUT/.render/render.json``). Each command words its own refusals; this owner only says what is on disk.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from benchmark.execution.executors import WorkUnit
from emulator.files import write_atomically


class UnitOutputs:
    """``directory``: one file per unit written; ``state``: the file describing the work they belong to."""

    __slots__ = ("directory", "state")

    def __init__(self, directory: Path, state: Path) -> None:
        self.directory = directory
        self.state = state

    def begin(self, state_text: str) -> None:
        """A fresh start: the directory made, units of an earlier run in it removed, the state written."""
        self.directory.mkdir(parents=True, exist_ok=True)
        for stale in self.directory.glob(WorkUnit.FILE_PATTERN):
            stale.unlink()
        write_atomically(self.state, state_text)

    def earlier_state(self) -> str | None:
        """The state an earlier run wrote (None: there is none to resume)."""
        try:
            return self.state.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def kept(self, units: Iterable[WorkUnit]) -> set[int]:
        """The numbers of ``units`` whose output an earlier run wrote (a unit torn by a kill mid-write is not
        one: its temp file is removed)."""
        for torn in self.directory.glob(f".{WorkUnit.FILE_PATTERN}.*.tmp"):
            torn.unlink()
        return {unit.number for unit in units if (self.directory / unit.file_name).is_file()}

    def write(self, unit: WorkUnit, text: str) -> None:
        write_atomically(self.directory / unit.file_name, text)

    def read(self, unit: WorkUnit) -> str:
        return (self.directory / unit.file_name).read_text(encoding="utf-8")
