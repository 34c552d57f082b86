"""General Diagnostics: reboot count and boot reason as handed in, live UpTime, BootReason event once,
TestEventTrigger gated by the enable key, TimeSnapshot."""

from __future__ import annotations

import pytest

from clusters import HomeError, Status
from clusters.general_diagnostics import BootReason, GeneralDiagnosticsServer

KEY = bytes(range(1, 17))


def _server(
    now: list[float] | None = None, **kwargs: object
) -> tuple[GeneralDiagnosticsServer, list[tuple[str, dict, int]]]:
    """A server whose uptime is ``now[0]`` seconds (12.7 unless given: the test may move it)."""
    now = now if now is not None else [12.7]
    server = GeneralDiagnosticsServer(
        reboot_count=4,
        boot_reason=int(BootReason.kPowerOnReboot),
        uptime_s=lambda: now[0],
        posix_time_ms=lambda: 1_700_000_000_000,
        **kwargs,  # type: ignore[arg-type]  # the test's keyword values are of their parameters' types
    )
    events: list[tuple[str, dict, int]] = []
    server.add_event_listener(lambda s, name, fields, priority: events.append((name, fields, int(priority))))
    return server, events


def test_attributes_and_boot_reason_event_once(mount) -> None:
    now = [12.7]
    server, events = _server(now)
    assert server.read("RebootCount") == 4 and server.read("BootReason") == int(BootReason.kPowerOnReboot)
    assert server.read("UpTime") == 12
    now[0] = 100.2
    assert server.read("UpTime") == 100
    assert server.read("TestEventTriggersEnabled") is False
    assert server.read("EventList") == [3]  # BootReason
    mount(server)
    mount(server)  # attached again (a rebuilt endpoint): still one BootReason per boot
    assert events == [("BootReason", {"bootReason": int(BootReason.kPowerOnReboot)}, 2)]
    with pytest.raises(HomeError) as err:
        server.write("RebootCount", 0)
    assert err.value.status == Status.UNSUPPORTED_WRITE


def test_test_event_trigger_needs_the_enable_key() -> None:
    disabled, _ = _server()
    with pytest.raises(HomeError) as err:
        disabled.invoke("TestEventTrigger", {"enableKey": KEY.hex(), "eventTrigger": 1})
    assert err.value.status == Status.CONSTRAINT_ERROR
    fired: list[int] = []
    enabled, _ = _server(test_enable_key=KEY, test_event_triggers={7: lambda: fired.append(7)})
    assert enabled.read("TestEventTriggersEnabled") is True
    for key, trigger, status in [
        (bytes(16), 7, Status.CONSTRAINT_ERROR),
        (KEY[:8], 7, Status.CONSTRAINT_ERROR),
        (KEY, 8, Status.INVALID_COMMAND),
    ]:
        with pytest.raises(HomeError) as err:
            enabled.invoke("TestEventTrigger", {"enableKey": key.hex(), "eventTrigger": trigger})
        assert err.value.status == status
    assert fired == []
    enabled.invoke("TestEventTrigger", {"enableKey": KEY.hex(), "eventTrigger": 7})
    assert fired == [7]
    assert GeneralDiagnosticsServer(test_enable_key=bytes(16)).read("TestEventTriggersEnabled") is False


def test_time_snapshot() -> None:
    server, _ = _server()
    assert server.invoke("TimeSnapshot") == {"systemTimeMs": 12700, "posixTimeMs": 1_700_000_000_000}
