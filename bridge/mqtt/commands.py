"""Command payloads (validated with pydantic) → fabric operations.

``plan(fabric, entity, field, payload)`` validates a payload from a command topic and returns the
fabric operations it stands for, or raises :class:`CommandError` naming the field, the cause and
what is allowed; nothing has touched the fabric then. ``execute`` runs the operations; a refusal
from the fabric (HomeError) comes back out unchanged. Operations are ordered so that the one that
can be refused comes first: a refused command changes nothing.
"""

from __future__ import annotations

import json
import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bridge.mqtt.discovery import (
    WATER_HEATER_MODES,
    climate_fan_modes,
    climate_modes,
    number_limits,
    select_options,
    temperature_limits,
    water_heater_limits,
)
from bridge.mqtt.entities import Entity
from bridge.mqtt.state import (
    SYSTEM_MODE_BY_HA_MODE,
    brightness_to_level,
    ha_to_matter_position,
    kelvin_to_mireds,
    mireds_to_kelvin,
    target_setpoint,
)
from clusters.energy_evse import MIN_CHARGE_CURRENT_MA as EVSE_MIN_CURRENT_MA
from emulator.emulated_home import EmulatedHome
from emulator.workflows import WorkflowStep

FAN_MODE_BY_NAME = {"off": 0, "low": 1, "medium": 2, "high": 3, "auto": 5}
EXECUTE_IF_OFF = {"optionsMask": 1, "optionsOverride": 1}  # colour changes take effect on a light that is off
MAX_PAYLOAD = 4096


class CommandError(Exception):
    """A command payload that cannot be carried out as given (nothing was changed)."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        field: str | None = None,
        allowed: object = None,
        errors: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.allowed = allowed
        self.errors = errors

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.field is not None:
            out["field"] = self.field
        if self.allowed is not None:
            out["allowed"] = self.allowed
        if self.errors:
            out["errors"] = self.errors
        return out


def execute(fabric: EmulatedHome, steps: list[WorkflowStep]) -> list[dict[str, Any]]:
    return [fabric.apply(step).to_dict() for step in steps]


# ---------------------------------------------------------------------------------- payload models
class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OnOffPayload(_Strict):
    value: Literal["ON", "OFF"]


class HsColor(_Strict):
    h: float = Field(ge=0, le=360)
    s: float = Field(ge=0, le=100)


class XyColor(_Strict):
    x: float = Field(ge=0, le=1)
    y: float = Field(ge=0, le=1)


class LightPayload(_Strict):
    """Home Assistant's JSON-schema light command."""

    state: Literal["ON", "OFF"] | None = None
    brightness: int | None = Field(None, ge=0, le=255)
    color_temp: int | None = Field(None, ge=100, le=1_000_000, description="kelvin")
    color: HsColor | XyColor | None = None
    transition: float | None = Field(None, ge=0, le=6553.5, description="seconds")

    @model_validator(mode="after")
    def _something_to_do(self) -> LightPayload:
        if self.state is None and self.brightness is None and self.color_temp is None and self.color is None:
            raise ValueError("give at least one of state, brightness, color_temp, color")
        if self.state == "OFF" and (self.brightness or self.color_temp is not None or self.color is not None):
            raise ValueError("state OFF cannot be combined with brightness or colour")
        return self


class PercentagePayload(_Strict):
    value: int = Field(ge=0, le=100)


class TemperaturePayload(_Strict):
    value: float = Field(allow_inf_nan=False, description="°C")


class WordPayload(_Strict):
    value: str = Field(min_length=1, max_length=64)


class CoverPayload(_Strict):
    value: Literal["OPEN", "CLOSE", "STOP"]


class ValvePayload(_Strict):
    value: Literal["OPEN", "CLOSE"]


class LockPayload(_Strict):
    action: Literal["LOCK", "UNLOCK"]
    code: str | None = Field(None, pattern=r"^\d{4,8}$")


class PressPayload(_Strict):
    value: Literal["PRESS"]


