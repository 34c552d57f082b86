"""The official model's names in ``chip.clusters.Objects``' dotted spelling, without importing chip.

``official.OnOff.id``, ``official.OnOff.Enums.StartUpOnOffEnum.kOn``, ``official.OnOff.Bitmaps.Feature.kLighting``,
``official.Globals.Enums.AreaTypeTag``: the cluster code imports this module as ``Objects`` and reads as it did
against chip. Enums are ``IntEnum`` and bitmaps ``IntFlag`` classes with chip's members (``clusters.chip_model``
builds each on first use from ``clusters/official_model.jsonl``).
"""

from __future__ import annotations

import functools
from typing import Any

from clusters import chip_model


class _Declared:
    """``<Owner>.Enums`` or ``<Owner>.Bitmaps``: the owner's enum / bitmap classes by name."""

    def __init__(self, owner: str, kind: str) -> None:
        self._owner = owner
        self._kind = kind

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return chip_model._named_class(self._kind, self._owner, name)

    def __dir__(self) -> list[str]:
        return chip_model.declared_names(self._owner, f"{self._kind}s")


class OfficialCluster:
    """One cluster (or Globals) in chip's spelling: ``id`` (clusters only), ``Enums``, ``Bitmaps``."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.Enums = _Declared(name, "enum")  # chip's spelling
        self.Bitmaps = _Declared(name, "bitmap")  # chip's spelling

    @functools.cached_property
    def id(self) -> int:
        return chip_model.cluster_model(self.name).cluster_id

    def __repr__(self) -> str:
        return f"<official cluster {self.name}>"


@functools.cache
def cluster(name: str) -> OfficialCluster:
    """The cluster (or ``Globals``) called ``name``; AttributeError if the official model has none."""
    if name != chip_model.GLOBALS and not chip_model.is_cluster(name):
        raise AttributeError(f"the official Matter model has no cluster named {name!r}")
    return OfficialCluster(name)


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    return cluster(name)
