"""JSON Schemas of what Home Assistant requires of a device-based discovery payload (HA 2024.11+),
per component platform we emit, plus the unit each sensor device class accepts."""

from __future__ import annotations

from typing import Any

TOPIC = {"type": "string", "minLength": 1, "pattern": r"^[^#+]+$"}  # no wildcards in a publish topic
TEMPLATE = {"type": "string", "pattern": r"^\{\{ value_json\.[a-z_]+ \}\}$"}

SENSOR_DEVICE_CLASSES = [
    "temperature",
    "humidity",
    "illuminance",
    "pm10",
    "pm25",
    "power",
    "energy",
    "battery",
    "duration",
    "enum",
    "aqi",
    "voltage",
    "current",
    "pressure",
    "volume_flow_rate",
]
SENSOR_UNITS = {
    "temperature": {"°C", "°F", "K"},
    "humidity": {"%"},
    "illuminance": {"lx"},
    "pm10": {"µg/m³"},
    "pm25": {"µg/m³"},
    "power": {"W", "kW"},
    "energy": {"Wh", "kWh"},
    "battery": {"%"},
    "duration": {"s", "min", "h", "d"},
    "voltage": {"V", "mV"},
    "current": {"A", "mA"},
    "pressure": {"Pa", "hPa", "kPa", "bar", "cbar", "mbar", "mmHg", "inHg", "psi"},
    "volume_flow_rate": {"m³/h", "ft³/min", "L/min", "gal/min", "mL/s"},
}
BINARY_SENSOR_CLASSES = [
    "occupancy",
    "opening",
    "door",
    "window",
    "moisture",
    "smoke",
    "carbon_monoxide",
    "motion",
    "cold",
]
COVER_CLASSES = ["awning", "blind", "curtain", "damper", "door", "garage", "gate", "shade", "shutter", "window"]
HVAC_MODES = ["auto", "off", "cool", "heat", "dry", "fan_only", "heat_cool"]
COLOR_MODES = ["onoff", "brightness", "color_temp", "hs", "xy", "rgb", "rgbw", "rgbww", "white"]

COMMON = {
    "type": "object",
    "required": ["p", "unique_id"],
    "properties": {
        "p": {
            "enum": [
                "light",
                "fan",
                "climate",
                "cover",
                "valve",
                "event",
                "lock",
                "sensor",
                "binary_sensor",
                "switch",
                "button",
                "select",
                "number",
                "vacuum",
                "water_heater",
            ]
        },
        "unique_id": {"type": "string", "pattern": r"^[A-Za-z0-9_-]+$"},
        "name": {"type": ["string", "null"]},
        "default_entity_id": {"type": "string", "pattern": r"^[a-z_]+\.[a-z0-9_]+$"},
    },
}

