"""Laundry Washer Controls (0x0053) and Laundry Dryer Controls (0x004A).

Both hold cycle options the user may write while the machine is not running. The washer's spin
speeds and rinse choices depend on the sibling LaundryWasherMode (Matter lets both lists change
with the mode): a mode change applies the ``options_by_mode`` table, keeping the current spin speed
when the new mode offers it, otherwise the first allowed value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import clusters.official as Objects
from clusters.base import ClusterServer
from clusters.cycle_programs import RUNNING
from clusters.status import HomeError, Status

_WasherFeature = Objects.LaundryWasherControls.Bitmaps.Feature
SPIN = int(_WasherFeature.kSpin)
RINSE = int(_WasherFeature.kRinse)
SPIN_SPEEDS = ["Low", "Medium", "High", "Extra High"]


class WasherOptions(NamedTuple):
    spin_speeds: tuple[str, ...]  # labels, a subset of the server's spin_speeds
    rinses: tuple[int, ...]  # NumberOfRinsesEnum values


# SimuHome's table (facts §2.2 laundry_washer), keyed by LaundryWasherMode label.
WASHER_OPTIONS_BY_MODE: dict[str, WasherOptions] = {
    "Normal": WasherOptions(("Low", "Medium", "High"), (0, 1, 2)),
    "Delicate": WasherOptions(("Low", "Medium"), (1, 2)),
    "Heavy": WasherOptions(("Medium", "High", "Extra High"), (1, 2, 3)),
    "Whites": WasherOptions(("Low", "Medium", "High", "Extra High"), (1, 2, 3)),
    "Quick Normal": WasherOptions(("High", "Extra High"), (0, 1)),
    "Heavy Whites": WasherOptions(("High", "Extra High"), (2, 3)),
}


def refuse_while_running(server: ClusterServer, name: str) -> None:
    operational = server.endpoint.find("OperationalState") if server.endpoint is not None else None
    if operational is not None and operational.read("OperationalState") == RUNNING:
        raise HomeError.refused(
            Status.INVALID_IN_STATE,
            f"{server.cluster_name}.{name} cannot change while the cycle is running",
            allowed={"first": "OperationalState.Pause or OperationalState.Stop"},
            reason="RUNNING",
        )


def _normal(text: str) -> str:
    return text.replace("_", " ").replace("-", " ").strip().lower()


class LaundryWasherControlsServer(ClusterServer):
    __slots__ = ("_options_by_mode",)
    cluster_name = "LaundryWasherControls"
    revision = 1
    default_features = SPIN | RINSE
    defaults = {"SpinSpeeds": SPIN_SPEEDS, "SpinSpeedCurrent": 1, "NumberOfRinses": 1, "SupportedRinses": [0, 1, 2, 3]}

    def __init__(
        self,
        *,
        spin_speeds: Sequence[str] | None = None,
        options_by_mode: Mapping[str, WasherOptions] | None = None,
        features: int | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        # None for the default table (never changed: a catalogue entry's servers are copied, sharing it)
        self._options_by_mode = None if options_by_mode is None else dict(options_by_mode)
        super().__init__(features=features, values=values)
        if spin_speeds is not None and self.has_feature(SPIN):
            self.restore("SpinSpeeds", list(spin_speeds))

    @property
    def options_by_mode(self) -> Mapping[str, WasherOptions]:
        """The spin speeds and rinses each washer mode offers (read-only)."""
        return WASHER_OPTIONS_BY_MODE if self._options_by_mode is None else self._options_by_mode

    def initial_values(self) -> dict[str, Any]:
        values: dict[str, Any] = {}
        if self.has_feature(SPIN):
            values.update(SpinSpeeds=list(SPIN_SPEEDS), SpinSpeedCurrent=1)
        if self.has_feature(RINSE):
            values.update(NumberOfRinses=1, SupportedRinses=[0, 1, 2, 3])
        return values

    def validate_write(self, name: str, value: object) -> Any:
        if name == "SpinSpeedCurrent" and isinstance(value, str) and self.has_attribute("SpinSpeeds"):
            # SimuHome also takes the speed's name; Matter's value is its index in SpinSpeeds.
            labels = [_normal(s) for s in self.read("SpinSpeeds")]
            if _normal(value) in labels:
                value = labels.index(_normal(value))
        return super().validate_write(name, value)

    def check_write(self, name: str, value: Any) -> None:
        if name == "SpinSpeedCurrent" and value is not None and value >= len(self.read("SpinSpeeds")):
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"LaundryWasherControls.SpinSpeedCurrent={value} is not an index into SpinSpeeds",
                allowed={i: s for i, s in enumerate(self.read("SpinSpeeds"))},
            )
        if name == "NumberOfRinses" and value not in self.read("SupportedRinses"):
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"LaundryWasherControls.NumberOfRinses={value} is not in SupportedRinses",
                allowed=self.read("SupportedRinses"),
            )
        refuse_while_running(self, name)

    def on_attach(self) -> None:
        assert self.endpoint is not None
        if self.endpoint.find("LaundryWasherMode") is not None:
            self.endpoint.watch("LaundryWasherMode", "CurrentMode", self._on_mode_change)

    def _on_mode_change(self, old: object, new: object) -> None:
        mode_server = self.endpoint.find("LaundryWasherMode") if self.endpoint is not None else None
        label = mode_server.label(new) if mode_server is not None and hasattr(mode_server, "label") else None
        if label is not None:
            self.apply_mode(label)

    def apply_mode(self, label: str) -> None:
        """Offer the spin speeds and rinses of washer mode ``label`` (no-op for a mode not in the table)."""
        options = self.options_by_mode.get(label)
        if options is None:
            return
        if self.has_feature(SPIN):
            speeds, current = self.read("SpinSpeeds"), self.read("SpinSpeedCurrent")
            kept = speeds[current] if current is not None and current < len(speeds) else None
            new_speeds = list(options.spin_speeds)
            self.set("SpinSpeeds", new_speeds)
            if current is not None:
                self.set("SpinSpeedCurrent", new_speeds.index(kept) if kept in new_speeds else 0)
        if self.has_feature(RINSE):
            rinses = list(options.rinses)
            self.set("SupportedRinses", rinses)
            if self.read("NumberOfRinses") not in rinses:
                self.set("NumberOfRinses", rinses[0])


class LaundryDryerControlsServer(ClusterServer):
    __slots__ = ()
    cluster_name = "LaundryDryerControls"
    revision = 1
    defaults = {"SupportedDrynessLevels": [0, 1, 2, 3], "SelectedDrynessLevel": 1}

    def __init__(
        self,
        *,
        supported_levels: Sequence[int] | None = None,
        features: int | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(features=features, values=values)
        if supported_levels is not None:
            self.restore("SupportedDrynessLevels", list(supported_levels))

    def check_write(self, name: str, value: object) -> None:
        if name == "SelectedDrynessLevel" and value is not None and value not in self.read("SupportedDrynessLevels"):
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"LaundryDryerControls.SelectedDrynessLevel={value} is not a supported dryness level",
                allowed=self.read("SupportedDrynessLevels"),
            )
        refuse_while_running(self, name)
