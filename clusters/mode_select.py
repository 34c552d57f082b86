"""Mode Select cluster (0x0050): a device's own list of modes (a "generic" mode dial, e.g. a coffee machine's
drinks or a bidet's spray patterns), chosen with ChangeToMode.

Unlike the Mode Base clusters (clusters/modes.py) its options carry semantic tags of a StandardNamespace and
ChangeToMode has no response: an unknown mode is refused with CONSTRAINT_ERROR. With the OnOff feature OnMode is
the mode a sibling On/Off switching on selects.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer, command
from clusters.status import HomeError, Status

Feature = Objects.ModeSelect.Bitmaps.Feature


def select_option(label: str, mode: int) -> dict[str, Any]:
    return {"label": label, "mode": mode, "semanticTags": []}


DEFAULT_MODES = [select_option("Normal", 0), select_option("Eco", 1), select_option("Boost", 2)]


class ModeSelectServer(ClusterServer):
    """Constructor options: ``description`` (what the modes are about), ``supported_modes`` (ModeOptionStruct
    dicts: label, mode, semanticTags), ``features`` and ``values``."""

    __slots__ = ()

    cluster_name = "ModeSelect"
    revision = 2
    defaults = {
        "Description": "Mode",
        "StandardNamespace": None,
        "SupportedModes": DEFAULT_MODES,
        "CurrentMode": 0,
        "OnMode": None,
    }

    def __init__(
        self,
        *,
        description: str | None = None,
        supported_modes: Sequence[Mapping[str, Any]] | None = None,
        features: int | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(features=features, values=values)
        if description is not None:
            self.restore("Description", description)
        if supported_modes is not None:
            self.restore("SupportedModes", [dict(m) for m in supported_modes])
        numbers = self.mode_numbers()
        if len(set(numbers)) != len(numbers) or not numbers:
            raise ValueError("ModeSelect: SupportedModes needs modes with distinct numbers")
        if self.read("CurrentMode") not in numbers:
            self.restore("CurrentMode", numbers[0])

    def initial_values(self) -> dict[str, Any]:
        values = copy.deepcopy(self.defaults)
        if not self.has_feature(Feature.kOnOff):
            del values["OnMode"]
        return values

    def mode_numbers(self) -> list[int]:
        return [m["mode"] for m in self.read("SupportedModes")]

    def check_write(self, name: str, value: Any) -> None:
        if name in ("OnMode", "StartUpMode") and value is not None and value not in self.mode_numbers():
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR, f"ModeSelect.{name}={value} is not a supported mode", allowed=self._modes()
            )

    @command("ChangeToMode")
    def change_to_mode(self, newMode: int) -> None:
        if newMode not in self.mode_numbers():
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"ModeSelect has no mode {newMode}",
                allowed=self._modes(),
                reason="UNSUPPORTED_MODE",
            )
        self.set("CurrentMode", newMode)

    def _modes(self) -> list[dict[str, Any]]:
        return [{"mode": m["mode"], "label": m["label"]} for m in self.read("SupportedModes")]
