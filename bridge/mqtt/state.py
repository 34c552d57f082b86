"""Device → state payloads: the JSON each entity publishes, in Home Assistant's units and words.

Matter units are converted here and only here: centi-°C and centi-% to °C and %, the log-encoded
illuminance to lux, mW to W, mWh to kWh, half-percent battery to %, CurrentLevel 1–254 to brightness
0–255, closed-percent-100ths (0 = open) to Home Assistant's position (100 = open).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bridge.mqtt.entities import EVSE_CHARGING_SUPPLY, Entity, cycle_state_name, snake
from clusters.electrical import ElectricalEnergyMeasurementServer
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError

# Thermostat SystemMode ↔ Home Assistant HVAC mode (the ones a thermostat can be asked for) …
HA_MODE_BY_SYSTEM_MODE = {0: "off", 1: "auto", 3: "cool", 4: "heat", 7: "fan_only", 8: "dry"}
SYSTEM_MODE_BY_HA_MODE = {mode: system for system, mode in HA_MODE_BY_SYSTEM_MODE.items()}
# … and how the others are shown: EmergencyHeat as heat, Precooling as cool, Sleep as auto.
_SHOWN_AS = {5: "heat", 6: "cool", 9: "auto"}
HEATING_SYSTEM_MODES = (4, 5)
COOLING_SYSTEM_MODES = (3, 6)
FAN_MODE_NAMES = {0: "off", 1: "low", 2: "medium", 3: "high", 4: "on", 5: "auto", 6: "smart"}
FAN_SEQUENCES_WITH_AUTO = (2, 3, 4)
AIR_QUALITY_NAMES = ["unknown", "good", "fair", "moderate", "poor", "very_poor", "extremely_poor"]
COLOR_MODE_NAMES = {0: "hs", 1: "xy", 2: "color_temp"}
COVER_OPENING, COVER_CLOSING = 1, 2  # OperationalStatus global bits
LOCK_STATE_NAMES = {0: "JAMMED", 1: "LOCKED", 2: "UNLOCKED", 3: "UNLOCKED"}
STOPPED = 0  # OperationalState Stopped: the appliance is between cycles
IDLE_PHASE = "idle"  # the phase sensor's value between cycles (CurrentPhase null)

Read = Callable[[str, str], Any]


def reader(fabric: EmulatedHome, entity: Entity) -> Read:
    """read(cluster, attribute) on the entity's endpoint; None where the attribute does not exist."""

    def read(cluster: str, attribute: str) -> Any:
        try:
            return fabric.read(entity.device_id, entity.endpoint, cluster, attribute)
        except HomeError:
            return None

    return read


def centi(value: Any) -> float | None:
    return None if value is None else round(value / 100, 2)


def level_to_brightness(level: int | None) -> int | None:
    return None if level is None else round(level * 255 / 254)


def brightness_to_level(brightness: int) -> int:
    return max(1, min(254, round(brightness * 254 / 255)))


def matter_to_ha_position(closed_100ths: int | None) -> int | None:
    """Matter 0 = fully open … 10000 = fully closed → Home Assistant 100 = open … 0 = closed."""
    return None if closed_100ths is None else round(100 - closed_100ths / 100)


def ha_to_matter_position(position: int) -> int:
    return (100 - position) * 100


def lux(measured: int | None) -> float | None:
    """IlluminanceMeasurement MeasuredValue = 10000·log10(lux) + 1; 0 means too dark to measure."""
    if measured is None:
        return None
    return 0.0 if measured == 0 else round(10 ** ((measured - 1) / 10000), 1)


def target_setpoint(system_mode: int | None, heating: bool, cooling: bool) -> str:
    """The setpoint Home Assistant's single target temperature stands for in this mode."""
    if not cooling or (heating and system_mode in HEATING_SYSTEM_MODES):
        return "OccupiedHeatingSetpoint"
    return "OccupiedCoolingSetpoint"


def ha_modes(allowed_system_modes: list[int], *, power: bool) -> list[str]:
    modes = ["off"] + [HA_MODE_BY_SYSTEM_MODE[m] for m in (1, 3, 4, 8, 7) if m in allowed_system_modes]
    return modes if power or 0 in allowed_system_modes else modes[1:]