_LIGHT_ALLOWED = {
    "state": ["ON", "OFF"],
    "brightness": "0..255",
    "color_temp": "kelvin",
    "color": "{h: 0..360, s: 0..100} or {x: 0..1, y: 0..1}",
    "transition": "seconds >= 0",
}


def _parse(model: type[BaseModel], data: object, allowed: object) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as error:
        problems = [
            {
                "field": ".".join(str(p) for p in e["loc"]) or None,
                "message": e["msg"],
                "input": e.get("input") if isinstance(e.get("input"), str | int | float | bool) else None,
            }
            for e in error.errors(include_url=False)
        ]
        first = problems[0]
        raise CommandError(
            "INVALID_PAYLOAD",
            f"{first['field'] or 'payload'}: {first['message']}",
            field=first["field"],
            allowed=allowed,
            errors=problems,
        ) from None


def _plain(text: str, model: type[BaseModel], allowed: object) -> Any:
    return _parse(model, {"value": text.strip()}, allowed)


def _json_object(text: str, allowed: object) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise CommandError(
            "INVALID_JSON", f"payload is not JSON: {error.msg} at {error.pos}", allowed=allowed
        ) from None
    if not isinstance(data, dict):
        raise CommandError(
            "INVALID_PAYLOAD", f"payload must be a JSON object, got {type(data).__name__}", allowed=allowed
        )
    return data


def _choice(value: str, options: list[str], field_name: str) -> str:
    if value not in options:
        raise CommandError(
            "INVALID_PAYLOAD",
            f"{field_name} {value!r} is not one of this device's options",
            field=field_name,
            allowed=options,
        )
    return value


def _invoke(entity: Entity, cluster: str, command: str, **args: Any) -> WorkflowStep:
    return WorkflowStep.invoke(entity.device_id, entity.endpoint, cluster, command, args)


def _write(entity: Entity, cluster: str, attribute: str, value: object) -> WorkflowStep:
    return WorkflowStep.write(entity.device_id, entity.endpoint, cluster, attribute, value)


# ---------------------------------------------------------------------------------- per kind
FIELDS: dict[str, tuple[str | None, ...]] = {
    "light": (None,),
    "fan": (None, "percentage"),
    "switch": (None,),
    "lock": (None,),
    "button": (None,),
    "select": (None,),
    "valve": (None,),
    "cover": (None, "position", "tilt"),
    "number": (None,),
    "vacuum": (None,),
    "water_heater": ("mode", "temperature"),
    "climate": ("mode", "temperature", "temperature_low", "temperature_high", "fan_mode"),
}


# What each command topic takes, for answers to payloads that are not even text.
ACCEPTS: dict[tuple[str, str | None], Any] = {
    ("light", None): _LIGHT_ALLOWED,
    ("fan", None): ["ON", "OFF"],
    ("fan", "percentage"): "0..100",
    ("switch", None): ["ON", "OFF"],
    ("lock", None): ["LOCK", "UNLOCK"],
    ("button", None): ["PRESS"],
    ("select", None): "one of the select's options",
    ("number", None): "a number within the entity's min..max",
    ("vacuum", None): ["start", "pause", "stop", "return_to_base"],
    ("water_heater", "mode"): ["off", "electric"],
    ("water_heater", "temperature"): "°C",
    ("cover", None): ["OPEN", "CLOSE", "STOP"],
    ("valve", None): ["OPEN", "CLOSE"],
    ("cover", "position"): "0..100 (100 = open)",
    ("cover", "tilt"): "0..100 (100 = open)",
    ("climate", "mode"): "one of the climate's modes",
    ("climate", "fan_mode"): "one of the climate's fan modes",
    ("climate", "temperature"): "°C",
    ("climate", "temperature_low"): "°C",
    ("climate", "temperature_high"): "°C",
}


