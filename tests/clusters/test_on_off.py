import pytest

from clusters import HomeError, Status
from clusters.chip_model import cluster_model
from clusters.on_off import OnOffServer


def test_on_off_toggle_and_globals(mount):
    server = OnOffServer()
    ep = mount(server)
    assert server.read("OnOff") is False
    server.invoke("On")
    server.invoke("Toggle")
    server.invoke("Toggle")
    assert server.read("OnOff") is True
    assert [c[2:] for c in ep.changes] == [("OnOff", False, True), ("OnOff", True, False), ("OnOff", False, True)]
    model = cluster_model("OnOff")
    assert server.read("AcceptedCommandList") == sorted(model.commands[c].command_id for c in ("Off", "On", "Toggle"))
    assert server.read("AttributeList") == [0, 0xFFF8, 0xFFF9, 0xFFFA, 0xFFFB, 0xFFFC, 0xFFFD]
    assert server.read("ClusterRevision") == 6


def test_lighting_feature_adds_timed_off(mount, clock):
    server = OnOffServer(features=1)
    mount(server)
    server.invoke("OnWithTimedOff", {"OnOffControl": 0, "OnTime": 50, "OffWaitTime": 10})
    assert server.read("OnOff") is True
    clock.advance_to(49)
    assert server.read("OnOff") is True
    clock.advance_to(50)
    assert server.read("OnOff") is False and server.read("OnTime") == 0


@pytest.mark.parametrize(
    ("call", "status"),
    [
        (lambda s: s.invoke("Dim"), Status.UNSUPPORTED_COMMAND),
        (lambda s: s.invoke("OnWithTimedOff", {"OnOffControl": 0, "OnTime": 5}), Status.UNSUPPORTED_COMMAND),
        (lambda s: s.write("OnOff", True), Status.UNSUPPORTED_WRITE),
        (lambda s: s.read("CurrentLevel"), Status.UNSUPPORTED_ATTRIBUTE),
        (lambda s: s.invoke("On", {"Level": 3}), Status.INVALID_COMMAND),
    ],
)
def test_refusals_leave_state_unchanged(mount, call, status):
    server = OnOffServer()  # no Lighting feature: timed commands are not accepted
    mount(server)
    before = server.read_all()
    with pytest.raises(HomeError) as err:
        call(server)
    assert err.value.status == status
    assert err.value.allowed is not None or status == Status.INVALID_COMMAND
    assert server.read_all() == before


def test_off_with_effect_and_recall_global_scene(mount):
    server = OnOffServer(features=1)
    mount(server)
    server.invoke("On")
    server.invoke("OffWithEffect", {"EffectIdentifier": 0, "EffectVariant": 0})
    assert server.read("OnOff") is False and server.read("GlobalSceneControl") is False
    server.invoke("OnWithRecallGlobalScene")
    assert server.read("OnOff") is True and server.read("GlobalSceneControl") is True
    with pytest.raises(HomeError) as err:
        server.invoke("OffWithEffect", {"EffectIdentifier": 7, "EffectVariant": 0})
    assert err.value.status == Status.CONSTRAINT_ERROR and server.read("OnOff") is True
