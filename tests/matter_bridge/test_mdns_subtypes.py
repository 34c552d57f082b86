"""The DNS-SD subtype aliases (bridge/matter/node/mdns.py) on python-zeroconf's real service registry, whatever
layout the installed zeroconf uses (a list of keys per type before 0.15x, a {key: ServiceInfo} dict since):
a PTR question for ``_S15._sub._matterc._udp`` finds the instance, and unaliasing leaves the index as it was.
(The Docker image resolves the newest zeroconf; tests/deploy/test_compose_up.py commissions through it.)"""

from __future__ import annotations

from types import SimpleNamespace

from zeroconf import ServiceInfo
from zeroconf._services.registry import ServiceRegistry

from bridge.matter.node.mdns import COMMISSIONABLE, _alias_subtypes, _unalias_subtypes


def test_subtype_aliases_answer_for_the_instance_and_are_removed_cleanly() -> None:
    registry = ServiceRegistry()
    zc = SimpleNamespace(zeroconf=SimpleNamespace(registry=registry))
    info = ServiceInfo(
        COMMISSIONABLE,
        f"ABCDEF0123456789.{COMMISSIONABLE}",
        port=5540,
        properties={"D": "3840"},
        server="host.local.",
        parsed_addresses=["10.0.0.2"],
    )
    registry.async_add(info)
    before = {name: list(registry.async_get_infos_type(name)) for name in registry.async_get_types()}
    subtypes = ["_L3840", "_S15", "_CM"]
    _alias_subtypes(zc, info, subtypes)  # type: ignore[arg-type]
    for subtype in subtypes:
        assert registry.async_get_infos_type(f"{subtype}._sub.{COMMISSIONABLE}".lower()) == [info], subtype
    _alias_subtypes(zc, info, subtypes)  # type: ignore[arg-type]  # twice: still one entry
    assert registry.async_get_infos_type(f"_s15._sub.{COMMISSIONABLE}".lower()) == [info]
    _unalias_subtypes(zc, info, subtypes)  # type: ignore[arg-type]
    assert {name: list(registry.async_get_infos_type(name)) for name in registry.async_get_types()} == before
    registry.async_remove(info)
    assert registry.async_get_infos_type(COMMISSIONABLE) == []