def plan(fabric: EmulatedHome, entity: Entity, field_name: str | None, payload: bytes) -> list[WorkflowStep]:
    """Validate a command for ``entity`` (``field_name`` from <entity>/set/<field>) → fabric operations."""
    fields = FIELDS.get(entity.kind, ())
    if field_name not in fields or (entity.kind == "cover" and field_name == "tilt" and not entity.options["tilt"]):
        allowed = ["set" if f is None else f"set/{f}" for f in fields]
        raise CommandError(
            "UNKNOWN_COMMAND",
            f"{entity.kind} {entity.key!r} takes no command {'set' if field_name is None else 'set/' + field_name}",
            field="topic",
            allowed=allowed,
        )
    accepted = ACCEPTS[(entity.kind, field_name)]
    if len(payload) > MAX_PAYLOAD:
        raise CommandError(
            "INVALID_PAYLOAD", f"payload of {len(payload)} bytes is over {MAX_PAYLOAD}", allowed=accepted
        )
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        raise CommandError("INVALID_PAYLOAD", "payload is not UTF-8 text", allowed=accepted) from None
    return _PLANNERS[entity.kind](fabric, entity, field_name, text)


def _plan_light(fabric: EmulatedHome, entity: Entity, field_name: str | None, text: str) -> list[WorkflowStep]:
    options = entity.options
    command = _parse(LightPayload, _json_object(text, _LIGHT_ALLOWED), _LIGHT_ALLOWED)
    tenths = None if command.transition is None else round(command.transition * 10)
    timing = {} if tenths is None else {"transitionTime": tenths}
    if command.state == "OFF" or command.brightness == 0:
        return [_invoke(entity, "OnOff", "Off")]
    ops: list[WorkflowStep] = []
    if command.color_temp is not None:
        if not options["color_temp"]:
            raise CommandError(
                "INVALID_PAYLOAD",
                "this light has no colour temperature",
                field="color_temp",
                allowed=_light_fields(options),
            )
        coolest = fabric.read(entity.device_id, entity.endpoint, "ColorControl", "ColorTempPhysicalMinMireds")
        warmest = fabric.read(entity.device_id, entity.endpoint, "ColorControl", "ColorTempPhysicalMaxMireds")
        mireds = kelvin_to_mireds(command.color_temp)
        if not coolest <= mireds <= warmest:
            low, high = mireds_to_kelvin(warmest), mireds_to_kelvin(coolest)
            raise CommandError(
                "INVALID_PAYLOAD",
                f"color_temp {command.color_temp} K is outside {low}..{high} K",
                field="color_temp",
                allowed={"min": low, "max": high},
            )
        ops.append(
            _invoke(
                entity,
                "ColorControl",
                "MoveToColorTemperature",
                colorTemperatureMireds=mireds,
                transitionTime=tenths or 0,
                **EXECUTE_IF_OFF,
            )
        )
    if isinstance(command.color, HsColor):
        if not options["hs"]:
            raise CommandError(
                "INVALID_PAYLOAD",
                "this light has no hue/saturation colour",
                field="color",
                allowed=_light_fields(options),
            )
        hue, saturation = min(254, round(command.color.h * 254 / 360)), round(command.color.s * 254 / 100)
        ops.append(
            _invoke(
                entity,
                "ColorControl",
                "MoveToHueAndSaturation",
                hue=hue,
                saturation=saturation,
                transitionTime=tenths or 0,
                **EXECUTE_IF_OFF,
            )
        )
    elif isinstance(command.color, XyColor):
        if not options["xy"]:
            raise CommandError(
                "INVALID_PAYLOAD", "this light has no xy colour", field="color", allowed=_light_fields(options)
            )
        ops.append(
            _invoke(
                entity,
                "ColorControl",
                "MoveToColor",
                colorX=min(0xFEFF, round(command.color.x * 65536)),
                colorY=min(0xFEFF, round(command.color.y * 65536)),
                transitionTime=tenths or 0,
                **EXECUTE_IF_OFF,
            )
        )
    if command.brightness is not None:
        if not options["brightness"]:
            raise CommandError(
                "INVALID_PAYLOAD", "this light is not dimmable", field="brightness", allowed=_light_fields(options)
            )
        level = brightness_to_level(command.brightness)
        ops.append(_invoke(entity, "LevelControl", "MoveToLevelWithOnOff", level=level, **timing))
    else:
        ops.append(_invoke(entity, "OnOff", "On"))
    return ops


