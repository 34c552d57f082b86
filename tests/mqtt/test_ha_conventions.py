"""Issue #14, item 6 (of the issue; item 5 of the brief): Home Assistant's current MQTT conventions — colour
temperature in kelvin and friendly device names with the room as suggested area — checked against the schema of
HA's documented discovery payloads (tests/mqtt/ha_schema.py)."""

from __future__ import annotations

import jsonschema

from bridge.mqtt.discovery import device_config, friendly_name
from bridge.mqtt.entities import entities_for
from bridge.mqtt.topics import Topics
from emulator.fabric import Fabric
from emulator.home_generator import generate_home
from tests.mqtt.ha_schema import DEVICE_CONFIG, semantic_problems


def discovery(fabric: Fabric, device_id: str) -> dict:
    device = fabric.device(device_id)
    config = device_config(fabric, device, entities_for(device), Topics("homefabric", "home", "homeassistant"))
    jsonschema.validate(config, DEVICE_CONFIG)
    assert semantic_problems(config) == []
    return config


def test_colour_temperature_is_offered_in_kelvin() -> None:
    fabric = Fabric(generate_home("stress", 2))
    lights = [d for d in fabric.devices() if d.device_type in ("color_temperature_light", "extended_color_light")]
    assert lights
    light = discovery(fabric, lights[0].device_id)["cmps"]["light_1"]
    assert light["color_temp_kelvin"] is True
    assert "min_mireds" not in light and "max_mireds" not in light
    coolest = fabric.read(lights[0].device_id, 1, "ColorControl", "ColorTempPhysicalMinMireds")
    warmest = fabric.read(lights[0].device_id, 1, "ColorControl", "ColorTempPhysicalMaxMireds")
    assert (light["min_kelvin"], light["max_kelvin"]) == (round(1e6 / warmest), round(1e6 / coolest))


def test_devices_have_friendly_names_and_their_room_as_suggested_area() -> None:
    fabric = Fabric(generate_home("complex", 7))
    for device in fabric.devices()[:40]:
        dev = discovery(fabric, device.device_id)["dev"]
        room = fabric.room(device.room_id)
        assert dev["sa"] == room.name
        assert dev["name"] != device.device_id and "_" not in dev["name"]
        assert dev["name"].startswith(room.name) and device.spec.label in dev["name"]
    second = next(d for d in fabric.devices() if d.device_id.endswith("_2"))
    assert friendly_name(second, "Hall").endswith(" 2")
