"""The home as data: a JSON snapshot of time, rooms and devices, the diff of two snapshots, and the home file."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import is_
from typing import Any

from emulator.automations.home_rules import HomeRules
from emulator.clock import TIME_FORMAT, VirtualClock
from emulator.device_readings import BuiltReadings, DeviceReadings
from emulator.home_config import DeviceConfig, EnvironmentState, HomeConfig, RoomConfig
from emulator.home_devices import HomeDevices, persistent_attributes
from emulator.physics import PhysicsEngine
from emulator.workflow_book import WorkflowBook


def _same_values(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether two attribute maps hold equal values of the same types at the same paths (what ``diff`` reports
    no change for): 1, 1.0 and True compare equal, so the types are checked once the values are. Two snapshots
    of a device no write reached between them hold the very same keys and values: told apart by identity alone."""
    if len(old) == len(new) and all(map(is_, old, new)) and all(map(is_, old.values(), new.values())):
        return True
    return old == new and list(map(type, old.values())) == list(map(type, map(new.__getitem__, old)))


class HomeSnapshots:
    """Reads the other owners into plain data (its one state: the devices' last readings, to read only what may
    have changed since; emulator/device_readings.py)."""

    # one per home: no instance dict
    __slots__ = ("_clock", "_devices", "_physics", "_readings", "_room_state", "_rules", "_workflows")

    def __init__(
        self,
        clock: VirtualClock,
        devices: HomeDevices,
        physics: PhysicsEngine,
        workflows: WorkflowBook,
        rules: HomeRules,
        room_state: Callable[..., dict[str, float]],
    ) -> None:
        self._clock = clock
        self._devices = devices
        self._physics = physics
        self._workflows = workflows
        self._rules = rules
        self._room_state = room_state
        self._readings = DeviceReadings()

    def watch_built(self, built: BuiltReadings) -> None:
        """The home was just built from the config of ``built``: what its devices hold now is what every home built
        from that config holds."""
        self._readings.watch_built(self._devices.devices.values(), built)

    def snapshot(self) -> dict[str, Any]:
        """The whole home now, as plain JSON data (deterministic key order)."""
        devices = self._devices
        placed = devices.sorted_devices()
        return {
            "time": self._clock.now_text(),
            "tick": self._clock.tick,
            "base_time": self._clock.base_time.strftime(TIME_FORMAT),
            "rooms": {r.room_id: {"state": self._room_state(r.room_id)} for r in devices.sorted_rooms()},
            "devices": {
                d.device_id: {"device_type": d.device_type, "room_id": d.room_id, "attributes": attributes}
                for d, attributes in zip(placed, self._readings.read(placed), strict=True)
            },
        }

    @staticmethod
    def diff(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Changes between two snapshots: room variables and device attributes, sorted."""
        changes: list[dict[str, Any]] = []
        for room_id in sorted(set(before["rooms"]) | set(after["rooms"])):
            old = before["rooms"].get(room_id, {}).get("state", {})
            new = after["rooms"].get(room_id, {}).get("state", {})
            for key in sorted(set(old) | set(new)):
                if old.get(key) != new.get(key):
                    changes.append(
                        {"kind": "room", "room_id": room_id, "variable": key, "old": old.get(key), "new": new.get(key)}
                    )
        for device_id in sorted(set(before["devices"]) | set(after["devices"])):
            old_d, new_d = before["devices"].get(device_id), after["devices"].get(device_id)
            if old_d is None or new_d is None:
                changes.append({"kind": "device_added" if old_d is None else "device_removed", "device_id": device_id})
                continue
            old_a, new_a = old_d["attributes"], new_d["attributes"]
            if _same_values(old_a, new_a):
                continue  # most devices: nothing changed (one comparison instead of a walk of every path)
            for path in sorted(set(old_a) | set(new_a)):
                if old_a.get(path) != new_a.get(path) or type(old_a.get(path)) is not type(new_a.get(path)):
                    changes.append(
                        {
                            "kind": "attribute",
                            "device_id": device_id,
                            "path": path,
                            "old": old_a.get(path),
                            "new": new_a.get(path),
                        }
                    )
        return changes

    def to_config(self, name: str, seed: int | None, tier: str | None, extensions: dict[str, Any]) -> HomeConfig:
        """The home as it is now, as a config (current environment, baselines, device state)."""
        rooms = []
        for room in self._devices.rooms.values():
            physics_room = self._physics.rooms[room.room_id]
            state = self._room_state(room.room_id, exact=True)  # rounding would move int sensor readings
            rooms.append(
                RoomConfig(
                    id=room.room_id,
                    name=room.name,
                    type=room.type,
                    floor=room.floor,
                    parent=room.parent,
                    environment=EnvironmentState(**state),
                    baseline=EnvironmentState(**{**physics_room.baseline}),
                )
            )
        live = self._physics.sensor_keys()
        devices = [
            DeviceConfig(
                id=d.device_id,
                type=d.device_type,
                room=d.room_id,
                name=d.name,
                attributes=persistent_attributes(d, live),
            )
            for d in self._devices.devices.values()
        ]
        return HomeConfig(
            name=name,
            seed=seed,
            tier=tier,
            base_time=self._clock.now_text(),
            rooms=rooms,
            devices=devices,
            extensions=extensions,
            automations=[rule.model_copy(deep=True) for rule in self._rules.listed()],
            workflows=self._workflows.configs(),
        )
