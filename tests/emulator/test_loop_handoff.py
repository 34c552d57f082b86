"""LoopHandoff: a call from another thread runs on the bound loop's thread; on that thread it runs at once;
after the loop has closed it is dropped; unbound it runs on the caller's thread."""

from __future__ import annotations

import asyncio
import threading

from emulator.loop_handoff import LoopHandoff


def test_a_call_from_another_thread_runs_on_the_loop_thread_and_one_on_it_runs_at_once() -> None:
    ran_on: list[tuple[str, int]] = []
    handoff = LoopHandoff()

    async def scenario() -> None:
        handoff.bind()
        loop_thread = threading.get_ident()
        handoff.call(lambda: ran_on.append(("loop", threading.get_ident())))
        assert ran_on == [("loop", loop_thread)]  # at once, not queued
        arrived = asyncio.Event()

        def record(tag: str) -> None:
            ran_on.append((tag, threading.get_ident()))
            arrived.set()

        def from_worker() -> None:
            handoff.call(record, "worker")

        worker = threading.Thread(target=from_worker)
        worker.start()
        worker.join()
        assert len(ran_on) == 1  # queued: it cannot have run while this coroutine held the loop
        await asyncio.wait_for(arrived.wait(), 5)
        assert ran_on[1] == ("worker", loop_thread)

    asyncio.run(scenario())


def test_after_the_loop_closed_a_call_is_dropped_and_unbound_it_runs_on_the_caller() -> None:
    calls: list[int] = []
    unbound = LoopHandoff()
    assert not unbound.bound
    unbound.call(calls.append, 1)
    assert calls == [1]

    handoff = LoopHandoff()

    async def bind() -> None:
        handoff.bind()

    asyncio.run(bind())  # asyncio.run closes its loop on return
    assert handoff.bound
    worker = threading.Thread(target=handoff.call, args=(calls.append, 2))
    worker.start()
    worker.join()
    assert calls == [1]