def fan_modes(fan_mode_sequence: int | None) -> list[str]:
    modes = ["off", "low", "medium", "high"]
    return [*modes, "auto"] if fan_mode_sequence in FAN_SEQUENCES_WITH_AUTO else modes


def on_off(value: object) -> str | None:
    return None if value is None else ("ON" if value else "OFF")


# ---------------------------------------------------------------------------------- per kind
def mireds_to_kelvin(mireds: int | None) -> int | None:
    """Matter counts colour temperature in mireds, Home Assistant in kelvin: K = 1,000,000 / mireds."""
    return None if not mireds else round(1_000_000 / mireds)


def kelvin_to_mireds(kelvin: int) -> int:
    return round(1_000_000 / kelvin)


def light_state(read: Read, entity: Entity) -> dict[str, Any]:
    options = entity.options
    state: dict[str, Any] = {"state": on_off(read("OnOff", "OnOff"))}
    if options["brightness"]:
        state["brightness"] = level_to_brightness(read("LevelControl", "CurrentLevel"))
    if options["color_temp"] or options["hs"] or options["xy"]:
        mode = COLOR_MODE_NAMES.get(read("ColorControl", "ColorMode"), "color_temp")
        if not options.get(mode, False):  # a mode the light lacks (e.g. xy on a tunable white)
            mode = "color_temp" if options["color_temp"] else ("hs" if options["hs"] else "xy")
        state["color_mode"] = mode
        if options["color_temp"]:
            state["color_temp"] = mireds_to_kelvin(read("ColorControl", "ColorTemperatureMireds"))
        if mode == "hs":
            state["color"] = {
                "h": round(read("ColorControl", "CurrentHue") * 360 / 254, 1),
                "s": round(read("ColorControl", "CurrentSaturation") * 100 / 254, 1),
            }
        elif mode == "xy":
            state["color"] = {
                "x": round(read("ColorControl", "CurrentX") / 65536, 4),
                "y": round(read("ColorControl", "CurrentY") / 65536, 4),
            }
    else:
        state["color_mode"] = "brightness" if options["brightness"] else "onoff"
    return {k: v for k, v in state.items() if v is not None}  # e.g. no CurrentLevel before the first dimming


def fan_state(read: Read, entity: Entity) -> dict[str, Any]:
    # Without an OnOff of its own, a fan is on while its FanMode is not Off.
    power = read("OnOff", "OnOff") if entity.options["power"] else read("FanControl", "FanMode") not in (None, 0)
    return {"state": on_off(power), "percentage": read("FanControl", "PercentCurrent")}


def climate_state(read: Read, entity: Entity) -> dict[str, Any]:
    options = entity.options
    system_mode = read("Thermostat", "SystemMode")
    powered = read("OnOff", "OnOff") if options["power"] else True
    mode = HA_MODE_BY_SYSTEM_MODE.get(system_mode) or _SHOWN_AS.get(system_mode, "off")
    setpoint = target_setpoint(system_mode, options["heating"], options["cooling"])
    state: dict[str, Any] = {
        "mode": mode if powered else "off",
        "temperature": centi(read("Thermostat", setpoint)),
        "current_temperature": centi(read("Thermostat", "LocalTemperature")),
    }
    if options["auto"]:
        state["target_temp_low"] = centi(read("Thermostat", "OccupiedHeatingSetpoint"))
        state["target_temp_high"] = centi(read("Thermostat", "OccupiedCoolingSetpoint"))
    if options["fan"]:
        state["fan_mode"] = FAN_MODE_NAMES.get(read("FanControl", "FanMode"), "off")
    if options["humidity"]:
        state["current_humidity"] = centi(read("RelativeHumidityMeasurement", "MeasuredValue"))
    return state


