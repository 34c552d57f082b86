"""Ready-made activity for demos and benchmarks: a busy day in a home, through the public API only; and the acts
of the world that no Matter command performs — a button pressed, a light switch flipped, turned or tinted (its
commands then go to the lights its Binding names), a vehicle plugged in, water where a detector sees it — each on
one device, refused with a HomeError (state unchanged) when the device cannot do it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

from clusters import ClusterServer
from clusters.chip_model import cluster_model
from emulator.catalogue import CATALOGUE
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.home_results import InvokeResult
from emulator.workflows import WorkflowStep

ServerT = TypeVar("ServerT", bound=ClusterServer)
# Device types whose BooleanState reports water (StateValue true = water present).
WATER_DETECTORS = ("water_leak_detector", "water_freeze_detector", "rain_sensor")

# (device type, [(kind, endpoint, cluster, name, args-or-value)]) — what "a busy day" does to each type.
_ACTIONS: dict[str, list[tuple[str, int, str, str, Any]]] = {
    "air_conditioner": [
        ("invoke", 1, "OnOff", "On", {}),
        ("write", 1, "Thermostat", "SystemMode", 3),
        ("write", 1, "Thermostat", "OccupiedCoolingSetpoint", 2300),
        ("write", 1, "FanControl", "PercentSetting", 60),
    ],
    "heat_pump": [
        ("write", 4, "Thermostat", "SystemMode", 4),
        ("write", 4, "Thermostat", "OccupiedHeatingSetpoint", 2100),
    ],
    "air_purifier": [("invoke", 1, "OnOff", "On", {}), ("write", 1, "FanControl", "PercentSetting", 50)],
    "fan": [("invoke", 1, "OnOff", "On", {}), ("write", 1, "FanControl", "PercentSetting", 40)],
    "dehumidifier": [("invoke", 1, "OnOff", "On", {}), ("write", 1, "FanControl", "PercentSetting", 70)],
    "humidifier": [("invoke", 1, "OnOff", "On", {}), ("write", 1, "FanControl", "PercentSetting", 30)],
    "dimmable_light": [("invoke", 1, "LevelControl", "MoveToLevelWithOnOff", {"Level": 180, "TransitionTime": 20})],
    "on_off_light": [("invoke", 1, "OnOff", "On", {})],
    "dishwasher": [("invoke", 1, "OnOff", "On", {}), ("invoke", 1, "OperationalState", "Start", {})],
    "laundry_washer": [("invoke", 1, "OnOff", "On", {}), ("invoke", 1, "OperationalState", "Start", {})],
    "laundry_dryer": [("invoke", 1, "OnOff", "On", {}), ("invoke", 1, "OperationalState", "Start", {})],
    "rvc": [("invoke", 1, "RvcRunMode", "ChangeToMode", {"NewMode": 2})],
    "window_covering_controller": [
        ("invoke", 1, "WindowCovering", "GoToLiftPercentage", {"LiftPercent100thsValue": 5000})
    ],
    "refrigerator": [("invoke", 1, "TemperatureControl", "SetTemperature", {"TargetTemperature": 400})],
}


def start_typical_day(home: EmulatedHome) -> list[dict[str, Any]]:
    """Switch on climate devices, start every appliance, light the rooms. Returns what succeeded."""
    done: list[dict[str, Any]] = []
    for device in home.devices():
        for kind, endpoint, cluster, name, payload in _ACTIONS.get(device.device_type, []):
            step = (
                WorkflowStep.invoke(device.device_id, endpoint, cluster, name, payload)
                if kind == "invoke"
                else WorkflowStep.write(device.device_id, endpoint, cluster, name, payload)
            )
            try:
                home.apply(step)
            except HomeError:
                continue  # e.g. already running: a busy day tolerates it
            done.append({"device_id": device.device_id, "kind": kind, "path": f"{endpoint}.{cluster}.{name}"})
    return done


def press_button(
    home: EmulatedHome, device_id: str, presses: int = 1, *, long: bool = False, hold_s: float = 2.0
) -> float:
    """Press a button (a Generic Switch) ``presses`` times, or hold it ``hold_s`` seconds; its Switch events
    follow in virtual time. Returns the seconds the sequence lasts."""
    from clusters.switch import SwitchServer  # loaded with its first use, as the registry loads servers

    switch = _world_server(home, device_id, "Switch", SwitchServer, "a button (generic_switch)")
    try:
        return switch.press(presses, long=long, hold_s=hold_s)
    except HomeError as error:
        raise error.at(f"press_button {device_id!r}") from None


def plug_in_vehicle(home: EmulatedHome, device_id: str, demand_kWh: float = 20.0) -> int:
    """A vehicle wanting ``demand_kWh`` plugs into an EV charger; returns the new session's SessionID."""
    from clusters.energy_evse import EnergyEvseServer  # loaded with its first use, as the registry loads servers

    evse = _world_server(home, device_id, "EnergyEvse", EnergyEvseServer, "an EV charger (evse)")
    try:
        return evse.plug_in(demand_kWh * 1_000_000)
    except HomeError as error:
        raise error.at(f"plug_in_vehicle {device_id!r}") from None


def unplug_vehicle(home: EmulatedHome, device_id: str) -> None:
    from clusters.energy_evse import EnergyEvseServer  # loaded with its first use, as the registry loads servers

    evse = _world_server(home, device_id, "EnergyEvse", EnergyEvseServer, "an EV charger (evse)")
    try:
        evse.unplug()
    except HomeError as error:
        raise error.at(f"unplug_vehicle {device_id!r}") from None