PLATFORMS: dict[str, dict[str, Any]] = {
    "water_heater": {  # https://www.home-assistant.io/integrations/water_heater.mqtt/
        "required": [],
        "properties": {
            "modes": {
                "type": "array",
                "minItems": 1,
                "uniqueItems": True,
                "items": {"enum": ["off", "eco", "electric", "gas", "heat_pump", "high_demand", "performance"]},
            },
            "mode_command_topic": TOPIC,
            "mode_state_topic": TOPIC,
            "mode_state_template": TEMPLATE,
            "temperature_command_topic": TOPIC,
            "temperature_state_topic": TOPIC,
            "temperature_state_template": TEMPLATE,
            "current_temperature_topic": TOPIC,
            "current_temperature_template": TEMPLATE,
            "min_temp": {"type": "number"},
            "max_temp": {"type": "number"},
            "precision": {"enum": [0.1, 0.5, 1.0]},
            "temperature_unit": {"enum": ["C", "F"]},
        },
    },
    "vacuum": {  # https://www.home-assistant.io/integrations/vacuum.mqtt/ (the state schema, the only one left)
        "required": ["command_topic", "state_topic"],
        "properties": {
            "command_topic": TOPIC,
            "state_topic": TOPIC,
            "send_command_topic": TOPIC,
            "supported_features": {
                "type": "array",
                "uniqueItems": True,
                "items": {
                    "enum": [
                        "start",
                        "stop",
                        "pause",
                        "return_home",
                        "battery",
                        "status",
                        "locate",
                        "clean_spot",
                        "fan_speed",
                        "send_command",
                    ]
                },
            },
            "payload_start": {"type": "string"},
            "payload_pause": {"type": "string"},
            "payload_stop": {"type": "string"},
            "payload_return_to_base": {"type": "string"},
        },
        "not": {"anyOf": [{"required": ["schema"]}, {"required": ["value_template"]}]},
    },
    "number": {  # https://www.home-assistant.io/integrations/number.mqtt/
        "required": ["command_topic"],
        "properties": {
            "command_topic": TOPIC,
            "state_topic": TOPIC,
            "value_template": TEMPLATE,
            "min": {"type": "number"},
            "max": {"type": "number"},
            "step": {"type": "number", "exclusiveMinimum": 0},
            "mode": {"enum": ["auto", "box", "slider"]},
            "unit_of_measurement": {"type": "string"},
            "device_class": {
                "enum": [
                    "temperature",
                    "humidity",
                    "power",
                    "energy",
                    "duration",
                    "volume",
                    "sound_pressure",
                    "battery",
                    "illuminance",
                ]
            },
        },
    },
    "light": {
        "required": ["schema", "command_topic", "state_topic", "supported_color_modes"],
        "properties": {
            "schema": {"const": "json"},
            "command_topic": TOPIC,
            "state_topic": TOPIC,
            "brightness": {"type": "boolean"},
            "brightness_scale": {"const": 255},
            "supported_color_modes": {
                "type": "array",
                "minItems": 1,
                "uniqueItems": True,
                "items": {"enum": COLOR_MODES},
            },
            # Kelvin, Home Assistant's unit since 2024.12 (mireds deprecated, removed in 2026.3).
            "color_temp_kelvin": {"const": True},
            "min_kelvin": {"type": "integer", "minimum": 1},
            "max_kelvin": {"type": "integer", "minimum": 1},
        },
        "not": {"anyOf": [{"required": ["min_mireds"]}, {"required": ["max_mireds"]}]},
    },
    "fan": {
        "required": ["command_topic"],
        "properties": {
            "command_topic": TOPIC,
            "state_topic": TOPIC,
            "state_value_template": TEMPLATE,
            "percentage_command_topic": TOPIC,
            "percentage_state_topic": TOPIC,
            "percentage_value_template": TEMPLATE,
            "speed_range_min": {"type": "integer", "minimum": 1},
            "speed_range_max": {"type": "integer", "minimum": 1},
        },
    },
    "climate": {
        "required": [
            "modes",
            "mode_command_topic",
            "temperature_command_topic",
            "current_temperature_topic",
            "temperature_unit",
            "min_temp",
            "max_temp",
        ],
        "properties": {
            "modes": {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"enum": HVAC_MODES}},
            "mode_command_topic": TOPIC,
            "mode_state_topic": TOPIC,
            "mode_state_template": TEMPLATE,
            "temperature_command_topic": TOPIC,
            "temperature_state_topic": TOPIC,
            "temperature_state_template": TEMPLATE,
            "current_temperature_topic": TOPIC,
            "current_temperature_template": TEMPLATE,
            "temperature_unit": {"enum": ["C", "F"]},
            "min_temp": {"type": "number"},
            "max_temp": {"type": "number"},
            "temp_step": {"type": "number"},
            "fan_modes": {"type": "array", "items": {"type": "string"}},
            "fan_mode_command_topic": TOPIC,
            "temperature_low_command_topic": TOPIC,
            "temperature_high_command_topic": TOPIC,
        },
    },
    "cover": {
        "required": ["command_topic", "state_topic"],
        "properties": {
            "device_class": {"enum": COVER_CLASSES},
            "command_topic": TOPIC,
            "state_topic": TOPIC,
            "value_template": TEMPLATE,
            "position_topic": TOPIC,
            "position_template": TEMPLATE,
            "set_position_topic": TOPIC,
            "position_open": {"const": 100},
            "position_closed": {"const": 0},
            "tilt_command_topic": TOPIC,
            "tilt_status_topic": TOPIC,
        },
    },
    "event": {  # https://www.home-assistant.io/integrations/event.mqtt/
        "required": ["state_topic", "event_types"],
        "properties": {
            "state_topic": TOPIC,
            "device_class": {"enum": ["button", "doorbell", "motion"]},
            "event_types": {
                "type": "array",
                "minItems": 1,
                "uniqueItems": True,
                "items": {"type": "string", "pattern": r"^[a-z_]+$"},
            },
            "entity_category": {"enum": ["diagnostic"]},
        },  # the "Command refused" event
        "not": {"anyOf": [{"required": ["command_topic"]}]},
    },
    "valve": {  # https://www.home-assistant.io/integrations/valve.mqtt/
        "required": ["command_topic"],
        "properties": {
            "device_class": {"enum": ["water", "gas"]},
            "command_topic": TOPIC,
            "state_topic": TOPIC,
            "value_template": TEMPLATE,
            "reports_position": {"const": False},
            "payload_open": {"type": "string"},
            "payload_close": {"type": "string"},
            "state_open": {"const": "open"},
            "state_opening": {"const": "opening"},
            "state_closed": {"const": "closed"},
            "state_closing": {"const": "closing"},
        },
    },
    "lock": {
        "required": ["command_topic"],
        "properties": {
            "command_topic": TOPIC,
            "state_topic": TOPIC,
            "value_template": TEMPLATE,
            "payload_lock": {"type": "string"},
            "payload_unlock": {"type": "string"},
        },
    },
    "sensor": {
        "required": ["state_topic"],
        "properties": {
            "state_topic": TOPIC,
            "value_template": TEMPLATE,
            "device_class": {"enum": SENSOR_DEVICE_CLASSES},
            "state_class": {"enum": ["measurement", "total", "total_increasing"]},
            "unit_of_measurement": {"type": "string"},
            "options": {"type": "array", "minItems": 1},
        },
    },
    "binary_sensor": {
        "required": ["state_topic"],
        "properties": {
            "state_topic": TOPIC,
            "value_template": TEMPLATE,
            "device_class": {"enum": BINARY_SENSOR_CLASSES},
        },
    },
    "switch": {"required": ["command_topic"], "properties": {"command_topic": TOPIC, "state_topic": TOPIC}},
    "button": {
        "required": ["command_topic"],
        "properties": {"command_topic": TOPIC, "payload_press": {"type": "string"}},
    },
    "select": {
        "required": ["command_topic", "options"],
        "properties": {
            "command_topic": TOPIC,
            "state_topic": TOPIC,
            "options": {"type": "array", "minItems": 1, "items": {"type": "string"}},
        },
    },
}