def _light_fields(options: Any) -> dict[str, Any]:
    allowed = {"state": ["ON", "OFF"], "transition": "seconds >= 0"}
    if options["brightness"]:
        allowed["brightness"] = "0..255"
    if options["color_temp"]:
        allowed["color_temp"] = "kelvin"
    if options["hs"]:
        allowed["color"] = "{h: 0..360, s: 0..100}"
    return allowed


def _power(entity: Entity, on: bool) -> WorkflowStep:
    return _invoke(entity, "OnOff", "On" if on else "Off")


def _is_on(fabric: EmulatedHome, entity: Entity) -> bool:
    return bool(fabric.read(entity.device_id, entity.endpoint, "OnOff", "OnOff"))


def _plan_fan(fabric: EmulatedHome, entity: Entity, field_name: str | None, text: str) -> list[WorkflowStep]:
    power = entity.options["power"]
    if field_name is None:
        on = _plain(text, OnOffPayload, ["ON", "OFF"]).value == "ON"
        if power:
            return [_power(entity, on)]
        return [_write(entity, "FanControl", "FanMode", 3 if on else 0)]  # High / Off
    percentage = _plain(text, PercentagePayload, "0..100 (0 turns the fan off)").value
    if percentage == 0:
        return [_power(entity, False)] if power else [_write(entity, "FanControl", "PercentSetting", 0)]
    ops = [_write(entity, "FanControl", "PercentSetting", percentage)]
    if power and not _is_on(fabric, entity):
        ops.insert(0, _power(entity, True))  # Home Assistant: a speed above 0 means "on at that speed"
    return ops


def _plan_switch(fabric: EmulatedHome, entity: Entity, field_name: str | None, text: str) -> list[WorkflowStep]:
    on = _plain(text, OnOffPayload, ["ON", "OFF"]).value == "ON"
    if entity.cluster == "EnergyEvse":  # charging allowed until disabled, at the charger's own circuit limit
        if not on:
            return [_invoke(entity, "EnergyEvse", "Disable")]
        limit = fabric.read(entity.device_id, entity.endpoint, "EnergyEvse", "CircuitCapacity")
        return [
            _invoke(
                entity,
                "EnergyEvse",
                "EnableCharging",
                chargingEnabledUntil=None,
                minimumChargeCurrent=EVSE_MIN_CURRENT_MA,
                maximumChargeCurrent=limit,
            )
        ]
    return [_power(entity, on)]


def _plan_climate(fabric: EmulatedHome, entity: Entity, field_name: str | None, text: str) -> list[WorkflowStep]:
    options = entity.options
    if field_name == "mode":
        modes = climate_modes(fabric, entity)
        mode = _choice(_plain(text, WordPayload, modes).value, modes, "mode")
        if options["power"]:
            if mode == "off":
                return [_power(entity, False)]
            ops = [_write(entity, "Thermostat", "SystemMode", SYSTEM_MODE_BY_HA_MODE[mode])]
            return ops if _is_on(fabric, entity) else [_power(entity, True), *ops]
        return [_write(entity, "Thermostat", "SystemMode", SYSTEM_MODE_BY_HA_MODE[mode])]
    if field_name == "fan_mode":
        if not options["fan"]:
            raise CommandError("UNKNOWN_COMMAND", "this thermostat has no fan", field="topic")
        modes = climate_fan_modes(fabric, entity)
        mode = _choice(_plain(text, WordPayload, modes).value, modes, "fan_mode")
        return [_write(entity, "FanControl", "FanMode", FAN_MODE_BY_NAME[mode])]
    low, high = temperature_limits(fabric, entity)
    allowed = {"min": low, "max": high, "unit": "°C"}
    celsius = _plain(text, TemperaturePayload, allowed).value
    if not low <= celsius <= high or not math.isfinite(celsius):
        raise CommandError(
            "INVALID_PAYLOAD",
            f"{field_name} {celsius} °C is outside {low}..{high} °C",
            field=field_name,
            allowed=allowed,
        )
    if field_name == "temperature":
        system_mode = fabric.read(entity.device_id, entity.endpoint, "Thermostat", "SystemMode")
        setpoint = target_setpoint(system_mode, options["heating"], options["cooling"])
    elif not options["auto"]:
        raise CommandError(
            "UNKNOWN_COMMAND",
            f"{field_name} needs a thermostat with an auto mode",
            field="topic",
            allowed=["set/temperature"],
        )
    else:
        setpoint = "OccupiedHeatingSetpoint" if field_name == "temperature_low" else "OccupiedCoolingSetpoint"
    return [_write(entity, "Thermostat", setpoint, round(celsius * 100))]


