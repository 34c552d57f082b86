"""``get_environment_control_rules``: which devices move a room variable, how to make them act, how much.

Derived from our physics model (emulator/physics.py rules, PhysicsParams rates) and the catalogue's
physics roles, in SimuHome's payload shape (facts §1.6): ``{"state", "control_rules": <JSON string of
[{device_type, actions:{required, optional}, note}]>}``. Each entry also says which ``direction`` it
produces; when ``optional`` is non-empty at least one of those actions is needed too (e.g. a fan speed
above 0 %, without which the device has no effect). Only device types whose roles act on the state
are listed.
"""

from __future__ import annotations

import json
from typing import Any

from emulator.catalogue import CATALOGUE
from emulator.physics import PhysicsParams
from emulator.simuhome.config import DEFAULT_ROOM_STATE

STATES = ("temperature", "humidity", "air_quality", "illuminance")
_ROLES_BY_STATE = {
    "temperature": ("ac", "heat_pump", "thermostat", "fan"),
    "humidity": ("humidifier", "dehumidifier"),
    "air_quality": ("purifier",),
    "illuminance": ("light", "covering"),
}
# Reference baselines for the worked examples in the notes (SimuHome's room defaults).
REFERENCE = {name: float(DEFAULT_ROOM_STATE[name]) for name in ("temperature", "humidity", "pm10")}


def _command(ep: int, cluster: str, command: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "execute_command",
        "endpoint_id": ep,
        "cluster_id": cluster,
        "command_id": command,
        "args": args or {},
    }


def _write(ep: int, cluster: str, attribute: str, value: object) -> dict[str, Any]:
    return {
        "type": "write_attribute",
        "endpoint_id": ep,
        "cluster_id": cluster,
        "attribute_id": attribute,
        "value": value,
    }


def _fan_speed(ep: int) -> list[dict[str, Any]]:
    return [
        _write(ep, "FanControl", "PercentSetting", "1..100 (non-zero; effect scales with it)"),
        _write(ep, "FanControl", "FanMode", "1 Low, 2 Medium or 3 High"),
        _command(ep, "FanControl", "Step", {"Direction": 0}),
    ]


def _celsius(centi: float) -> str:
    return f"{centi / 100:.2f} °C"


def _hvac(device_type: str, role: str, ep: int, p: PhysicsParams) -> list[dict[str, Any]]:
    has_fan = role == "ac"
    power = [_command(ep, "OnOff", "On")] if role == "ac" else []
    offset = p.hvac_rate_c_per_s / p.temperature_drift_per_s  # °C at full output, cap-limited equilibrium
    rate_h = p.hvac_rate_c_per_s * 3600
    fan_text = (
        " × the fan fraction (PercentCurrent/100); at 0 % it has no effect"
        if has_fan
        else " (no fan: always full output)"
    )
    drift_min = 1 / p.temperature_drift_per_s / 60
    no_power = "" if role == "ac" else " It has no On/Off: SystemMode 0 (Off) stops it."
    where = f" Its thermostat is on endpoint {ep}." if ep != 1 else ""
    common = (
        f"Moves the room at up to {p.hvac_rate_c_per_s} °C/s ({rate_h:.1f} °C/h){fan_text}, stops pushing at "
        f"its setpoint, and the room drifts back toward its baseline (time constant ≈ {drift_min:.0f} min). "
        f"At full output the room settles about {offset:.1f} °C from its baseline (e.g. baseline "
        f"{_celsius(REFERENCE['temperature'])}: {_celsius(REFERENCE['temperature'] - offset * 100)} cooling) "
        f"unless the setpoint is reached first. Setpoints are in 0.01 °C (2400 = 24.00 °C).{no_power}{where}"
    )
    optional = _fan_speed(ep) if has_fan else []
    cool = {
        "device_type": device_type,
        "direction": "decrease",
        "actions": {
            "required": [
                *power,
                _write(ep, "Thermostat", "SystemMode", 3),
                _write(ep, "Thermostat", "OccupiedCoolingSetpoint", "< current room temperature"),
            ],
            "optional": optional,
        },
        "note": f"Cooling: SystemMode 3 (Cool) with OccupiedCoolingSetpoint below the room temperature. {common}",
    }
    heat = {
        "device_type": device_type,
        "direction": "increase",
        "actions": {
            "required": [
                *power,
                _write(ep, "Thermostat", "SystemMode", 4),
                _write(ep, "Thermostat", "OccupiedHeatingSetpoint", "> current room temperature"),
            ],
            "optional": optional,
        },
        "note": f"Heating: SystemMode 4 (Heat) with OccupiedHeatingSetpoint above the room temperature. {common}",
    }
    return [cool, heat]