COMPONENT = {
    **COMMON,
    "allOf": [
        {
            "if": {"properties": {"p": {"const": platform}}},
            "then": {key: rules[key] for key in ("required", "properties", "not") if key in rules},
        }
        for platform, rules in PLATFORMS.items()
    ],
}

DEVICE_CONFIG = {
    "type": "object",
    "required": ["dev", "o", "cmps"],
    "properties": {
        "dev": {
            "type": "object",
            "required": ["ids", "name"],
            "properties": {
                "ids": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                "name": {"type": "string"},
                "mf": {"type": "string"},
                "mdl": {"type": "string"},
                "sw": {"type": "string"},
                "sa": {"type": "string"},
            },
        },
        "o": {
            "type": "object",
            "required": ["name"],
            "properties": {"name": {"type": "string"}, "sw": {"type": "string"}, "url": {"type": "string"}},
        },
        "availability": {
            "type": "array",
            "items": {"type": "object", "required": ["topic"], "properties": {"topic": TOPIC}},
        },
        "qos": {"enum": [0, 1, 2]},
        "cmps": {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": COMPONENT,
            "propertyNames": {"pattern": r"^[a-z0-9_]+$"},
        },
    },
}


def semantic_problems(config: dict[str, Any]) -> list[str]:
    """Rules JSON Schema does not express well: units per device class, colour-mode exclusivity …"""
    problems = []
    for key, component in config["cmps"].items():
        platform = component["p"]
        if platform == "sensor":
            device_class = component.get("device_class")
            unit = component.get("unit_of_measurement")
            if device_class == "enum":
                if unit is not None or "state_class" in component or not component.get("options"):
                    problems.append(f"{key}: an enum sensor needs options and no unit/state_class")
            elif device_class in SENSOR_UNITS and unit not in SENSOR_UNITS[device_class]:
                problems.append(f"{key}: unit {unit!r} is not valid for device class {device_class}")
        if platform == "light":
            modes = component["supported_color_modes"]
            if ("onoff" in modes or "brightness" in modes) and len(modes) > 1:
                problems.append(f"{key}: onoff/brightness must be the only colour mode")
            if "color_temp" in modes and not (
                component.get("color_temp_kelvin") and component["min_kelvin"] < component["max_kelvin"]
            ):
                problems.append(f"{key}: colour temperature needs color_temp_kelvin and min_kelvin < max_kelvin")
            if modes != ["onoff"] and not component.get("brightness"):
                problems.append(f"{key}: colour modes other than onoff imply brightness")
        if platform == "number":
            if not component.get("min", 1) < component.get("max", 100):
                problems.append(f"{key}: min must be below max")
            if (
                component.get("device_class") == "temperature"
                and component.get("unit_of_measurement") not in SENSOR_UNITS["temperature"]
            ):
                problems.append(f"{key}: a temperature number needs °C, °F or K")
        if platform == "climate" and not component["min_temp"] < component["max_temp"]:
            problems.append(f"{key}: min_temp must be below max_temp")
    return problems