def sense_water(home: EmulatedHome, device_id: str, present: bool) -> None:
    """Water appears at (or leaves) a leak detector, freeze detector or rain sensor."""
    from clusters.boolean_state import BooleanStateServer  # loaded with its first use, as the registry loads servers

    device = home.device(device_id)
    if device.device_type not in WATER_DETECTORS:
        raise HomeError(
            "WRONG_DEVICE_TYPE",
            f"sense_water: {device_id!r} is a {device.device_type}, not a water detector",
            allowed=list(WATER_DETECTORS),
        )
    detector = _world_server(home, device_id, "BooleanState", BooleanStateServer, "a water detector")
    detector.set_state(present)


@dataclass(frozen=True, slots=True)
class SwitchSend(InvokeResult):
    """One command a switch sent to a bound light: the light's answer, or its refusal (``refused``)."""

    refused: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**InvokeResult.to_dict(self), "refused": self.refused}


def flip_switch(home: EmulatedHome, device_id: str, on: bool | None = None) -> list[SwitchSend]:
    """Flip a light switch (any of the three): OnOff Toggle (or On / Off when ``on`` says which) to every light
    its Binding list names for OnOff. Returns what it sent; a light that refuses does not stop the others."""
    command = "Toggle" if on is None else ("On" if on else "Off")
    return _send_to_bound(home, device_id, "OnOff", command, {})


def dim_switch(home: EmulatedHome, device_id: str, level: int) -> list[SwitchSend]:
    """Turn a dimmer (or colour dimmer) switch to ``level`` (1–254): LevelControl MoveToLevelWithOnOff to every
    light bound for LevelControl."""
    return _send_to_bound(home, device_id, "LevelControl", "MoveToLevelWithOnOff", {"Level": level})


def tint_switch(home: EmulatedHome, device_id: str, mireds: int) -> list[SwitchSend]:
    """Set a colour dimmer switch's colour temperature: ColorControl MoveToColorTemperature (``mireds``) to every
    light bound for ColorControl."""
    return _send_to_bound(home, device_id, "ColorControl", "MoveToColorTemperature", {"ColorTemperatureMireds": mireds})


def _send_to_bound(
    home: EmulatedHome, device_id: str, cluster: str, command: str, args: dict[str, Any]
) -> list[SwitchSend]:
    device = home.device(device_id)
    cluster_id = cluster_model(cluster).cluster_id
    descriptor = device.find(1, "Descriptor")
    if device.find(1, "Binding") is None or descriptor is None or cluster_id not in descriptor.read("ClientList"):
        raise HomeError(
            "WRONG_DEVICE_TYPE",
            f"{device_id!r} is a {device.device_type}, which does not send {cluster} commands",
            allowed=_senders(cluster_id),
        )
    sent: list[SwitchSend] = []
    for target, endpoint in home.bound_targets(device_id, cluster):
        try:
            response = home.invoke(target, endpoint, cluster, command, args).response
        except HomeError as error:
            sent.append(SwitchSend(target, endpoint, cluster, command, None, error.to_dict()))
            continue
        sent.append(SwitchSend(target, endpoint, cluster, command, response))
    return sent


def turn_on_cook_surface(home: EmulatedHome, device_id: str, surface: int, level: int | None = None) -> None:
    """Someone switches a cooktop's surface on at the hob (Matter lets a controller only switch it off), at
    ``level`` (its SelectedTemperatureLevel: 0 Low, 1 Medium, 2 High) or the level it has."""
    from clusters.on_off import OnOffServer  # loaded with its first use, as the registry loads servers

    device = home.device(device_id)
    surfaces = (
        sorted(ep for role, ep in device.spec.roles if role == "compartment") if device.device_type == "cooktop" else []
    )
    if surface not in surfaces:
        raise HomeError(
            "WRONG_DEVICE_TYPE" if not surfaces else "ENDPOINT_NOT_FOUND",
            f"turn_on_cook_surface: {device_id!r} ({device.device_type}) has no cook surface on endpoint {surface!r}",
            allowed={"surfaces": surfaces} if surfaces else {"device_type": "cooktop"},
        )
    if level is not None:
        home.invoke(device_id, surface, "TemperatureControl", "SetTemperature", {"TargetTemperatureLevel": level})
    for endpoint in (1, surface):  # the hob itself comes on with its first surface
        _world_server(home, device_id, "OnOff", OnOffServer, "a cooktop", endpoint=endpoint).set("OnOff", True)


def _senders(cluster_id: int) -> list[str]:
    """The catalogue's switch types that are clients of ``cluster_id`` and have a Binding list."""
    return sorted(
        spec.name
        for spec in CATALOGUE.values()
        for endpoint in spec.endpoints
        for c in endpoint.clusters
        if c.cluster == "Descriptor"
        and cluster_id in c.options.get("client_clusters", ())
        and any(b.cluster == "Binding" for b in endpoint.clusters)
    )


def _world_server(
    home: EmulatedHome, device_id: str, cluster: str, kind: type[ServerT], what: str, *, endpoint: int | None = None
) -> ServerT:
    device = home.device(device_id)
    for where in sorted(device.endpoints) if endpoint is None else [endpoint]:
        server = device.find(where, cluster)
        if isinstance(server, kind):
            return server
    raise HomeError(
        "WRONG_DEVICE_TYPE", f"{device_id!r} is a {device.device_type}, not {what}", allowed={"cluster": cluster}
    )