def _fan(device_type: str, ep: int, p: PhysicsParams) -> list[dict[str, Any]]:
    settle = p.fan_rate_c_per_s / p.temperature_drift_per_s
    floor = p.fan_floor_below_baseline / 100
    return [
        {
            "device_type": device_type,
            "direction": "decrease",
            "actions": {"required": [_command(ep, "OnOff", "On")], "optional": _fan_speed(ep)},
            "note": f"A fan only cools, at up to {p.fan_rate_c_per_s} °C/s × the fan fraction, never below "
            f"{floor:.1f} °C under the room's baseline; at full speed the room settles about "
            f"{min(settle, floor):.1f} °C below its baseline. Fan at 0 % has no effect. It cannot heat.",
        }
    ]


def _humidity(device_type: str, role: str, ep: int, p: PhysicsParams) -> list[dict[str, Any]]:
    k, d, base = p.humidity_rate_per_s, p.humidity_drift_per_s, REFERENCE["humidity"]
    if role == "humidifier":
        settle = (k + d * base) / (k / 9000 + d)
        effect = (
            f"raises humidity by up to {k} (0.01 %)/s × fan fraction × efficiency, efficiency = "
            "max(0.1, (9000 − H)/9000), stopping at 90.00 %"
        )
        direction = "increase"
    else:
        settle = (d * base + k * 1000 / 9000) / (d + k / 9000)
        effect = (
            f"lowers humidity by up to {k} (0.01 %)/s × fan fraction × efficiency, efficiency = "
            "max(0.1, (H − 1000)/9000), stopping at 10.00 %"
        )
        direction = "decrease"
    return [
        {
            "device_type": device_type,
            "direction": direction,
            "actions": {"required": [_command(ep, "OnOff", "On")], "optional": _fan_speed(ep)},
            "note": f"Power on with a non-zero fan speed: it {effect}. The room drifts back "
            f"{d * 100:.0f} % of the gap to its baseline per second, so at full fan a room with baseline "
            f"{base / 100:.2f} % settles near {settle / 100:.2f} %. Humidity is in 0.01 % (5000 = 50 %).",
        }
    ]


def _purifier(device_type: str, ep: int, p: PhysicsParams) -> list[dict[str, Any]]:
    q, d, base = p.purifier_rate_per_s, p.pm10_drift_per_s, REFERENCE["pm10"]
    settle = d * base / (d + q / base)
    return [
        {
            "device_type": device_type,
            "direction": "decrease",
            "actions": {"required": [_command(ep, "OnOff", "On")], "optional": _fan_speed(ep)},
            "note": f"Power on with a non-zero fan speed: PM10 falls by {q} µg/m³/s × (fan fraction)^0.8 × the "
            f"pollution ratio (current/baseline, capped); the room drifts back {d * 100:.0f} % of the gap "
            f"per second, so at full fan a room with baseline {base:.0f} µg/m³ settles near "
            f"{settle:.1f} µg/m³ within about a minute. It cannot raise PM10.",
        }
    ]


