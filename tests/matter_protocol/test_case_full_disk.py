"""Issue #21 item H: with the state disk full, a commissioned controller still connects: CASE succeeds (full, then
resumed from memory) and the failed save of the resumption record is one warning line, not a traceback."""

from __future__ import annotations

import asyncio
import errno
import logging

import pytest

from tests.matter_protocol.test_case_over_sessions import _pair


def _disk_full(filename: str, data: bytes) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_case_succeeds_and_warns_once_per_save_when_the_disk_is_full(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        device, controller, device_sessions, _ = _pair()
        assert device.resumptions is not None
        device.resumptions._store.write_bytes = _disk_full  # type: ignore[method-assign]
        fabric = controller.case_fabrics()[0][1]
        first = await controller.connect_case(("a", 1), 3, fabric, 0x55)
        second = await controller.connect_case(("a", 1), 3, fabric, 0x55)  # resumed from the in-memory record
        await asyncio.sleep(0.05)
        ids = {s.local_session_id for s in device_sessions.sessions(kind="case")}
        assert {first.peer_session_id, second.peer_session_id} <= ids
        assert device.resumptions.for_peer(1, 0x1) is not None

    with caplog.at_level(logging.WARNING, logger="bridge.matter.session.resumption_store"):
        asyncio.run(asyncio.wait_for(scenario(), 30))
    warnings = [r.getMessage() for r in caplog.records if r.name == "bridge.matter.session.resumption_store"]
    assert warnings and all("not saved (No space left on device)" in w and "\n" not in w for w in warnings)
    assert not [r for r in caplog.records if r.exc_info]
