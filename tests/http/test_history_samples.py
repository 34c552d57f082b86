"""Every history sample is the home's room state at its tick, computed from the devices as they are then: lights
switched and dimmed (level transitions), coverings moving, a light added and one removed between samples. The
reference recomputes each room from its trajectories and live devices (nothing remembered between samples), so a
sampling shortcut that kept a stale light or covering would differ here."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from bridge.http.events_ws import Message
from bridge.http.history import EnvironmentHistory
from emulator.emulated_home import EmulatedHome
from emulator.home_config import DeviceConfig
from emulator.physics import VARIABLES
from emulator.physics_terms import covering_factor, lights_lux
from tests.http.live_api import DIMMER, LIGHT, home

COVERING = "living_room_window_covering_controller_1"
REMOVED = "living_room_on_off_light_1"


def _reference(fabric: EmulatedHome) -> dict[str, dict[str, float]]:
    physics = fabric.physics
    rooms: dict[str, dict[str, float]] = {}
    for room in fabric.rooms():
        devices = list(physics.devices_in(room.room_id))
        state = {variable: physics.value(room.room_id, variable) for variable in VARIABLES}
        state["illuminance"] = physics.rooms[room.room_id].daylight * physics.sky() * covering_factor(
            physics.params, devices
        ) + lights_lux(physics.params, devices)
        rooms[room.room_id] = {
            key: round(state[key], 2) + 0.0 for key in ("temperature", "humidity", "illuminance", "pm10")
        }
    return rooms


def test_each_sample_is_the_room_state_of_the_devices_at_its_tick() -> None:
    fabric = home()
    checked: list[dict[str, Any]] = []

    def check(message: Message, key: Hashable) -> None:
        entry = message() if callable(message) else message
        assert entry["rooms"] == _reference(fabric), f"sample at tick {entry['tick']}"
        checked.append(entry)

    history = EnvironmentHistory(fabric, check, interval_s=60, capacity=50)
    history.start()
    unread = EnvironmentHistory(fabric, interval_s=60, capacity=50)  # its samples are first read at the end
    unread.start()
    fabric.advance(6 * 3600 + 30)  # from midday into the evening: daylight moves
    acts: list[tuple[str, str, str, dict[str, Any] | None]] = [
        (LIGHT, "OnOff", "On", None),
        (DIMMER, "LevelControl", "MoveToLevel", {"level": 200, "transitionTime": 600}),  # a minute of steps
        (COVERING, "WindowCovering", "GoToLiftPercentage", {"liftPercent100thsValue": 9000}),
        (LIGHT, "OnOff", "Off", None),
        (DIMMER, "OnOff", "Off", None),
    ]
    for device_id, cluster, command, args in acts:
        fabric.invoke(device_id, 1, cluster, command, args)
        fabric.advance(150)
    fabric.remove_device(REMOVED)
    fabric.advance(150)
    fabric.add_device(DeviceConfig(id="living_room_lamp_9", type="dimmable_light", room="living_room"))
    fabric.advance(150)
    fabric.invoke("living_room_lamp_9", 1, "OnOff", "Off")
    fabric.advance(150)
    lux = [sample["rooms"]["living_room"]["illuminance"] for sample in checked]
    assert len(checked) == 1 + (6 * 3600 + 30 + 8 * 150) // 60
    assert len(set(lux[-25:])) > 5  # the living room's light really moved while it was checked
    # samples computed when first read, long after their tick, are the states at their tick
    assert unread.query() == [{k: entry[k] for k in ("tick", "time", "rooms")} for entry in checked[-50:]]
    history.stop()
    unread.stop()
