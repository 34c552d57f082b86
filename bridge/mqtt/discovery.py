"""Home Assistant device-based discovery: one retained config per device with `dev`, `o` and `cmps`.

Every component reads its state from the entity's JSON state topic (with a value template where
Home Assistant needs one value) and sends commands to the entity's command topics (topics.py).
"""

from __future__ import annotations

import re
from importlib import metadata
from typing import TYPE_CHECKING, Any, cast

from bridge.mqtt.entities import REFUSED_EVENT, Entity
from bridge.mqtt.state import AIR_QUALITY_NAMES, fan_modes, ha_modes, mireds_to_kelvin
from bridge.mqtt.topics import Topics
from emulator.device import DeviceView
from emulator.emulated_home import EmulatedHome

if TYPE_CHECKING:
    from clusters.thermostat import ThermostatServer

ORIGIN_NAME = "homefabric"
TEMP_STEP = 0.5


def software_version() -> str:
    try:
        return metadata.version("homefabric")
    except metadata.PackageNotFoundError:
        return "0.0.0"


def origin(url: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": ORIGIN_NAME, "sw": software_version()}
    if url:
        out["url"] = url
    return out


def device_config(
    fabric: EmulatedHome, device: DeviceView, entities: list[Entity], topics: Topics, *, origin_url: str | None = None
) -> dict[str, Any]:
    """The retained payload of <discovery>/device/<id>/config for one device."""
    spec = device.spec
    ha_id = topics.ha_device_id(device.device_id)
    room = fabric.room(device.room_id)
    return {
        "dev": {
            "ids": [ha_id],
            "name": friendly_name(device, room.name),
            "mf": spec.vendor_name,
            "mdl": spec.product_name,
            "mdl_id": spec.name,
            "sw": software_version(),
            "sa": room.name,
        },
        "o": origin(origin_url),
        "availability": [
            {"topic": topics.availability, "payload_available": "online", "payload_not_available": "offline"}
        ],
        "qos": 1,
        "cmps": {entity.key: component_config(fabric, entity, topics) for entity in entities},
    }


def friendly_name(device: DeviceView, room_name: str) -> str:
    """What a person calls the device: its own name, else "<room> <type label>" (and its number after the
    first), e.g. "Kitchen Dishwasher", "Living room Fan 2"; the room is also the suggested area."""
    if device.name:
        return device.name
    number = re.search(r"_(\d+)$", device.device_id)
    suffix = f" {number.group(1)}" if number and number.group(1) != "1" else ""
    return f"{room_name} {device.spec.label}{suffix}"


def component_config(fabric: EmulatedHome, entity: Entity, topics: Topics) -> dict[str, Any]:
    ha_id = topics.ha_device_id(entity.device_id)
    config: dict[str, Any] = {
        "p": entity.platform,
        "name": entity.name,
        "unique_id": f"{ha_id}_{entity.key}",
        "default_entity_id": f"{entity.platform}.{_entity_object_id(ha_id, entity.key)}",
    }
    config.update(_BUILDERS[entity.kind](fabric, entity, topics))
    return config


def _entity_object_id(ha_id: str, key: str) -> str:
    """Home Assistant entity ids are lower-case letters, digits and underscores."""
    return re.sub(r"[^a-z0-9_]", "_", f"{ha_id}_{key}".lower())


def _read(fabric: EmulatedHome, entity: Entity, cluster: str, attribute: str) -> Any:
    return fabric.read(entity.device_id, entity.endpoint, cluster, attribute)


def _template(field: str) -> str:
    return "{{ value_json.%s }}" % field  # noqa: UP031  # Jinja braces would need escaping in an f-string


# ---------------------------------------------------------------------------------- per kind
def _light(fabric: EmulatedHome, entity: Entity, topics: Topics) -> dict[str, Any]:
    options = entity.options
    modes = [mode for mode in ("color_temp", "hs", "xy") if options[mode]]
    if not modes:
        modes = ["brightness"] if options["brightness"] else ["onoff"]
    config: dict[str, Any] = {
        "schema": "json",
        "state_topic": topics.state(entity.device_id, entity.key),
        "command_topic": topics.command(entity.device_id, entity.key),
        "brightness": bool(options["brightness"]),
        "brightness_scale": 255,
        "supported_color_modes": modes,
    }
    if options["color_temp"]:
        # Home Assistant's current convention: colour temperature in kelvin (mireds are deprecated since 2024.12).
        low, high = kelvin_limits(fabric, entity)
        config.update({"color_temp_kelvin": True, "min_kelvin": low, "max_kelvin": high})
    return config


def kelvin_limits(fabric: EmulatedHome, entity: Entity) -> tuple[int | None, int | None]:
    """The light's physical range in kelvin (the warmest end has the most mireds)."""
    warmest = _read(fabric, entity, "ColorControl", "ColorTempPhysicalMaxMireds")
    coolest = _read(fabric, entity, "ColorControl", "ColorTempPhysicalMinMireds")
    return mireds_to_kelvin(warmest), mireds_to_kelvin(coolest)


def _fan(fabric: EmulatedHome, entity: Entity, topics: Topics) -> dict[str, Any]:
    state = topics.state(entity.device_id, entity.key)
    return {
        "command_topic": topics.command(entity.device_id, entity.key),
        "state_topic": state,
        "state_value_template": _template("state"),
        "payload_on": "ON",
        "payload_off": "OFF",
        "percentage_command_topic": topics.command(entity.device_id, entity.key, "percentage"),
        "percentage_state_topic": state,
        "percentage_value_template": _template("percentage"),
        "speed_range_min": 1,
        "speed_range_max": 100,
    }


def temperature_limits(fabric: EmulatedHome, entity: Entity) -> tuple[float, float]:
    """The widest setpoint range in °C over the setpoints this thermostat has."""
    lows, highs = [], []
    if entity.options["heating"]:
        lows.append(_read(fabric, entity, "Thermostat", "MinHeatSetpointLimit"))
        highs.append(_read(fabric, entity, "Thermostat", "MaxHeatSetpointLimit"))
    if entity.options["cooling"]:
        lows.append(_read(fabric, entity, "Thermostat", "MinCoolSetpointLimit"))
        highs.append(_read(fabric, entity, "Thermostat", "MaxCoolSetpointLimit"))
    return min(lows) / 100, max(highs) / 100


def climate_modes(fabric: EmulatedHome, entity: Entity) -> list[str]:
    device = fabric.device(entity.device_id)
    thermostat = cast("ThermostatServer", device.cluster(entity.endpoint, "Thermostat"))
    return ha_modes(thermostat.allowed_system_modes(), power=bool(entity.options["power"]))


def climate_fan_modes(fabric: EmulatedHome, entity: Entity) -> list[str]:
    return fan_modes(_read(fabric, entity, "FanControl", "FanModeSequence"))


def _climate(fabric: EmulatedHome, entity: Entity, topics: Topics) -> dict[str, Any]:
    options = entity.options
    state = topics.state(entity.device_id, entity.key)
    low, high = temperature_limits(fabric, entity)

    def command(field: str) -> str:
        return topics.command(entity.device_id, entity.key, field)

    config: dict[str, Any] = {
        "modes": climate_modes(fabric, entity),
        "mode_command_topic": command("mode"),
        "mode_state_topic": state,
        "mode_state_template": _template("mode"),
        "temperature_command_topic": command("temperature"),
        "temperature_state_topic": state,
        "temperature_state_template": _template("temperature"),
        "current_temperature_topic": state,
        "current_temperature_template": _template("current_temperature"),
        "min_temp": low,
        "max_temp": high,
        "temp_step": TEMP_STEP,
        "precision": 0.1,
        "temperature_unit": "C",
    }
    if options["auto"]:
        config.update(
            {
                "temperature_low_command_topic": command("temperature_low"),
                "temperature_low_state_topic": state,
                "temperature_low_state_template": _template("target_temp_low"),
                "temperature_high_command_topic": command("temperature_high"),
                "temperature_high_state_topic": state,
                "temperature_high_state_template": _template("target_temp_high"),
            }
        )
    if options["fan"]:
        config.update(
            {
                "fan_modes": climate_fan_modes(fabric, entity),
                "fan_mode_command_topic": command("fan_mode"),
                "fan_mode_state_topic": state,
                "fan_mode_state_template": _template("fan_mode"),
            }
        )
    if options["humidity"]:
        config.update({"current_humidity_topic": state, "current_humidity_template": _template("current_humidity")})
    return config


# WindowCovering.Type → Home Assistant cover device class
_COVER_CLASSES = {
    0: "shade",
    1: "shade",
    2: "shade",
    3: "shade",
    4: "curtain",
    5: "awning",
    6: "shutter",
    7: "blind",
    8: "blind",
}


def _cover(fabric: EmulatedHome, entity: Entity, topics: Topics) -> dict[str, Any]:
    state = topics.state(entity.device_id, entity.key)
    config: dict[str, Any] = {
        "device_class": _COVER_CLASSES.get(_read(fabric, entity, "WindowCovering", "Type"), "shade"),
        "command_topic": topics.command(entity.device_id, entity.key),
        "payload_open": "OPEN",
        "payload_close": "CLOSE",
        "payload_stop": "STOP",
        "state_topic": state,
        "value_template": _template("state"),
        "state_open": "open",
        "state_opening": "opening",
        "state_closed": "closed",
        "state_closing": "closing",
        "state_stopped": "stopped",
        "position_topic": state,
        "position_template": _template("position"),
        "set_position_topic": topics.command(entity.device_id, entity.key, "position"),
        "position_open": 100,
        "position_closed": 0,
    }
    if entity.options["tilt"]:
        config.update(
            {
                "tilt_command_topic": topics.command(entity.device_id, entity.key, "tilt"),
                "tilt_status_topic": state,
                "tilt_status_template": _template("tilt"),
                "tilt_min": 0,
                "tilt_max": 100,
                "tilt_opened_value": 100,
                "tilt_closed_value": 0,
            }
        )
    return config


def _valve(fabric: EmulatedHome, entity: Entity, topics: Topics) -> dict[str, Any]:
    return {
        "command_topic": topics.command(entity.device_id, entity.key),
        "state_topic": topics.state(entity.device_id, entity.key),
        "value_template": _template("state"),
        "device_class": "water",
        "reports_position": False,
        "payload_open": "OPEN",
        "payload_close": "CLOSE",
        "state_open": "open",
        "state_opening": "opening",
        "state_closed": "closed",
        "state_closing": "closing",
    }


def _lock(fabric: EmulatedHome, entity: Entity, topics: Topics) -> dict[str, Any]:
    config: dict[str, Any] = {
        "command_topic": topics.command(entity.device_id, entity.key),
        "state_topic": topics.state(entity.device_id, entity.key),
        "value_template": _template("state"),
        "payload_lock": "LOCK",
        "payload_unlock": "UNLOCK",
        "state_locked": "LOCKED",
        "state_unlocked": "UNLOCKED",
        "state_jammed": "JAMMED",
    }
    if entity.options["pin"]:
        config["code_format"] = r"^\d{4,8}$"
        config["command_template"] = '{"action": "{{ value }}", "code": "{{ code }}"}'
    return config


def _switch(fabric: EmulatedHome, entity: Entity, topics: Topics) -> dict[str, Any]:
    return {
        "command_topic": topics.command(entity.device_id, entity.key),
        "state_topic": topics.state(entity.device_id, entity.key),
        "value_template": _template("state"),
        "payload_on": "ON",
        "payload_off": "OFF",
        "state_on": "ON",
        "state_off": "OFF",
    }


# sensor kind → (device_class, unit, state_class, display precision)
SENSOR_CLASSES: dict[str, tuple[str | None, str | None, str | None, int | None]] = {
    "temperature": ("temperature", "°C", "measurement", 1),
    "humidity": ("humidity", "%", "measurement", 0),
    "illuminance": ("illuminance", "lx", "measurement", 0),
    "pm10": ("pm10", "µg/m³", "measurement", 0),
    "pm25": ("pm25", "µg/m³", "measurement", 0),
    "power": ("power", "W", "measurement", 1),
    "voltage": ("voltage", "V", "measurement", 1),
    "current": ("current", "A", "measurement", 2),
    "energy": ("energy", "kWh", "total_increasing", 3),
    "battery": ("battery", "%", "measurement", 0),
    "pressure": ("pressure", "kPa", "measurement", 0),
    "volume_flow_rate": ("volume_flow_rate", "m³/h", "measurement", 1),
    "countdown": ("duration", "s", "measurement", 0),
    "air_quality": ("enum", None, None, None),
    "operational_state": ("enum", None, None, None),
    "phase": (None, None, None, None),
}


def _sensor(fabric: EmulatedHome, entity: Entity, topics: Topics) -> dict[str, Any]:
    kind = entity.options["sensor"]
    device_class, unit, state_class, precision = SENSOR_CLASSES[kind]
    config: dict[str, Any] = {
        "state_topic": topics.state(entity.device_id, entity.key),
        "value_template": _template("value"),
    }
    if device_class:
        config["device_class"] = device_class
    if unit:
        config["unit_of_measurement"] = unit
    if state_class:
        config["state_class"] = state_class
    if precision is not None:
        config["suggested_display_precision"] = precision
    if kind == "air_quality":
        config["options"] = AIR_QUALITY_NAMES
    elif kind == "operational_state":
        config["options"] = list(entity.options["states"])
    if kind in ("phase", "countdown", "operational_state"):
        config["icon"] = "mdi:progress-clock"
    return config


def _binary_sensor(fabric: EmulatedHome, entity: Entity, topics: Topics) -> dict[str, Any]:
    return {
        "state_topic": topics.state(entity.device_id, entity.key),
        "value_template": _template("state"),
        "device_class": entity.options["sensor"],
        "payload_on": "ON",
        "payload_off": "OFF",
    }


def _refused_event(fabric: EmulatedHome, entity: Entity, topics: Topics) -> dict[str, Any]:
    # https://www.home-assistant.io/integrations/event.mqtt/ — the (non-retained) error topic's JSON carries
    # "event_type"; its other keys (message, error, topic …) become the event's attributes.
    return {
        "state_topic": topics.error(entity.device_id),
        "event_types": [REFUSED_EVENT],
        "entity_category": "diagnostic",
        "icon": "mdi:alert-circle-outline",
    }


def _event(fabric: EmulatedHome, entity: Entity, topics: Topics) -> dict[str, Any]:
    # Each message on the state topic (not retained) is one event: {"event_type": "initial_press", …fields}.
    return {
        "state_topic": topics.state(entity.device_id, entity.key),
        "device_class": "button",
        "event_types": list(entity.options["event_types"]),
    }


def _button(fabric: EmulatedHome, entity: Entity, topics: Topics) -> dict[str, Any]:
    return {"command_topic": topics.command(entity.device_id, entity.key), "payload_press": "PRESS"}


def select_options(fabric: EmulatedHome, entity: Entity) -> list[str]:
    if "choices" in entity.options:
        return list(entity.options["choices"])
    return [m["label"] for m in _read(fabric, entity, entity.cluster or "", "SupportedModes")]


def _select(fabric: EmulatedHome, entity: Entity, topics: Topics) -> dict[str, Any]:
    return {
        "command_topic": topics.command(entity.device_id, entity.key),
        "state_topic": topics.state(entity.device_id, entity.key),
        "value_template": _template("option"),
        "options": select_options(fabric, entity),
    }


def number_limits(fabric: EmulatedHome, entity: Entity) -> tuple[float, float, float]:
    """(min, max, step) in the entity's unit: °C for a temperature setpoint, % for a volume."""
    if entity.options["number"] == "temperature":
        low = _read(fabric, entity, "TemperatureControl", "MinTemperature") / 100
        high = _read(fabric, entity, "TemperatureControl", "MaxTemperature") / 100
        server = fabric.device(entity.device_id).cluster(entity.endpoint, "TemperatureControl")
        step = server.read("Step") / 100 if server.has_attribute("Step") else 0.5
        return low, high, step
    if entity.options["number"] == "dryness":
        levels = _read(fabric, entity, "LaundryDryerControls", "SupportedDrynessLevels") or [0]
        return min(levels), max(levels), 1
    return 0, 100, 1


def _number(fabric: EmulatedHome, entity: Entity, topics: Topics) -> dict[str, Any]:
    low, high, step = number_limits(fabric, entity)
    config: dict[str, Any] = {
        "command_topic": topics.command(entity.device_id, entity.key),
        "state_topic": topics.state(entity.device_id, entity.key),
        "value_template": _template("value"),
        "min": low,
        "max": high,
        "step": step,
        "mode": "box" if entity.options["number"] == "temperature" else "slider",
    }
    if entity.options["number"] == "temperature":
        config.update({"device_class": "temperature", "unit_of_measurement": "°C"})
    elif entity.options["number"] == "dryness":  # Matter's DrynessLevelEnum: 0 Low, 1 Normal, 2 Extra, 3 Max
        config.update({"icon": "mdi:tumble-dryer"})
    else:
        config.update({"unit_of_measurement": "%", "icon": "mdi:volume-high"})
    return config


# Home Assistant's water-heater operation modes ↔ Thermostat.SystemMode (Off, Heat)
WATER_HEATER_MODES = {"off": 0, "electric": 4}


def water_heater_limits(fabric: EmulatedHome, entity: Entity) -> tuple[float, float]:
    return (
        _read(fabric, entity, "Thermostat", "MinHeatSetpointLimit") / 100,
        _read(fabric, entity, "Thermostat", "MaxHeatSetpointLimit") / 100,
    )


def _water_heater(fabric: EmulatedHome, entity: Entity, topics: Topics) -> dict[str, Any]:
    state = topics.state(entity.device_id, entity.key)
    low, high = water_heater_limits(fabric, entity)

    def command(field: str) -> str:
        return topics.command(entity.device_id, entity.key, field)

    return {
        "modes": list(WATER_HEATER_MODES),
        "mode_command_topic": command("mode"),
        "mode_state_topic": state,
        "mode_state_template": _template("mode"),
        "temperature_command_topic": command("temperature"),
        "temperature_state_topic": state,
        "temperature_state_template": _template("temperature"),
        "current_temperature_topic": state,
        "current_temperature_template": _template("current_temperature"),
        "min_temp": low,
        "max_temp": high,
        "precision": 0.5,
        "temperature_unit": "C",
    }


VACUUM_PAYLOADS = {
    "payload_start": "start",
    "payload_pause": "pause",
    "payload_stop": "stop",
    "payload_return_to_base": "return_to_base",
}


def _vacuum(fabric: EmulatedHome, entity: Entity, topics: Topics) -> dict[str, Any]:
    # Home Assistant's (state-schema) MQTT vacuum: a JSON state {"state": "cleaning" …} and word commands.
    return {
        "command_topic": topics.command(entity.device_id, entity.key),
        "state_topic": topics.state(entity.device_id, entity.key),
        "supported_features": ["start", "pause", "stop", "return_home", "status"],
        **VACUUM_PAYLOADS,
    }


_BUILDERS = {
    "light": _light,
    "fan": _fan,
    "climate": _climate,
    "cover": _cover,
    "valve": _valve,
    "lock": _lock,
    "switch": _switch,
    "sensor": _sensor,
    "binary_sensor": _binary_sensor,
    "event": _event,
    "button": _button,
    "select": _select,
    "number": _number,
    "vacuum": _vacuum,
    "water_heater": _water_heater,
    "refusal": _refused_event,
}
