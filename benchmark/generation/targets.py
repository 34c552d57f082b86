"""Per-device-type goal templates: what a user may ask a device to do, the asserts that check it and the
EmulatedHome steps that achieve it (used to verify every goal by simulation, and as the oracle's witness).

Assert paths and values are in SimuHome's spelling (``1.RVCRunMode.CurrentMode``), steps in ours.
A template never proposes a value the device is already at, and values stay inside the device limits: the ones it
serves, else the Matter specification's values for absent ones (``clusters.absent_attributes``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from benchmark.generation.episode_layout import GenerationFailed
from clusters.absent_attributes import device_rule
from clusters.cycle_programs import DISHWASHER_PROGRAM, LAUNDRY_DRYER_PROGRAM, LAUNDRY_WASHER_PROGRAM, RVC_PROGRAM
from emulator.home_api import HomeAPI
from emulator.simuhome.paths import our_path, simuhome_path
from emulator.simuhome.values import simuhome_cluster_name
from emulator.workflows import WorkflowStep

NON_OPERATIONAL_TYPES = (
    "on_off_light",
    "dimmable_light",
    "air_conditioner",
    "air_purifier",
    "fan",
    "humidifier",
    "dehumidifier",
    "heat_pump",
    "tv",
    "window_covering_controller",
    "refrigerator",
    "freezer",
)
CYCLE_TYPES = ("dishwasher", "laundry_washer", "laundry_dryer", "rvc")
FAN_TYPES = ("air_purifier", "fan", "humidifier", "dehumidifier")
DRYNESS_LABELS = {0: "Low", 1: "Normal", 2: "Extra", 3: "Max"}
OPERATIONAL_STATE_PATH = {"rvc": "1.RvcOperationalState.OperationalState"}


@dataclass(frozen=True)
class Step:
    """One EmulatedHome operation: ``invoke`` a command with args or ``write`` an attribute value."""

    kind: Literal["invoke", "write"]
    endpoint: int
    cluster: str
    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    value: Any = None

    def workflow_step(self, device_id: str) -> WorkflowStep:
        return WorkflowStep(
            kind=self.kind,
            device_id=device_id,
            endpoint=self.endpoint,
            cluster=self.cluster,
            name=self.name,
            args=dict(self.args),
            value=self.value,
        )

    def tool_call(self, device_id: str) -> dict[str, Any]:
        """The SimuHome tool call doing this step (cluster ids in SimuHome's spelling)."""
        cluster = simuhome_cluster_name(self.cluster)
        if self.kind == "invoke":
            return {
                "tool": "execute_command",
                "params": {
                    "device_id": device_id,
                    "endpoint_id": self.endpoint,
                    "cluster_id": cluster,
                    "command_id": self.name,
                    "args": dict(self.args),
                },
            }
        return {
            "tool": "write_attribute",
            "params": {
                "device_id": device_id,
                "endpoint_id": self.endpoint,
                "cluster_id": cluster,
                "attribute_id": self.name,
                "value": self.value,
            },
        }

    def apply(self, fabric: HomeAPI, device_id: str) -> None:
        fabric.apply(self.workflow_step(device_id))


@dataclass(frozen=True)
class Variant:
    """One request to one device: the intent (for wording), its asserts and the steps achieving it."""

    intent: str
    params: Mapping[str, Any]
    asserts: tuple[dict[str, Any], ...]
    steps: tuple[Step, ...]

    def our_asserts(self) -> dict[str, Any]:
        """Assert path (our spelling) → expected value."""
        return {our_path(a["attribute"]) or a["attribute"]: a["value"] for a in self.asserts}


def _assert(path: str, value: Any, value_type: str, description: str) -> dict[str, Any]:
    return {"attribute": simuhome_path(path), "value": value, "value_type": value_type, "description": description}


ON = Step("invoke", 1, "OnOff", "On")
OFF = Step("invoke", 1, "OnOff", "Off")


def _power(on: bool) -> dict[str, Any]:
    return _assert("1.OnOff.OnOff", on, "bool", "power on" if on else "power off")


def _power_off() -> Variant:
    return Variant("power_off", {}, (_power(False),), (OFF,))


def _power_on() -> Variant:
    return Variant("power_on", {}, (_power(True),), (ON,))


def _fan_percent(attrs: Mapping[str, Any], rng: random.Random, on: bool) -> Variant:
    """Switch on at a fan speed other than the one set now (30–80 %)."""
    percent = _pick(rng, range(30, 81, 10), attrs.get("1.FanControl.PercentSetting") if on else None)
    return Variant(
        "on_percent",
        {"percent": percent},
        (_power(True), _assert("1.FanControl.PercentSetting", percent, "percent", f"fan {percent}%")),
        (ON, Step("write", 1, "FanControl", "PercentSetting", value=percent)),
    )


def _pick(rng: random.Random, values: range | list[int], avoid: Any) -> int:
    choices = [v for v in values if v != avoid]
    if not choices:  # the device's limits leave no value to ask for: another home is drawn
        raise GenerationFailed(f"no value other than {avoid!r} inside the device's limits")
    return rng.choice(choices)


def _inside(values: range, attrs: Mapping[str, Any], endpoint: int, cluster: str, low: str, high: str) -> list[int]:
    """The candidate ``values`` inside the device's ``low``..``high`` rule attributes (served or absent)."""
    bottom, top = device_rule(attrs, endpoint, cluster, low), device_rule(attrs, endpoint, cluster, high)
    return [v for v in values if (bottom is None or v >= bottom) and (top is None or v <= top)]


def _mode_label(attrs: Mapping[str, Any], cluster: str, mode: int) -> str:
    for option in attrs.get(f"1.{cluster}.SupportedModes") or []:
        if option.get("mode") == mode:
            return str(option.get("label"))
    return str(mode)


def variants(device_type: str, attrs: Mapping[str, Any], rng: random.Random) -> list[Variant]:
    """Requests that make sense for a device in state ``attrs`` (our flat paths)."""
    build = _BUILDERS.get(device_type)
    return build(attrs, rng) if build is not None else []


def _on_off_light(attrs: Mapping[str, Any], rng: random.Random) -> list[Variant]:
    on = bool(attrs.get("1.OnOff.OnOff"))
    if on:
        return [_power_off()]
    return [_power_on()]


def _dimmable(attrs: Mapping[str, Any], rng: random.Random) -> list[Variant]:
    on = bool(attrs.get("1.OnOff.OnOff"))
    current = attrs.get("1.LevelControl.CurrentLevel") if on else None
    levels = _inside(range(30, 255, 10), attrs, 1, "LevelControl", "MinLevel", "MaxLevel")
    level = _pick(rng, levels, current)
    out = [
        Variant(
            "on_level",
            {"level": level},
            (
                _power(True),
                _assert("1.LevelControl.CurrentLevel", level, "integer", f"brightness level {level} of 254"),
            ),
            (ON, Step("invoke", 1, "LevelControl", "MoveToLevel", {"Level": level})),
        )
    ]
    if on:
        out.append(_power_off())
    return out


def _fan_like(attrs: Mapping[str, Any], rng: random.Random) -> list[Variant]:
    on = bool(attrs.get("1.OnOff.OnOff"))
    out = [_fan_percent(attrs, rng, on)]
    if on:
        out.append(_power_off())
    return out


def _air_conditioner(attrs: Mapping[str, Any], rng: random.Random) -> list[Variant]:
    on = bool(attrs.get("1.OnOff.OnOff"))
    heat = attrs.get("1.Thermostat.OccupiedHeatingSetpoint") or 2000
    cool_now = attrs.get("1.Thermostat.OccupiedCoolingSetpoint")
    mode = attrs.get("1.Thermostat.SystemMode")
    cools = _inside(range(1800, 2701, 50), attrs, 1, "Thermostat", "MinCoolSetpointLimit", "MaxCoolSetpointLimit")
    cool = _pick(rng, [v for v in cools if v >= heat + 50], cool_now if mode == 3 and on else None)
    fan = _fan_percent(attrs, rng, on)  # drawn after the setpoint: the same seed gives the same episode
    out = [
        Variant(
            "cool_to",
            {"celsius": cool / 100},
            (
                _power(True),
                _assert("1.Thermostat.SystemMode", 3, "enum", "cool mode"),
                _assert(
                    "1.Thermostat.OccupiedCoolingSetpoint",
                    cool,
                    "temperature_c_centi",
                    f"cooling setpoint {cool / 100:g} °C",
                ),
            ),
            (
                ON,
                Step("write", 1, "Thermostat", "SystemMode", value=3),
                Step("write", 1, "Thermostat", "OccupiedCoolingSetpoint", value=cool),
            ),
        ),
        fan,
    ]
    if on:
        out.append(_power_off())
    return out


def _heat_pump(attrs: Mapping[str, Any], rng: random.Random) -> list[Variant]:
    cool = attrs.get("4.Thermostat.OccupiedCoolingSetpoint") or 2600
    mode = attrs.get("4.Thermostat.SystemMode")
    heat_now = attrs.get("4.Thermostat.OccupiedHeatingSetpoint") if mode == 4 else None
    heats = _inside(range(1800, 2501, 50), attrs, 4, "Thermostat", "MinHeatSetpointLimit", "MaxHeatSetpointLimit")
    heat = _pick(rng, [v for v in heats if v <= cool - 50], heat_now)
    out = [
        Variant(
            "heat_to",
            {"celsius": heat / 100},
            (
                _assert("4.Thermostat.SystemMode", 4, "enum", "heat mode"),
                _assert(
                    "4.Thermostat.OccupiedHeatingSetpoint",
                    heat,
                    "temperature_c_centi",
                    f"heating setpoint {heat / 100:g} °C",
                ),
            ),
            (
                Step("write", 4, "Thermostat", "SystemMode", value=4),
                Step("write", 4, "Thermostat", "OccupiedHeatingSetpoint", value=heat),
            ),
        )
    ]
    if mode != 0:
        out.append(
            Variant(
                "mode_off",
                {},
                (_assert("4.Thermostat.SystemMode", 0, "enum", "system off"),),
                (Step("write", 4, "Thermostat", "SystemMode", value=0),),
            )
        )
    return out


def _tv(attrs: Mapping[str, Any], rng: random.Random) -> list[Variant]:
    on = bool(attrs.get("1.OnOff.OnOff"))
    volumes = _inside(range(10, 61, 5), attrs, 1, "LevelControl", "MinLevel", "MaxLevel")
    volume = _pick(rng, volumes, attrs.get("1.LevelControl.CurrentLevel") if on else None)
    out = [
        Variant(
            "volume",
            {"level": volume},
            (_power(True), _assert("1.LevelControl.CurrentLevel", volume, "integer", f"volume {volume}")),
            (ON, Step("invoke", 1, "LevelControl", "MoveToLevel", {"Level": volume})),
        )
    ]
    out.append(_power_off() if on else _power_on())
    return out


def _covering(attrs: Mapping[str, Any], rng: random.Random) -> list[Variant]:
    target = attrs.get("1.WindowCovering.TargetPositionLiftPercent100ths")
    path = "1.WindowCovering.TargetPositionLiftPercent100ths"
    out = []
    for value, intent in ((0, "open"), (10000, "close")):
        if target != value:
            out.append(
                Variant(
                    intent,
                    {},
                    (_assert(path, value, "position_percent100ths", "fully open" if value == 0 else "fully closed"),),
                    (Step("invoke", 1, "WindowCovering", "GoToLiftPercentage", {"lift_percent_100ths": value}),),
                )
            )
    position = _pick(rng, range(1000, 9001, 1000), target)
    out.append(
        Variant(
            "position",
            {"percent_closed": position // 100},
            (_assert(path, position, "position_percent100ths", f"{position // 100}% closed"),),
            (Step("invoke", 1, "WindowCovering", "GoToLiftPercentage", {"lift_percent_100ths": position}),),
        )
    )
    return out


def _cabinet(low: int, high: int) -> Any:
    def build(attrs: Mapping[str, Any], rng: random.Random) -> list[Variant]:
        setpoint = _pick(rng, range(low, high + 1, 100), attrs.get("1.TemperatureControl.TemperatureSetpoint"))
        return [
            Variant(
                "cabinet_temp",
                {"celsius": setpoint / 100},
                (
                    _assert(
                        "1.TemperatureControl.TemperatureSetpoint",
                        setpoint,
                        "temperature_c_centi",
                        f"setpoint {setpoint / 100:g} °C",
                    ),
                ),
                (Step("invoke", 1, "TemperatureControl", "SetTemperature", {"target_temperature": setpoint}),),
            )
        ]

    return build


def state_assert(device_type: str, state: int, description: str) -> dict[str, Any]:
    return _assert(
        OPERATIONAL_STATE_PATH.get(device_type, "1.OperationalState.OperationalState"), state, "enum", description
    )


def program_choices(device_type: str) -> list[int | None]:
    """Programs a start request may name: dishwasher/washer modes, dryer dryness levels (None: no choice)."""
    choices: dict[str, list[int | None]] = {
        "dishwasher": list(range(6)),
        "laundry_washer": list(range(6)),
        "laundry_dryer": list(range(4)),
    }
    return choices.get(device_type, [None])


def cycle_seconds(device_type: str, attrs: Mapping[str, Any], program: int | None) -> float:
    """How long a cycle started with ``program`` lasts, from our cycle programs (RVC: until it is stopped again)."""
    if device_type == "rvc":
        return RVC_PROGRAM.total_s(None) or 0.0
    key: int | str | None
    if device_type == "laundry_dryer":
        cycle, key = LAUNDRY_DRYER_PROGRAM, program
    else:
        cycle = DISHWASHER_PROGRAM if device_type == "dishwasher" else LAUNDRY_WASHER_PROGRAM
        cluster = "DishwasherMode" if device_type == "dishwasher" else "LaundryWasherMode"
        key = _mode_label(attrs, cluster, program) if program is not None else None
    share_total = cycle.duration_from.for_key(key) if cycle.duration_from is not None else None
    if share_total is None:
        raise ValueError(f"{device_type}: its cycle program has no duration for program {program!r}")
    return cycle.phase_ends(float(share_total))[-1]


def program_variant(
    device_type: str,
    attrs: Mapping[str, Any],
    rng: random.Random,
    *,
    with_program: bool = True,
    program: int | None = None,
) -> Variant:
    """Start a stopped appliance (power on, choose its program, Start) or an idle robot vacuum."""
    if device_type == "rvc":
        return Variant(
            "rvc_start",
            {},
            (_assert("1.RvcRunMode.CurrentMode", 2, "enum", "vacuum run mode"), state_assert("rvc", 1, "running")),
            (Step("invoke", 1, "RvcRunMode", "ChangeToMode", {"new_mode": 2}),),
        )
    asserts = [_power(True), state_assert(device_type, 1, "running")]
    steps = [ON]
    params: dict[str, Any] = {}
    if with_program and device_type in ("dishwasher", "laundry_washer"):
        cluster = "DishwasherMode" if device_type == "dishwasher" else "LaundryWasherMode"
        mode = program if program is not None else rng.randrange(6)
        params = {"mode": _mode_label(attrs, cluster, mode)}
        asserts.append(_assert(f"1.{cluster}.CurrentMode", mode, "enum", f"mode {params['mode']}"))
        steps.append(Step("invoke", 1, cluster, "ChangeToMode", {"new_mode": mode}))
    elif with_program and device_type == "laundry_dryer":
        level = program if program is not None else rng.randrange(4)
        params = {"dryness": DRYNESS_LABELS[level]}
        asserts.append(
            _assert("1.LaundryDryerControls.SelectedDrynessLevel", level, "enum", f"dryness {DRYNESS_LABELS[level]}")
        )
        steps.append(Step("write", 1, "LaundryDryerControls", "SelectedDrynessLevel", value=level))
    steps.append(Step("invoke", 1, "OperationalState", "Start"))
    return Variant("start_program" if params else "start", params, tuple(asserts), tuple(steps))


def _cycle(device_type: str) -> Any:
    cluster = "RvcOperationalState" if device_type == "rvc" else "OperationalState"

    def build(attrs: Mapping[str, Any], rng: random.Random) -> list[Variant]:
        state = attrs.get(f"1.{cluster}.OperationalState")
        prefix = "rvc_" if device_type == "rvc" else ""
        if state == 1:
            out = [
                Variant(
                    prefix + "pause",
                    {},
                    (state_assert(device_type, 2, "paused"),),
                    (Step("invoke", 1, cluster, "Pause"),),
                )
            ]
            if device_type != "rvc":
                out.append(
                    Variant(
                        "stop", {}, (state_assert(device_type, 0, "stopped"),), (Step("invoke", 1, cluster, "Stop"),)
                    )
                )
            return out
        if state == 2:
            return [
                Variant(
                    prefix + "resume",
                    {},
                    (state_assert(device_type, 1, "running"),),
                    (Step("invoke", 1, cluster, "Resume"),),
                )
            ]
        if state == 0:
            return [program_variant(device_type, attrs, rng)]
        return []

    return build


_BUILDERS: dict[str, Any] = {
    "on_off_light": _on_off_light,
    "dimmable_light": _dimmable,
    "air_conditioner": _air_conditioner,
    "heat_pump": _heat_pump,
    "tv": _tv,
    "window_covering_controller": _covering,
    "refrigerator": _cabinet(100, 600),
    "freezer": _cabinet(-2300, -1600),
    **{t: _fan_like for t in FAN_TYPES},
    **{t: _cycle(t) for t in CYCLE_TYPES},
}


def asserts_hold(fabric: HomeAPI, device_id: str, variant: Variant) -> bool:
    """Every assert of ``variant`` is true on ``device_id`` now."""
    values = fabric.read_all(device_id)
    return all(_same(values.get(path), value) for path, value in variant.our_asserts().items())


def asserts_differ(values: Mapping[str, Any], variant: Variant) -> bool:
    """At least one assert is not already true in ``values`` (flat attributes, our spelling)."""
    return any(not _same(values.get(path), value) for path, value in variant.our_asserts().items())


def _same(actual: Any, expected: Any) -> bool:
    if isinstance(actual, bool) or isinstance(expected, bool):
        return isinstance(actual, bool) and isinstance(expected, bool) and actual == expected
    return bool(actual == expected)