def cover_state(read: Read, entity: Entity) -> dict[str, Any]:
    position = matter_to_ha_position(read("WindowCovering", "CurrentPositionLiftPercent100ths"))
    moving = (read("WindowCovering", "OperationalStatus") or 0) & 0b11
    if moving == COVER_OPENING:
        word = "opening"
    elif moving == COVER_CLOSING:
        word = "closing"
    else:
        word = "closed" if position == 0 else "open"
    state: dict[str, Any] = {"state": word, "position": position}
    if entity.options["tilt"]:
        state["tilt"] = matter_to_ha_position(read("WindowCovering", "CurrentPositionTiltPercent100ths"))
    return state


def valve_state(read: Read, entity: Entity) -> dict[str, Any]:
    """Home Assistant's valve states: open / opening / closed / closing (TargetState while on the way)."""
    current, target = (
        read("ValveConfigurationAndControl", "CurrentState"),
        read("ValveConfigurationAndControl", "TargetState"),
    )
    if current == 2:  # Transitioning
        return {"state": "opening" if target == 1 else "closing"}
    return {"state": {0: "closed", 1: "open"}.get(current)}


def lock_state(read: Read, entity: Entity) -> dict[str, Any]:
    return {"state": LOCK_STATE_NAMES.get(read("DoorLock", "LockState"))}


def switch_state(read: Read, entity: Entity) -> dict[str, Any]:
    if entity.cluster == "EnergyEvse":  # an EV charger's "charging enabled": SupplyState ChargingEnabled or Enabled
        return {"state": on_off(read("EnergyEvse", "SupplyState") in EVSE_CHARGING_SUPPLY)}
    return {"state": on_off(read("OnOff", "OnOff"))}


def sensor_value(read: Read, entity: Entity) -> Any:
    kind = entity.options["sensor"]
    cluster = entity.cluster or ""
    raw = read(cluster, entity.options["attribute"])
    if kind in ("temperature", "humidity"):
        return centi(raw)
    if kind == "illuminance":
        return lux(raw)
    if kind in ("pm10", "pm25"):
        return None if raw is None else round(float(raw), 1)
    if kind == "air_quality":
        return AIR_QUALITY_NAMES[raw] if isinstance(raw, int) and 0 <= raw < len(AIR_QUALITY_NAMES) else None
    if kind == "power":
        return None if raw is None else round(raw / 1000, 1)  # mW → W
    if kind in ("voltage", "current"):
        return None if raw is None else round(raw / 1000, 3)  # mV → V, mA → A
    if kind == "energy":  # without a meter to integrate (entity_state computes it with one): the attribute
        energy = raw.get("energy") if isinstance(raw, dict) else None
        return None if energy is None else round(energy / 1_000_000, 3)  # mWh → kWh
    if kind == "battery":
        return None if raw is None else round(raw / 2)  # BatPercentRemaining is in half percent
    if kind == "volume_flow_rate":
        return None if raw is None else round(raw / 10, 1)  # 0.1 m³/h → m³/h
    if kind == "operational_state":
        return None if raw is None else cycle_state_name(raw)
    if kind == "phase":  # Matter: CurrentPhase null = no phase; a stopped appliance is between cycles
        phases = read(cluster, "PhaseList")
        if raw is None:
            return IDLE_PHASE if read(cluster, "OperationalState") == STOPPED else None
        return phases[raw] if phases and 0 <= raw < len(phases) else None
    # countdown: Matter's null CountdownTime means "no estimate"; a stopped appliance has nothing left to run
    if raw is None and read(cluster, "OperationalState") == STOPPED:
        return 0
    return raw


def binary_value(read: Read, entity: Entity) -> str | None:
    kind = entity.options["sensor"]
    if kind == "occupancy":
        occupancy = read("OccupancySensing", "Occupancy")
        return None if occupancy is None else on_off(occupancy & 1)
    if kind == "opening":  # StateValue true = contact = closed; Home Assistant's "opening" is ON when open
        value = read("BooleanState", "StateValue")
        return None if value is None else on_off(not value)
    if kind in ("moisture", "cold"):
        return on_off(read("BooleanState", "StateValue"))
    attribute = "SmokeState" if kind == "smoke" else "COState"
    level = read("SmokeCoAlarm", attribute)
    return None if level is None else on_off(level != 0)


