"""Which Home Assistant entities a device is made of, found from its endpoints and cluster servers.

A device is a composition of cluster behaviours, so the entities are too: an endpoint of a light
device type with OnOff (+ LevelControl, ColorControl) is a light; FanControl a fan; Thermostat a
climate (taking the endpoint's OnOff as its power and FanControl as its fan modes); WindowCovering a
cover; ValveConfigurationAndControl a valve; DoorLock a lock; a leftover OnOff a switch; measurement
clusters sensors; BooleanState, OccupancySensing and SmokeCoAlarm binary sensors; Switch (a button) an
event; the operational-state clusters sensors of state, phase and countdown plus buttons; mode clusters
with ChangeToMode selects; and a "Command refused" event entity on every device that takes
commands.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import clusters.official as Objects
from clusters import ClusterServer
from clusters.cycle_programs import STATE_NAMES
from emulator.device import DeviceView

# Official device-type ids (emulator/catalogue/build.py) that decide how an endpoint is presented.
# Lights, and the Dimmable Plug-In Unit (0x010B), which Home Assistant's Matter integration also shows as a dimmable
# light: its LevelControl is a brightness, not a media volume.
LIGHT_DEVICE_TYPES = frozenset({0x0100, 0x0101, 0x010C, 0x010D, 0x010B})
UNNAMED_SWITCH_DEVICE_TYPES = frozenset({0x010A, 0x0028, 0x0023, 0x0022})  # plug, video players, speaker
CONTACT_SENSOR = 0x0015
WATER_LEAK_DETECTOR = 0x0043
RAIN_SENSOR = 0x0044
WATER_FREEZE_DETECTOR = 0x0041
WATER_HEATER = 0x050F

# Catalogue types whose devices get no Home Assistant entity, and why. A test holds every other catalogue type to at
# least one entity (tests/mqtt/test_ha_conventions.py).
NOT_ANNOUNCED: dict[str, str] = {
    "on_off_light_switch": "a client: it serves only a Binding list and sends OnOff commands to its bound lights",
    "dimmer_switch": "a client: it serves only a Binding list and sends OnOff/LevelControl to its bound lights",
    "color_dimmer_switch": "a client: it serves only a Binding list and sends commands to its bound lights",
    "door_lock_controller": "a client: it serves no cluster; it commands the door locks it is bound to",
    "video_remote_control": "a client: it serves no cluster; it commands the video players it is bound to",
    "pump_controller": "a client: it serves only Identify; the pump it controls has the entities",
    "electrical_sensor": "SimuHome's meter that nothing feeds: its readings never move, so HA would chart zeros",
}

CYCLE_CLUSTERS = ("OperationalState", "OvenCavityOperationalState", "RvcOperationalState")
STATE_ONLY_KINDS = frozenset({"sensor", "binary_sensor", "event", "refusal"})  # entities that take no command
# The "refusal" entity: Home Assistant's event platform on each device's error topic, so that a refused command
# is an event Home Assistant shows (logbook, device page, automations), not only a message on a topic of ours.
# Its payload's event_type is REFUSED_EVENT. ("event" entities are the device's own Matter events.)
REFUSED_KEY = "command_refused"
REFUSED_EVENT = "command_refused"
CYCLE_BUTTONS = ("Start", "Pause", "Resume", "Stop", "GoHome")

_Color = Objects.ColorControl.Bitmaps.Feature
COLOR_HS, COLOR_XY, COLOR_CT = int(_Color.kHueAndSaturation), int(_Color.kXy), int(_Color.kColorTemperature)
_Thermostat = Objects.Thermostat.Bitmaps.Feature
THERMOSTAT_HEAT, THERMOSTAT_COOL = int(_Thermostat.kHeating), int(_Thermostat.kCooling)
THERMOSTAT_AUTO = int(_Thermostat.kAutoMode)
_Cover = Objects.WindowCovering.Bitmaps.Feature
COVER_LIFT_AWARE = int(_Cover.kLift) | int(_Cover.kPositionAwareLift)
COVER_TILT_AWARE = int(_Cover.kTilt) | int(_Cover.kPositionAwareTilt)
_Supply = Objects.EnergyEvse.Enums.SupplyStateEnum
EVSE_CHARGING_SUPPLY = frozenset({int(_Supply.kChargingEnabled), int(_Supply.kEnabled)})  # "charging enabled" is ON
SMOKE_FEATURE = int(Objects.SmokeCoAlarm.Bitmaps.Feature.kSmokeAlarm)
CO_FEATURE = int(Objects.SmokeCoAlarm.Bitmaps.Feature.kCoAlarm)

_Pump = Objects.PumpConfigurationAndControl.Enums.OperationModeEnum
# Selects over a writable enum attribute: cluster → (attribute, name, {option: value}), the values the server allows.
ATTRIBUTE_SELECTS: dict[str, tuple[str, str, dict[str, int]]] = {
    "PumpConfigurationAndControl": (
        "OperationMode",
        "Pump mode",
        {"Normal": int(_Pump.kNormal), "Minimum": int(_Pump.kMinimum), "Maximum": int(_Pump.kMaximum)},
    ),
}

# Sensors: cluster → (sensor kind, attribute)
MEASUREMENT_SENSORS: dict[str, tuple[str, str]] = {
    "TemperatureMeasurement": ("temperature", "MeasuredValue"),
    "RelativeHumidityMeasurement": ("humidity", "MeasuredValue"),
    "IlluminanceMeasurement": ("illuminance", "MeasuredValue"),
    "Pm10ConcentrationMeasurement": ("pm10", "MeasuredValue"),
    "Pm25ConcentrationMeasurement": ("pm25", "MeasuredValue"),
    "AirQuality": ("air_quality", "AirQuality"),
    "PressureMeasurement": ("pressure", "MeasuredValue"),
    "FlowMeasurement": ("volume_flow_rate", "MeasuredValue"),
}


@dataclass(frozen=True)
class Entity:
    """One Home Assistant entity of a device: where its state comes from and what it accepts."""

    device_id: str
    key: str  # unique within the device; a topic level: [a-z0-9_]
    kind: str  # light, fan, climate, cover, lock, switch, sensor, binary_sensor, button, select, number, vacuum …
    endpoint: int
    name: str | None  # None: the device's main entity (Home Assistant uses the device name)
    cluster: str | None = None  # the cluster the entity is about (sensors, buttons, selects)
    options: Mapping[str, Any] = field(default_factory=dict)  # kind-specific facts (features, sensor kind …)

    @property
    def platform(self) -> str:
        return "event" if self.kind == "refusal" else self.kind


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def entities_for(device: DeviceView) -> list[Entity]:
    """The entities of a device, in endpoint order; keys are unique within the device. A device that takes
    commands ends with its "Command refused" event entity (Home Assistant learns there what was refused)."""
    out: list[Entity] = []
    draw = device.spec.power_draw
    for ep_id, endpoint in sorted(device.endpoints.items()):
        if ep_id == 0:
            continue
        clusters: dict[str, ClusterServer] = dict(endpoint.clusters)
        types = {t for t, _ in endpoint.device_types}
        metered = draw is not None and draw.meter_endpoint == ep_id
        out.extend(_endpoint_entities(device.device_id, ep_id, clusters, types, metered=metered))
    commanded = next((e for e in out if e.kind not in STATE_ONLY_KINDS), None)
    if commanded is not None:
        out.append(Entity(device.device_id, REFUSED_KEY, "refusal", commanded.endpoint, "Command refused"))
    return out


def _endpoint_entities(
    device_id: str, ep: int, clusters: dict[str, ClusterServer], types: set[int], *, metered: bool = False
) -> list[Entity]:
    out: list[Entity] = []
    used_on_off = False

    def add(kind: str, key: str, name: str | None, cluster: str | None = None, **options: Any) -> None:
        out.append(Entity(device_id, f"{key}_{ep}", kind, ep, name, cluster, options))

    if "OnOff" in clusters and types & LIGHT_DEVICE_TYPES:
        color = clusters.get("ColorControl")
        color_map = color.feature_map if color is not None else 0
        add(
            "light",
            "light",
            None,
            "OnOff",
            brightness="LevelControl" in clusters,
            color_temp=bool(color_map & COLOR_CT),
            hs=bool(color_map & COLOR_HS),
            xy=bool(color_map & COLOR_XY),
        )
        used_on_off = True
    if "Thermostat" in clusters and WATER_HEATER in types:
        add("water_heater", "water_heater", None, "Thermostat")  # Home Assistant has a platform for these
    elif "Thermostat" in clusters:
        thermostat = clusters["Thermostat"]
        features = thermostat.feature_map
        add(
            "climate",
            "climate",
            None,
            "Thermostat",
            power="OnOff" in clusters,
            fan="FanControl" in clusters,
            heating=bool(features & THERMOSTAT_HEAT),
            cooling=bool(features & THERMOSTAT_COOL),
            auto=bool(features & THERMOSTAT_AUTO),
            humidity="RelativeHumidityMeasurement" in clusters,
        )
        used_on_off = used_on_off or "OnOff" in clusters
    elif "FanControl" in clusters:
        add("fan", "fan", None, "FanControl", power="OnOff" in clusters)
        used_on_off = used_on_off or "OnOff" in clusters
    if "WindowCovering" in clusters:
        features = clusters["WindowCovering"].feature_map
        add(
            "cover",
            "cover",
            None,
            "WindowCovering",
            lift=features & COVER_LIFT_AWARE == COVER_LIFT_AWARE,
            tilt=features & COVER_TILT_AWARE == COVER_TILT_AWARE,
        )
    if "ValveConfigurationAndControl" in clusters:
        add("valve", "valve", None, "ValveConfigurationAndControl")
    if "EnergyEvse" in clusters:  # HA has no charger platform: charging allowed is a switch (EnableCharging/Disable)
        add("switch", "charging", "Charging enabled", "EnergyEvse")
    if "DoorLock" in clusters:
        add("lock", "lock", None, "DoorLock", pin=bool(getattr(clusters["DoorLock"], "pin", None)))
    setpoint = clusters.get("TemperatureControl")
    if setpoint is not None and setpoint.has_attribute("TemperatureSetpoint"):
        add("number", "setpoint", "Temperature setpoint", "TemperatureControl", number="temperature")
    if "LevelControl" in clusters and not types & LIGHT_DEVICE_TYPES:  # a media device's level is its volume
        add("number", "volume", "Volume", "LevelControl", number="volume")
    if "LaundryDryerControls" in clusters:  # HA has no dryer platform; a number of the dryness level (0 = Low…)
        add("number", "dryness", "Dryness level", "LaundryDryerControls", number="dryness")
    if "OnOff" in clusters and not used_on_off:
        add("switch", "switch", None if types & UNNAMED_SWITCH_DEVICE_TYPES else "Power", "OnOff")

    for cluster_name, (sensor, attribute) in MEASUREMENT_SENSORS.items():
        server = clusters.get(cluster_name)
        if server is not None and server.has_attribute(attribute) and "Thermostat" not in clusters:
            add("sensor", sensor, _SENSOR_NAMES[sensor], cluster_name, sensor=sensor, attribute=attribute)
    power = clusters.get("ElectricalPowerMeasurement")
    # A meter whose power nothing ever sets (no value now, no power-draw rule of the device type) would only ever
    # be "unknown" in Home Assistant: left out, with the energy integrated from it (Home Assistant's rule: an
    # entity that can have no state is not created).
    if power is not None and power.has_attribute("ActivePower") and power.read("ActivePower") is None and not metered:
        power = None
        clusters = {name: server for name, server in clusters.items() if name != "ElectricalEnergyMeasurement"}
    if power is not None and power.has_attribute("ActivePower"):
        add("sensor", "power", "Power", "ElectricalPowerMeasurement", sensor="power", attribute="ActivePower")
        # An AC meter's voltage and current are sensors too (Home Assistant's voltage/current device classes).
        for attribute, sensor, name in (("Voltage", "voltage", "Voltage"), ("ActiveCurrent", "current", "Current")):
            if power.has_attribute(attribute) and power.read(attribute) is not None:
                add("sensor", sensor, name, "ElectricalPowerMeasurement", sensor=sensor, attribute=attribute)
    energy = clusters.get("ElectricalEnergyMeasurement")
    if energy is not None and energy.has_attribute("CumulativeEnergyImported"):
        add(
            "sensor",
            "energy",
            "Energy",
            "ElectricalEnergyMeasurement",
            sensor="energy",
            attribute="CumulativeEnergyImported",
        )
    if energy is not None and energy.has_attribute("CumulativeEnergyExported"):  # solar, a battery's discharge
        add(
            "sensor",
            "energy_exported",
            "Energy exported",
            "ElectricalEnergyMeasurement",
            sensor="energy",
            attribute="CumulativeEnergyExported",
        )
    source = clusters.get("PowerSource")
    if source is not None and source.has_attribute("BatPercentRemaining"):
        add("sensor", "battery", "Battery", "PowerSource", sensor="battery", attribute="BatPercentRemaining")

    switch = clusters.get("Switch")
    if switch is not None:  # a button: its presses are Home Assistant events, e.g. "multi_press_complete"
        add("event", "button", "Button", "Switch", event_types=[snake(e) for e in switch.supported_events()])
    if "OccupancySensing" in clusters:
        add("binary_sensor", "occupancy", "Occupancy", "OccupancySensing", sensor="occupancy")
    if "BooleanState" in clusters:
        if WATER_LEAK_DETECTOR in types:
            add("binary_sensor", "leak", "Leak", "BooleanState", sensor="moisture")
        elif RAIN_SENSOR in types:
            add("binary_sensor", "rain", "Rain", "BooleanState", sensor="moisture")
        elif WATER_FREEZE_DETECTOR in types:
            add("binary_sensor", "freeze", "Freeze", "BooleanState", sensor="cold")
        else:  # contact sensors (and any other BooleanState): StateValue true = in contact = closed
            add("binary_sensor", "contact", "Contact", "BooleanState", sensor="opening")
    alarm = clusters.get("SmokeCoAlarm")
    if alarm is not None:
        if alarm.feature_map & SMOKE_FEATURE:
            add("binary_sensor", "smoke", "Smoke", "SmokeCoAlarm", sensor="smoke")
        if alarm.feature_map & CO_FEATURE:
            add("binary_sensor", "carbon_monoxide", "Carbon monoxide", "SmokeCoAlarm", sensor="carbon_monoxide")

    if "RvcOperationalState" in clusters and "RvcRunMode" in clusters:
        add("vacuum", "vacuum", None, "RvcOperationalState")
    for cluster_name in CYCLE_CLUSTERS:
        cycle = clusters.get(cluster_name)
        if cycle is None:
            continue
        states = [cycle_state_name(s["operationalStateID"]) for s in cycle.read("OperationalStateList")]
        add(
            "sensor",
            "operational_state",
            "Operational state",
            cluster_name,
            sensor="operational_state",
            attribute="OperationalState",
            states=states,
        )
        if cycle.read("PhaseList"):  # Matter: a null PhaseList means the device has no phases
            add("sensor", "phase", "Phase", cluster_name, sensor="phase", attribute="CurrentPhase")
        add("sensor", "countdown", "Time remaining", cluster_name, sensor="countdown", attribute="CountdownTime")
        for command in CYCLE_BUTTONS:
            if command in cycle.command_names():
                add("button", snake(command), _BUTTON_NAMES[command], cluster_name, command=command)
    for cluster_name, (attribute, label, choices) in ATTRIBUTE_SELECTS.items():
        if cluster_name in clusters:  # a select that writes an enum attribute (no mode list, no ChangeToMode)
            add("select", snake(attribute), label, cluster_name, attribute=attribute, choices=choices)
    for cluster_name, server in clusters.items():
        if server.has_attribute("SupportedModes") and "ChangeToMode" in server.command_names():
            name = _mode_name(cluster_name)
            add("select", name.lower().replace(" ", "_"), name, cluster_name)
    return out


_SENSOR_NAMES = {
    "temperature": "Temperature",
    "humidity": "Humidity",
    "illuminance": "Illuminance",
    "pm10": "PM10",
    "pm25": "PM2.5",
    "air_quality": "Air quality",
    "pressure": "Pressure",
    "volume_flow_rate": "Flow",
}
_BUTTON_NAMES = {"Start": "Start", "Pause": "Pause", "Resume": "Resume", "Stop": "Stop", "GoHome": "Go home"}


def _mode_name(cluster: str) -> str:
    if cluster == "RvcRunMode":
        return "Run mode"
    if cluster == "RvcCleanMode":
        return "Clean mode"
    return "Mode"


def cycle_state_name(state_id: int) -> str:
    """OperationalState value → "stopped", "running", "seeking_charger" …"""
    return snake(STATE_NAMES.get(state_id, f"state_{state_id}"))
