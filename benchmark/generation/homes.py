"""Episode homes: a seeded SimuHome-like home, a plausible initial state reached through the EmulatedHome,
exported as SimuHome's ``initial_home_config`` and loaded back exactly as an evaluator will load it.

Every check the generator makes (reachability, saturation, cycle ends) runs on a fabric built from
the exported file, never on the fabric that produced it: the episode is what gets verified.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any

from agent_tools.matter_backend.home import ROOM_SENSORS
from agent_tools.matter_backend.twin import TWIN_KEY
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.home_config import HomeConfig, validate_home
from emulator.home_generation.generator import generate_home
from emulator.home_generation.seeds import sub_seed
from emulator.simuhome.export_home import to_simuhome
from emulator.simuhome.import_home import from_simuhome
from emulator.simuhome.paths import GLOBAL_ATTRIBUTES
from emulator.simuhome.shapes import shape_table
from emulator.simuhome.values import chip_cluster_name

# Clusters SimuHome's devices do not have (ours add Identify everywhere); never exported.
_NOT_EXPORTED_CLUSTERS = frozenset({"Identify", "Descriptor"})
# Endpoint 0 as SimuHome shows it: four BasicInformation fields.
_BASIC_INFORMATION = ("VendorName", "VendorID", "ProductName", "ProductID")
APPLIANCE_TYPES = ("dishwasher", "laundry_washer", "laundry_dryer")
AUGMENT_SETTLE_S = (30.0, 60.0)

Mutator = Callable[[EmulatedHome, random.Random], None]


_PINNED_HOME: ContextVar[HomeConfig | None] = ContextVar("pinned_home", default=None)


@contextlib.contextmanager
def pinned_home(config: HomeConfig) -> Iterator[None]:
    """Generate every episode on ``config`` (e.g. the twin of a live Matter home, ``homefabric home twin``)
    instead of a generated home; augmentation still varies its state per episode."""
    token = _PINNED_HOME.set(config)
    try:
        yield
    finally:
        _PINNED_HOME.reset(token)


# --- a twin of a live Matter home: ask only what the live home can answer ------------------------------------
# Room variable → the measurement cluster a live home's room state is read from (MatterHome.room_state).
ROOM_SENSOR_CLUSTERS = {variable: cluster for variable, (cluster, _attribute, _convert) in ROOM_SENSORS.items()}


def twin_only(config: HomeConfig) -> dict[str, set[str]] | None:
    """For a twin of a live home: device → what only the twin serves — attribute paths, and ``ep.Cluster.*``
    for a whole cluster the live device lacks — so no episode asks for it; None for any other home."""
    report = config.extensions.get(TWIN_KEY)
    if not isinstance(report, Mapping):
        return None
    return {
        device_id: set(entry.get("twin_only", [])) | {f"{c}.*" for c in entry.get("absent_clusters", [])}
        for device_id, entry in report.get("devices", {}).items()
    }


def sensed_rooms(fabric: EmulatedHome) -> dict[str, set[str]]:
    """room → the variables a device in it measures (a live home's room state exists only through those)."""
    out: dict[str, set[str]] = {}
    for device in fabric.devices():
        view = fabric.device(device.device_id)
        for variable, cluster in ROOM_SENSOR_CLUSTERS.items():
            if any(view.find(endpoint, cluster) is not None for endpoint in view.endpoints):
                out.setdefault(device.room_id, set()).add(variable)
    return out


def home_config(seed: int, tier: str = "simuhome") -> HomeConfig:
    """A 5-room SimuHome-like home with its 16 device types, or a home of another generator tier (or the pinned
    home, a fresh copy)."""
    pinned = _PINNED_HOME.get()
    if pinned is not None:
        return pinned.model_copy(deep=True)
    return generate_home(tier, seed)


def without_devices(config: HomeConfig, device_ids: Iterable[str]) -> HomeConfig:
    drop = set(device_ids)
    data = config.model_dump(mode="json")
    data["devices"] = [d for d in data["devices"] if d["id"] not in drop]
    return validate_home(data, "<episode home>")


# --- augmentation: a few plausible actions, as a resident would have left the home --------------------
def _try(action: Callable[[], Any]) -> bool:
    try:
        action()
    except HomeError:
        return False
    return True


def random_action(fabric: EmulatedHome, device_id: str, rng: random.Random) -> None:
    """One plausible user action on a device (through the EmulatedHome); refused actions are simply dropped."""
    device = fabric.device(device_id)
    kind = device.device_type
    attrs = fabric.read_all(device_id)
    on = attrs.get("1.OnOff.OnOff")
    if kind in (
        "on_off_light",
        "dimmable_light",
        "tv",
        "fan",
        "air_purifier",
        "humidifier",
        "dehumidifier",
        "air_conditioner",
    ) and (not on or rng.random() < 0.3):
        _try(lambda: fabric.invoke(device_id, 1, "OnOff", "Off" if on else "On", {}))
        return
    if kind == "dimmable_light":
        _try(lambda: fabric.invoke(device_id, 1, "LevelControl", "MoveToLevel", {"Level": rng.randrange(10, 255, 10)}))
    elif kind in ("fan", "air_purifier", "humidifier", "dehumidifier"):
        _try(lambda: fabric.write(device_id, 1, "FanControl", "PercentSetting", rng.randrange(10, 101, 10)))
    elif kind == "air_conditioner":
        if rng.random() < 0.5:
            _try(lambda: fabric.write(device_id, 1, "FanControl", "PercentSetting", rng.randrange(10, 101, 10)))
        else:
            _try(lambda: fabric.write(device_id, 1, "Thermostat", "SystemMode", 3))
    elif kind == "tv":
        _try(lambda: fabric.invoke(device_id, 1, "Channel", "SkipChannel", {"count": rng.choice((1, -1))}))
    elif kind == "window_covering_controller":
        _try(
            lambda: fabric.invoke(
                device_id,
                1,
                "WindowCovering",
                "GoToLiftPercentage",
                {"lift_percent_100ths": rng.randrange(0, 10001, 500)},
            )
        )
    elif kind in APPLIANCE_TYPES and rng.random() < 0.35:
        start_appliance(fabric, device_id, rng)
    elif kind == "rvc" and rng.random() < 0.3:
        _try(lambda: fabric.invoke(device_id, 1, "RvcRunMode", "ChangeToMode", {"new_mode": 2}))
    elif kind in ("refrigerator", "freezer"):
        low, high = (100, 700) if kind == "refrigerator" else (-2300, -1500)
        _try(
            lambda: fabric.invoke(
                device_id,
                1,
                "TemperatureControl",
                "SetTemperature",
                {"target_temperature": rng.randrange(low, high + 1, 100)},
            )
        )


def start_appliance(fabric: EmulatedHome, device_id: str, rng: random.Random) -> bool:
    """Power an appliance on, pick a program and start it; True when it runs."""
    kind = fabric.device(device_id).device_type
    _try(lambda: fabric.invoke(device_id, 1, "OnOff", "On", {}))
    if kind == "dishwasher":
        _try(lambda: fabric.invoke(device_id, 1, "DishwasherMode", "ChangeToMode", {"new_mode": rng.randrange(6)}))
    elif kind == "laundry_washer":
        _try(lambda: fabric.invoke(device_id, 1, "LaundryWasherMode", "ChangeToMode", {"new_mode": rng.randrange(6)}))
    elif kind == "laundry_dryer":
        _try(lambda: fabric.write(device_id, 1, "LaundryDryerControls", "SelectedDrynessLevel", rng.randrange(4)))
    _try(lambda: fabric.invoke(device_id, 1, "OperationalState", "Start", {}))
    return bool(fabric.read(device_id, 1, "OperationalState", "OperationalState") == 1)


def augment(
    fabric: EmulatedHome, rng: random.Random, *, exclude: Iterable[str] = (), rounds: int = 2, share: float = 0.35
) -> None:
    """A few seeded actions, then a short fast-forward so the room physics reacts (SimuHome's augmentation,
    but through the EmulatedHome API)."""
    excluded = set(exclude)
    devices = [d.device_id for d in fabric.devices() if d.device_id not in excluded]
    for _ in range(rounds):
        for device_id in devices:
            if rng.random() < share:
                random_action(fabric, device_id, rng)
    fabric.advance(round(rng.uniform(*AUGMENT_SETTLE_S), 1))
    settle(fabric)


def settle(fabric: EmulatedHome, limit_s: float = 120.0) -> None:
    """Let coverings finish moving and round room states to SimuHome's precision (so the exported numbers
    are exactly what a reloaded home shows)."""
    waited = 0.0
    while waited < limit_s and any(_moving(fabric, d.device_id) for d in fabric.devices()):
        fabric.advance(5)
        waited += 5
    for room in fabric.rooms():
        state = fabric.room_state(room.room_id, exact=True)
        for variable, value in state.items():
            rounded = round(value) if variable in ("temperature", "humidity") else round(value, 2)
            fabric.set_room_state(room.room_id, variable, float(rounded))


def _moving(fabric: EmulatedHome, device_id: str) -> bool:
    device = fabric.device(device_id)
    if device.device_type != "window_covering_controller":
        return False
    return bool(fabric.read(device_id, 1, "WindowCovering", "OperationalStatus"))


# --- export and reload -------------------------------------------------------------------------------
def _exported(path: str) -> bool:
    endpoint, cluster, attribute = path.split(".")
    if attribute in GLOBAL_ATTRIBUTES or cluster in _NOT_EXPORTED_CLUSTERS:
        return False
    if endpoint == "0":
        return cluster == "BasicInformation" and attribute in _BASIC_INFORMATION
    return True


def simuhome_attributes(device_type: str, state: dict[str, Any]) -> dict[str, Any]:
    """A device's state (our paths) cut to what SimuHome's device of that type carries.

    For the 16 types SimuHome publishes, that is exactly the inventory's paths (emulator/simuhome/shapes.json):
    the value we hold there; for a path our device does not implement, SimuHome's null, empty list or constant
    where the inventory shows one (else the path is left out). to_simuhome then writes each value in SimuHome's
    shape. Other types keep every non-global attribute.
    """
    inventory = shape_table().get(device_type)
    if inventory is None:
        return {p: v for p, v in sorted(state.items()) if _exported(p)}
    out: dict[str, Any] = {}
    for path, entry in inventory.items():
        endpoint, cluster, attribute = path.split(".")
        ours = f"{endpoint}.{chip_cluster_name(cluster)}.{attribute}"
        if ours in state:
            out[ours] = state[ours]
        elif "null" in entry.shapes:  # SimuHome's "not implemented"
            out[ours] = None
        elif list(entry.shapes) == ["list[]"]:  # always empty there
            out[ours] = []
        elif list(entry.shapes) == ["int"] and entry.minimum == entry.maximum is not None:
            out[ours] = entry.minimum  # a constant of SimuHome's device (e.g. LevelControl frequencies 0)
    return out


def fabric_state(fabric: EmulatedHome) -> dict[str, Any]:
    """The fabric now, in our home format, restricted to what SimuHome's devices carry."""
    rooms = [
        {"id": r.room_id, "name": r.name, "type": r.type, "environment": fabric.room_state(r.room_id, exact=True)}
        for r in fabric.rooms()
    ]
    devices = [
        {
            "id": d.device_id,
            "type": d.device_type,
            "room": d.room_id,
            "attributes": simuhome_attributes(d.device_type, fabric.read_all(d.device_id)),
        }
        for d in fabric.devices()
    ]
    return {"name": "episode", "base_time": fabric.now_text(), "rooms": rooms, "devices": devices}


def export_initial_home_config(fabric: EmulatedHome) -> dict[str, Any]:
    """SimuHome's reset body for the home as it is now (tick 0 of the episode = now)."""
    config = to_simuhome(validate_home(fabric_state(fabric), "<episode home>"))
    for room in config["rooms"].values():
        room["state"] = {k: room["state"][k] for k in ("temperature", "humidity", "illuminance", "pm10")}
        for device in room["devices"]:
            device["attributes"] = dict(sorted(device["attributes"].items()))
    return config


class EpisodeHome:
    """An exported home and fresh fabrics built from it (one per check; each starts at tick 0)."""

    def __init__(self, initial_home_config: Mapping[str, Any]) -> None:
        self.initial_home_config = dict(initial_home_config)
        self.config, _ = from_simuhome(self.initial_home_config, source="<episode initial_home_config>")

    def fabric(self) -> EmulatedHome:
        return EmulatedHome(self.config)


def build_home(
    seed: int,
    *,
    prepare: Mutator | None = None,
    remove: Callable[[EmulatedHome], Iterable[str]] | None = None,
    exclude: Iterable[str] = (),
    config: HomeConfig | None = None,
) -> tuple[EmulatedHome, EpisodeHome]:
    """Generate, prepare (kind-specific), augment, remove devices, export and reload a home.

    Returns the generating fabric (for looking at the pre-removal home) and the episode home.
    """
    rng = random.Random(sub_seed(seed, "augment"))
    fabric = EmulatedHome(config or home_config(sub_seed(seed, "home")))
    if prepare is not None:
        prepare(fabric, rng)
    augment(fabric, rng, exclude=exclude)
    removed = list(remove(fabric)) if remove is not None else []
    for device_id in removed:
        fabric.remove_device(device_id)
    return fabric, EpisodeHome(export_initial_home_config(fabric))