def select_state(read: Read, entity: Entity) -> dict[str, Any]:
    if "choices" in entity.options:
        value = read(entity.cluster or "", entity.options["attribute"])
        return {"option": next((k for k, v in entity.options["choices"].items() if v == value), None)}
    current = read(entity.cluster or "", "CurrentMode")
    modes = read(entity.cluster or "", "SupportedModes") or []
    label = next((m["label"] for m in modes if m["mode"] == current), None)
    return {"option": label}


def number_state(read: Read, entity: Entity) -> dict[str, Any]:
    if entity.options["number"] == "temperature":
        return {"value": centi(read("TemperatureControl", "TemperatureSetpoint"))}
    if entity.options["number"] == "dryness":
        return {"value": read("LaundryDryerControls", "SelectedDrynessLevel")}
    # A TV or speaker whose volume was never set (SimuHome's null CurrentLevel) is at the bottom of its range,
    # as the dashboard shows it: Home Assistant's number entity needs a number, not "unknown".
    level = read("LevelControl", "CurrentLevel")
    if level is None:
        level = read("LevelControl", "MinLevel") or 0
    return {"value": round(level * 100 / 254)}


def water_heater_state(read: Read, entity: Entity) -> dict[str, Any]:
    return {
        "mode": "off" if read("Thermostat", "SystemMode") == 0 else "electric",
        "temperature": centi(read("Thermostat", "OccupiedHeatingSetpoint")),
        "current_temperature": centi(read("Thermostat", "LocalTemperature")),
    }


# RvcOperationalState → Home Assistant's vacuum activity
VACUUM_ACTIVITY = {0: "idle", 1: "cleaning", 2: "paused", 3: "error", 64: "returning", 65: "docked", 66: "docked"}


def vacuum_state(read: Read, entity: Entity) -> dict[str, Any]:
    return {"state": VACUUM_ACTIVITY.get(read("RvcOperationalState", "OperationalState"), "error")}


def metered_energy_kwh(fabric: EmulatedHome, entity: Entity) -> float | None:
    """Imported energy with the meter's power integrated up to now (kWh); None without a meter to integrate.

    The attribute alone lags: it is recorded at each power change, so a steady draw (a heat pump on standby, a
    plug left on) showed null, i.e. "unknown" in Home Assistant, for as long as the draw did not change."""
    try:
        server = fabric.device(entity.device_id).find(entity.endpoint, "ElectricalEnergyMeasurement")
    except HomeError:
        return None
    if not isinstance(server, ElectricalEnergyMeasurementServer):
        return None
    energy = server.imported_mWh_now()
    return None if energy is None else round(energy / 1_000_000, 3)  # mWh → kWh


def event_payload(event: str, fields: dict[str, Any]) -> dict[str, Any]:
    """One Matter event of an event entity as Home Assistant's event payload (fields in snake case)."""
    return {"event_type": snake(event), **{snake(name): value for name, value in sorted(fields.items())}}


def entity_state(fabric: EmulatedHome, entity: Entity) -> dict[str, Any] | None:
    """The entity's JSON state now, or None for entities without state (buttons, events)."""
    read = reader(fabric, entity)
    kind = entity.kind
    if kind == "sensor" and entity.options["sensor"] == "energy":
        energy = metered_energy_kwh(fabric, entity)
        return {"value": energy if energy is not None else sensor_value(read, entity)}
    if kind == "sensor":
        return {"value": sensor_value(read, entity)}
    if kind == "binary_sensor":
        return {"state": binary_value(read, entity)}
    function = _STATE_FUNCTIONS.get(kind)
    return None if function is None else function(read, entity)


_STATE_FUNCTIONS: dict[str, Callable[[Read, Entity], dict[str, Any]]] = {
    "light": light_state,
    "fan": fan_state,
    "climate": climate_state,
    "cover": cover_state,
    "lock": lock_state,
    "switch": switch_state,
    "valve": valve_state,
    "select": select_state,
    "number": number_state,
    "vacuum": vacuum_state,
    "water_heater": water_heater_state,
}
