"""DurableLines (the runner's records and timings while a run goes): a line group is acknowledged only once an
fsync that began after it was written has finished, and groups written while one fsync is under way share the
next (group commit)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import benchmark.runs.runner as runner_module
from benchmark.runs.runner import DurableLines
from emulator.files import open_for_append


def test_each_acknowledged_line_was_fsynced_after_it_was_written_and_fsyncs_are_shared(tmp_path: Path, monkeypatch):
    records, timings = tmp_path / "records.jsonl", tmp_path / "timings.jsonl"
    fds = (open_for_append(records), open_for_append(timings))
    synced: dict[int, int] = {}  # fd → bytes on disk as of its last fsync
    calls = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        real_fsync(fd)
        synced[fd] = os.fstat(fd).st_size
        calls.append(fd)

    monkeypatch.setattr(runner_module.os, "fsync", fsync)
    acknowledged: list[tuple[int, int, int]] = []  # (n, records bytes then durable, bytes the line ended at)

    async def one(files: DurableLines, n: int) -> None:
        await asyncio.sleep(0)
        await files.append(f'{{"n": {n}}}\n', f'{{"t": {n}}}\n')
        end = records.read_text().index(f'{{"n": {n}}}\n') + len(f'{{"n": {n}}}\n')
        acknowledged.append((n, synced.get(fds[0], 0), end))

    async def main() -> None:
        files = DurableLines(*fds)
        await asyncio.gather(*(one(files, n) for n in range(20)))

    try:
        asyncio.run(main())
    finally:
        for fd in fds:
            os.close(fd)
    assert sorted(n for n, _, _ in acknowledged) == list(range(20))
    assert all(durable >= end for _, durable, end in acknowledged)  # on disk before it was acknowledged
    assert len(records.read_text().splitlines()) == len(timings.read_text().splitlines()) == 20
    assert 2 <= len(calls) < 40  # both files per fsync round, fewer rounds than line groups


def test_an_fsync_that_fails_reaches_every_waiting_writer(tmp_path: Path, monkeypatch):
    fd = open_for_append(tmp_path / "records.jsonl")

    def broken(_fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(runner_module.os, "fsync", broken)

    async def main() -> list[object]:
        files = DurableLines(fd)
        return await asyncio.gather(*(files.append(f"{n}\n") for n in range(3)), return_exceptions=True)

    try:
        results = asyncio.run(main())
    finally:
        os.close(fd)
    assert all(isinstance(r, OSError) for r in results)