def _plan_cover(fabric: EmulatedHome, entity: Entity, field_name: str | None, text: str) -> list[WorkflowStep]:
    if field_name is None:
        word = _plain(text, CoverPayload, ["OPEN", "CLOSE", "STOP"]).value
        command = {"OPEN": "UpOrOpen", "CLOSE": "DownOrClose", "STOP": "StopMotion"}[word]
        return [_invoke(entity, "WindowCovering", command)]
    position = _plain(text, PercentagePayload, "0..100 (100 = open)").value
    if field_name == "tilt":
        return [
            _invoke(
                entity, "WindowCovering", "GoToTiltPercentage", tiltPercent100thsValue=ha_to_matter_position(position)
            )
        ]
    return [
        _invoke(entity, "WindowCovering", "GoToLiftPercentage", liftPercent100thsValue=ha_to_matter_position(position))
    ]


def _plan_valve(fabric: EmulatedHome, entity: Entity, field_name: str | None, text: str) -> list[WorkflowStep]:
    word = _plain(text, ValvePayload, ["OPEN", "CLOSE"]).value
    return [_invoke(entity, "ValveConfigurationAndControl", "Open" if word == "OPEN" else "Close")]


def _plan_lock(fabric: EmulatedHome, entity: Entity, field_name: str | None, text: str) -> list[WorkflowStep]:
    allowed = ["LOCK", "UNLOCK", '{"action": "LOCK"|"UNLOCK", "code": "<4-8 digits>"}']
    stripped = text.strip()
    data = _json_object(stripped, allowed) if stripped.startswith("{") else {"action": stripped}
    command = _parse(LockPayload, data, allowed)
    args = {} if command.code is None else {"PINCode": command.code}
    return [_invoke(entity, "DoorLock", "LockDoor" if command.action == "LOCK" else "UnlockDoor", **args)]


def _plan_button(fabric: EmulatedHome, entity: Entity, field_name: str | None, text: str) -> list[WorkflowStep]:
    _plain(text, PressPayload, ["PRESS"])
    return [_invoke(entity, entity.cluster or "", entity.options["command"])]


def _plan_select(fabric: EmulatedHome, entity: Entity, field_name: str | None, text: str) -> list[WorkflowStep]:
    options = select_options(fabric, entity)
    label = _choice(_plain(text, WordPayload, options).value, options, "option")
    if "choices" in entity.options:
        return [_write(entity, entity.cluster or "", entity.options["attribute"], entity.options["choices"][label])]
    modes = fabric.read(entity.device_id, entity.endpoint, entity.cluster or "", "SupportedModes")
    number = next(m["mode"] for m in modes if m["label"] == label)
    return [_invoke(entity, entity.cluster or "", "ChangeToMode", newMode=number)]


class NumberPayload(_Strict):
    value: float = Field(allow_inf_nan=False)


