import pytest

from clusters import HomeError, Status
from clusters.identify import IdentifyServer


def test_identify_counts_down_once_per_second(mount, clock):
    server = IdentifyServer()
    ep = mount(server)
    assert server.read("IdentifyType") == 2
    server.invoke("Identify", {"IdentifyTime": 3})
    assert server.identifying
    clock.advance_to(15)
    assert server.read("IdentifyTime") == 2
    clock.advance_to(30)
    assert server.read("IdentifyTime") == 0 and not server.identifying
    assert [c[4] for c in ep.changes] == [3, 2, 1, 0]
    assert clock.pending() == 0


def test_identify_zero_stops_and_write_starts(mount, clock):
    server = IdentifyServer(identify_type=1)
    mount(server)
    assert server.read("IdentifyType") == 1
    server.write("IdentifyTime", 100)
    clock.advance_to(20)
    assert server.read("IdentifyTime") == 98
    server.invoke("Identify", {"identify_time": 0})
    clock.advance_to(100)
    assert server.read("IdentifyTime") == 0 and clock.pending() == 0


@pytest.mark.parametrize(("effect", "seconds"), [(0, 1), (1, 15), (2, 1), (11, 8)])
def test_effect_durations(mount, clock, effect, seconds):
    server = IdentifyServer()
    mount(server)
    server.invoke("TriggerEffect", {"EffectIdentifier": effect, "EffectVariant": 0})
    assert server.active_effect == effect and server.effect_name is not None
    clock.advance_to(seconds * 10 - 1)
    assert server.active_effect == effect
    clock.advance_to(seconds * 10)
    assert server.active_effect is None


def test_finish_and_stop_effect(mount, clock):
    server = IdentifyServer()
    mount(server)
    server.invoke("TriggerEffect", {"EffectIdentifier": "Breathe", "EffectVariant": 0})
    clock.advance_to(32)
    server.invoke("TriggerEffect", {"EffectIdentifier": 0xFE, "EffectVariant": 0})
    assert server.effect_ends_at == 4.0
    clock.advance_to(39)
    assert server.active_effect == 1
    clock.advance_to(40)
    assert server.active_effect is None
    server.invoke("TriggerEffect", {"EffectIdentifier": 11, "EffectVariant": 0})
    server.invoke("TriggerEffect", {"EffectIdentifier": 0xFF, "EffectVariant": 0})
    assert server.active_effect is None and clock.pending() == 0


@pytest.mark.parametrize(
    ("call", "status"),
    [
        (lambda s: s.invoke("TriggerEffect", {"EffectIdentifier": 3, "EffectVariant": 0}), Status.CONSTRAINT_ERROR),
        (lambda s: s.invoke("TriggerEffect", {"EffectIdentifier": 0, "EffectVariant": 1}), Status.CONSTRAINT_ERROR),
        (lambda s: s.invoke("Identify", {"IdentifyTime": 70000}), Status.CONSTRAINT_ERROR),
        (lambda s: s.invoke("Identify", {}), Status.INVALID_COMMAND),
        (lambda s: s.write("IdentifyType", 1), Status.UNSUPPORTED_WRITE),
    ],
)
def test_refusals_leave_state_unchanged(mount, call, status):
    server = IdentifyServer()
    mount(server)
    before = server.read_all()
    with pytest.raises(HomeError) as err:
        call(server)
    assert err.value.status == status
    assert server.read_all() == before and server.active_effect is None
