"""A one-room home holding one device of every SMH product (a real home config, built by the fabric), and one
device type the view does not map (a smoke alarm)."""

from __future__ import annotations

from agent_tools.smh.products import PRODUCTS
from emulator.emulated_home import EmulatedHome
from emulator.home_config import validate_home

ENVIRONMENT = {"temperature": 2500, "humidity": 5000, "illuminance": 300, "pm10": 10}


def every_product_home() -> EmulatedHome:
    return EmulatedHome(
        validate_home(
            {
                "name": "every-product",
                "base_time": "2025-06-27 20:00:00",
                "rooms": [{"id": "lounge", "name": "Lounge", "type": "living_room", "environment": ENVIRONMENT}],
                "devices": [{"id": t, "type": t, "room": "lounge"} for t in PRODUCTS]
                + [{"id": "smoke_alarm", "type": "smoke_co_alarm", "room": "lounge"}],
            },
            "every-product",
        )
    )
