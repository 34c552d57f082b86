"""The one path/access resolver: a concrete path gets its status in the spec's order (endpoint, cluster, access,
attribute/command); a wildcard expands to existing paths only, each with its access status."""

from __future__ import annotations

from bridge.matter.im import im_messages as im
from bridge.matter.im.data_model import Privilege
from bridge.matter.im.path_resolver import PathResolver, RequestAccess
from bridge.matter.node.bridge_node import BridgeNode
from bridge.matter.session.context import RequestContext
from clusters import Status
from tests.emulator.helpers import fabric

ON_OFF, LEVEL, DESCRIPTOR = 0x0006, 0x0008, 0x001D
ON_OFF_ATTR, TOGGLE, MISSING = 0x0000, 0x02, 0x7777


class OnlyView:
    """Grants View everywhere and Operate nowhere (a view-only subject); records what it was asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[int, int, Privilege]] = []

    def check(self, ctx: RequestContext, endpoint: int, cluster_id: int, privilege: Privilege) -> bool:
        self.asked.append((endpoint, cluster_id, privilege))
        return privilege == "view"


def _resolver() -> tuple[PathResolver, OnlyView, int, int]:
    node = BridgeNode(fabric([("lamp", "on_off_light", "hall"), ("dimmer", "dimmable_light", "hall")]))
    checker = OnlyView()
    lamp, dimmer = node.endpoint_of("lamp", 1), node.endpoint_of("dimmer", 1)
    assert lamp is not None and dimmer is not None
    return PathResolver(node, RequestAccess(checker, RequestContext("case", 1, 0x1122))), checker, lamp, dimmer


def test_concrete_paths_get_one_status_each_in_the_spec_order() -> None:
    resolver, _, lamp, _ = _resolver()

    def read(endpoint: int, cluster: int, attribute: int) -> Status:
        [target] = resolver.attributes(im.AttributePath(endpoint, cluster, attribute), "read")
        assert target.concrete
        return target.status

    assert read(999, MISSING, MISSING) == Status.UNSUPPORTED_ENDPOINT
    assert read(lamp, LEVEL, MISSING) == Status.UNSUPPORTED_CLUSTER  # an on/off light has no LevelControl
    assert read(lamp, ON_OFF, MISSING) == Status.UNSUPPORTED_ATTRIBUTE
    assert read(lamp, ON_OFF, ON_OFF_ATTR) == Status.SUCCESS
    [write] = resolver.attributes(im.AttributePath(lamp, ON_OFF, MISSING), "write")
    assert write.status == Status.UNSUPPORTED_ACCESS  # access is checked before the attribute exists
    [invoke] = resolver.command(im.CommandPath(lamp, ON_OFF, TOGGLE))
    assert (invoke.status, invoke.name) == (Status.UNSUPPORTED_ACCESS, None)
    [missing] = resolver.command(im.CommandPath(lamp, DESCRIPTOR, 0x55))
    assert missing.status == Status.UNSUPPORTED_ACCESS  # Operate is needed to learn a command is missing


def test_wildcards_expand_to_existing_paths_with_their_access_status() -> None:
    resolver, checker, lamp, dimmer = _resolver()
    on_off = list(resolver.attributes(im.AttributePath(None, ON_OFF, ON_OFF_ATTR), "read"))
    assert [(t.endpoint, t.status, t.name, t.concrete) for t in on_off] == [
        (endpoint, Status.SUCCESS, "OnOff", False) for endpoint in sorted((lamp, dimmer))
    ]
    assert not list(resolver.attributes(im.AttributePath(None, LEVEL, MISSING), "read"))  # nothing, not an error
    writes = list(resolver.attributes(im.AttributePath(None, ON_OFF, ON_OFF_ATTR), "write"))
    assert {t.status for t in writes} == {Status.UNSUPPORTED_ACCESS}  # the caller skips them silently
    whole = list(resolver.attributes(im.AttributePath(lamp), "read"))
    assert {t.cluster for t in whole} >= {ON_OFF, DESCRIPTOR} and all(t.status == Status.SUCCESS for t in whole)
    group = list(resolver.command(im.CommandPath(None, ON_OFF, TOGGLE), [lamp, dimmer, 999]))
    assert [(t.endpoint, t.status) for t in group] == [
        (lamp, Status.UNSUPPORTED_ACCESS),
        (dimmer, Status.UNSUPPORTED_ACCESS),
    ]
    assert checker.asked.count((lamp, ON_OFF, "operate")) == 1  # one decision per request and cluster