def _plan_number(fabric: EmulatedHome, entity: Entity, field_name: str | None, text: str) -> list[WorkflowStep]:
    low, high, _ = number_limits(fabric, entity)
    unit = {"temperature": "°C", "dryness": ""}.get(entity.options["number"], "%")
    allowed = {"min": low, "max": high, "unit": unit}
    value = _plain(text, NumberPayload, allowed).value
    shown = f" {unit}" if unit else ""
    if not low <= value <= high or (entity.options["number"] == "dryness" and value != int(value)):
        raise CommandError(
            "INVALID_PAYLOAD",
            f"{entity.name} {value:g}{shown} is outside {low:g}..{high:g}{shown}"
            + (" (whole levels)" if entity.options["number"] == "dryness" else ""),
            field="value",
            allowed=allowed,
        )
    if entity.options["number"] == "dryness":
        return [_write(entity, "LaundryDryerControls", "SelectedDrynessLevel", int(value))]
    if entity.options["number"] == "temperature":
        return [_invoke(entity, "TemperatureControl", "SetTemperature", targetTemperature=round(value * 100))]
    return [
        _invoke(
            entity,
            "LevelControl",
            "MoveToLevel",
            level=round(value * 254 / 100),
            transitionTime=0,
            optionsMask=0,
            optionsOverride=0,
        )
    ]


def _plan_water_heater(fabric: EmulatedHome, entity: Entity, field_name: str | None, text: str) -> list[WorkflowStep]:
    if field_name == "mode":
        modes = list(WATER_HEATER_MODES)
        mode = _choice(_plain(text, WordPayload, modes).value, modes, "mode")
        return [_write(entity, "Thermostat", "SystemMode", WATER_HEATER_MODES[mode])]
    low, high = water_heater_limits(fabric, entity)
    allowed = {"min": low, "max": high, "unit": "°C"}
    celsius = _plain(text, TemperaturePayload, allowed).value
    if not low <= celsius <= high:
        raise CommandError(
            "INVALID_PAYLOAD",
            f"temperature {celsius:g} °C is outside {low:g}..{high:g} °C",
            field="temperature",
            allowed=allowed,
        )
    return [_write(entity, "Thermostat", "OccupiedHeatingSetpoint", round(celsius * 100))]


RVC_IDLE_TAG, RVC_CLEANING_TAG = 0x4000, 0x4001  # RvcRunMode mode tags


def _rvc_mode(fabric: EmulatedHome, entity: Entity, tag: int) -> int:
    modes = fabric.read(entity.device_id, entity.endpoint, "RvcRunMode", "SupportedModes")
    mode: int = next(m["mode"] for m in modes if any(t["value"] == tag for t in m["modeTags"]))
    return mode


def _plan_vacuum(fabric: EmulatedHome, entity: Entity, field_name: str | None, text: str) -> list[WorkflowStep]:
    words = ["start", "pause", "stop", "return_to_base"]
    word = _choice(_plain(text, WordPayload, words).value, words, "command")
    state = fabric.read(entity.device_id, entity.endpoint, "RvcOperationalState", "OperationalState")
    if word == "pause":
        return [_invoke(entity, "RvcOperationalState", "Pause")]
    if word == "return_to_base":
        return [_invoke(entity, "RvcOperationalState", "GoHome")]
    if word == "start" and state == 2:  # paused: carry on where it stopped
        return [_invoke(entity, "RvcOperationalState", "Resume")]
    tag = RVC_CLEANING_TAG if word == "start" else RVC_IDLE_TAG
    return [_invoke(entity, "RvcRunMode", "ChangeToMode", newMode=_rvc_mode(fabric, entity, tag))]


_PLANNERS = {
    "light": _plan_light,
    "fan": _plan_fan,
    "switch": _plan_switch,
    "climate": _plan_climate,
    "cover": _plan_cover,
    "valve": _plan_valve,
    "lock": _plan_lock,
    "button": _plan_button,
    "select": _plan_select,
    "number": _plan_number,
    "vacuum": _plan_vacuum,
    "water_heater": _plan_water_heater,
}