def _light(device_type: str, ep: int, p: PhysicsParams) -> list[dict[str, Any]]:
    spec = CATALOGUE[device_type]
    dimmable = any(c.cluster == "LevelControl" for e in spec.endpoints if e.endpoint_id == ep for c in e.clusters)
    if dimmable:
        level = _command(ep, "LevelControl", "MoveToLevel", {"Level": "1..254"})
        return [
            {
                "device_type": device_type,
                "direction": "increase",
                "actions": {"required": [_command(ep, "OnOff", "On")], "optional": [level]},
                "note": f"Adds {p.light_lux:.0f} lux × CurrentLevel/254 while on (instantly; no drift). Raise the "
                "level (MoveToLevel, 1..254) for more light.",
            },
            {
                "device_type": device_type,
                "direction": "decrease",
                "actions": {"required": [], "optional": [_command(ep, "OnOff", "Off"), level]},
                "note": "Switch it off (removes its whole contribution) or lower its level.",
            },
        ]
    return [
        {
            "device_type": device_type,
            "direction": "increase",
            "actions": {"required": [_command(ep, "OnOff", "On")], "optional": []},
            "note": f"Adds {p.light_lux:.0f} lux while on (instantly).",
        },
        {
            "device_type": device_type,
            "direction": "decrease",
            "actions": {"required": [_command(ep, "OnOff", "Off")], "optional": []},
            "note": f"Switching it off removes its {p.light_lux:.0f} lux.",
        },
    ]


def _covering(device_type: str, ep: int, p: PhysicsParams) -> list[dict[str, Any]]:
    share = p.covering_blocks_daylight * 100
    return [
        {
            "device_type": device_type,
            "direction": "decrease",
            "actions": {
                "required": [],
                "optional": [
                    _command(ep, "WindowCovering", "DownOrClose"),
                    _command(ep, "WindowCovering", "GoToLiftPercentage", {"LiftPercent100thsValue": "0..10000"}),
                ],
            },
            "note": f"Closing blocks daylight: fully closed (10000) blocks {share:.0f} % of the room's daylight, "
            "averaged over the room's coverings; lights are not affected. Motion takes a few seconds.",
        },
        {
            "device_type": device_type,
            "direction": "increase",
            "actions": {
                "required": [],
                "optional": [
                    _command(ep, "WindowCovering", "UpOrOpen"),
                    _command(ep, "WindowCovering", "GoToLiftPercentage", {"LiftPercent100thsValue": "0..10000"}),
                ],
            },
            "note": "Opening (0 = fully open) lets the daylight back in.",
        },
    ]


def control_rules(state: str, params: PhysicsParams | None = None) -> list[dict[str, Any]]:
    """The rule entries for one state, device types in name order."""
    p = params or PhysicsParams()
    roles = _ROLES_BY_STATE[state]
    out: list[dict[str, Any]] = []
    for name in sorted(CATALOGUE):
        for role, ep in CATALOGUE[name].roles:
            if role not in roles:
                continue
            if role in ("ac", "heat_pump", "thermostat"):
                out += _hvac(name, role, ep, p)
            elif role == "fan" and p.fan_rate_c_per_s > 0:
                out += _fan(name, ep, p)
            elif role in ("humidifier", "dehumidifier") and p.humidity_rate_per_s > 0:
                out += _humidity(name, role, ep, p)
            elif role == "purifier" and p.purifier_rate_per_s > 0:
                out += _purifier(name, ep, p)
            elif role == "light" and p.light_lux > 0:
                out += _light(name, ep, p)
            elif role == "covering" and p.covering_blocks_daylight > 0:
                out += _covering(name, ep, p)
    return out


def control_rules_payload(state: str, params: PhysicsParams | None = None) -> dict[str, Any]:
    """SimuHome's ``data``: the state and the rules as a JSON-encoded string."""
    return {"state": state, "control_rules": json.dumps(control_rules(state, params), ensure_ascii=False)}
