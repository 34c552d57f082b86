"""SMH-style products for our device types: typed attributes read from clusters, typed services that become
cluster commands/writes, and components for multi-function devices (a fan-light's ``light.*``/``fan.*``).

Each fact of the mapping lives here once: the attribute's constraint vocabulary (type, range, options,
precision, unit), how it is read from the cluster, and how a service becomes Matter steps. Units are the
paper's (brightness 1–100 %, colour temperature in Kelvin, curtain position 0 = closed … 100 = open).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from emulator.home_api import HomeAPI
from emulator.workflows import WorkflowStep

LEVEL_MAX = 254
KELVIN_STEP = 100  # the precision that makes Kelvin ↔ mireds round-trip exactly over 2700–6500 K


@dataclass(frozen=True)
class Param:
    """A typed value: an attribute's schema or a service argument's (the paper's constraint vocabulary)."""

    name: str
    type: str  # str | bool | int | float | enum
    description: str
    range: tuple[float, float] | None = None
    options: tuple[str, ...] | None = None
    precision: float | None = None
    unit: str | None = None

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "description": self.description, "type": self.type}
        for key in ("range", "options", "precision", "unit"):
            value = getattr(self, key)
            if value is not None:
                out[key] = list(value) if isinstance(value, tuple) else value
        return out

    def problem(self, value: object) -> tuple[str, str] | None:
        """(code, sentence) when ``value`` breaks this schema, else None."""
        if value is None:
            return "NONE_VALUE", f"{self.name} is None; give a {self.type}"
        kinds: dict[str, type[Any] | tuple[type[Any], ...]] = {
            "int": int,
            "float": (int, float),
            "bool": bool,
            "str": str,
            "enum": str,
        }
        wanted = kinds[self.type]
        if (
            (isinstance(value, bool) and self.type != "bool")
            or not isinstance(value, wanted)
            or (isinstance(value, float) and not math.isfinite(value))
        ):
            return "WRONG_TYPE", f"{self.name}={value!r} is a {type(value).__name__}, expected {self.type}"
        if self.options is not None and value not in self.options:
            return "NOT_AN_OPTION", f"{self.name}={value!r} is not one of {list(self.options)}"
        if self.range is not None and not self.range[0] <= value <= self.range[1]:
            return "OUT_OF_RANGE", f"{self.name}={value!r} is outside [{self.range[0]:g}, {self.range[1]:g}]"
        if self.precision is not None and abs(value / self.precision - round(value / self.precision)) > 1e-9:
            return "BAD_PRECISION", f"{self.name}={value!r} is not a multiple of {self.precision:g}"
        return None


class Port:
    """One device seen from a component: reads through the fabric's public API, relative to an endpoint."""

    def __init__(self, fabric: HomeAPI, device_id: str, endpoint: int) -> None:
        self.fabric, self.device_id, self.endpoint = fabric, device_id, endpoint

    def read(self, cluster: str, attribute: str, endpoint: int | None = None) -> Any:
        return self.fabric.read(self.device_id, endpoint or self.endpoint, cluster, attribute)

    def invoke(self, cluster: str, command: str, args: Mapping[str, Any] | None = None) -> WorkflowStep:
        return WorkflowStep("invoke", self.device_id, self.endpoint, cluster, command, dict(args or {}))

    def write(self, cluster: str, attribute: str, value: object) -> WorkflowStep:
        return WorkflowStep("write", self.device_id, self.endpoint, cluster, attribute, value=value)


@dataclass(frozen=True)
class Attribute:
    param: Param
    read: Callable[[Port], Any]
    matter: str  # the cluster attribute it is read from (documentation and --format smh)
    # For rule triggers/conditions: (endpoint offset path, encode) — a monotone map onto the cluster value.
    condition: tuple[str, Callable[[Any], Any]] | None = None


@dataclass(frozen=True)
class Service:
    name: str
    description: str
    steps: Callable[[Port, dict[str, Any]], list[WorkflowStep]]
    matter: str
    arguments: tuple[Param, ...] = ()
    # Argument values the device offers in its current state, where that is a subset of the options (a washer
    # programme's spin speeds): a call outside it is refused as the device would, naming what is offered now.
    offered: Callable[[Port], Mapping[str, tuple[str, ...]]] | None = None

    def schema(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "arguments": [{**a.schema(), "required": True} for a in self.arguments],
            "matter": self.matter,
        }


@dataclass(frozen=True)
class Function:
    """The attributes and services of one function; a device has one, a multi-function device several."""

    attributes: tuple[Attribute, ...]
    services: tuple[Service, ...]

    def __add__(self, other: Function) -> Function:
        return Function(self.attributes + other.attributes, self.services + other.services)


@dataclass(frozen=True)
class Product:
    category: str
    subcategory: str
    description: str
    parts: tuple[tuple[str | None, int, Function], ...]  # (component name or None, endpoint, function)
    tags: tuple[str, ...] = field(default=())


# --------------------------------------------------------------------------------- value conversions
def level_to_percent(level: int | None, floor: int) -> int:
    return max(floor, min(100, round((level or 0) * 100 / LEVEL_MAX)))


def percent_to_level(percent: int) -> int:
    return round(percent * LEVEL_MAX / 100)


def mireds_to_kelvin(mireds: int) -> int:
    return int(round(1_000_000 / mireds / KELVIN_STEP) * KELVIN_STEP)


def kelvin_to_mireds(kelvin: int) -> int:
    return round(1_000_000 / kelvin)


AC_MODES = {"off": 0, "cool": 3, "heat": 4, "fan_only": 7, "dry": 8}
FAN_SPEEDS = {"off": 0, "low": 1, "medium": 2, "high": 3}
PLAYBACK = {0: "playing", 1: "paused", 2: "stopped", 3: "buffering"}
RVC_STATES = {0: "standby", 1: "cleaning", 2: "paused", 3: "error", 0x40: "returning", 0x41: "charging", 0x42: "docked"}
RVC_SUCTION = {"vacuum": 1, "deep_clean": 2, "mop": 3}
OPTIONS_EXECUTE_IF_OFF = {"optionsMask": 1, "optionsOverride": 1}  # set brightness without switching on


# --------------------------------------------------------------------------------- functions
def _on_off() -> Function:
    state = Attribute(
        Param("state", "enum", "Power state.", options=("on", "off")),
        lambda p: "on" if p.read("OnOff", "OnOff") else "off",
        "OnOff.OnOff",
        ("OnOff.OnOff", lambda v: v == "on"),
    )
    return Function(
        (state,),
        (
            Service("turn_on", "Switch it on.", lambda p, a: [p.invoke("OnOff", "On")], "OnOff.On"),
            Service("turn_off", "Switch it off.", lambda p, a: [p.invoke("OnOff", "Off")], "OnOff.Off"),
        ),
    )


BRIGHTNESS = Param("brightness", "int", "Light level.", range=(1, 100), precision=1, unit="percentage")
COLOR_TEMPERATURE = Param(
    "color_temperature",
    "int",
    "White colour temperature (2700 = warmest).",
    range=(2700, 6500),
    precision=KELVIN_STEP,
    unit="Kelvin",
)


def _light(dimmable: bool, tunable: bool) -> Function:
    out = _on_off()
    if dimmable:
        out += Function(
            (
                Attribute(
                    BRIGHTNESS,
                    lambda p: level_to_percent(p.read("LevelControl", "CurrentLevel"), 1),
                    "LevelControl.CurrentLevel (level = brightness × 254 / 100)",
                    ("LevelControl.CurrentLevel", percent_to_level),
                ),
            ),
            (
                Service(
                    "set_brightness",
                    "Set the light level (does not switch it on).",
                    lambda p, a: [
                        p.invoke(
                            "LevelControl",
                            "MoveToLevel",
                            {"level": percent_to_level(a["brightness"]), "transitionTime": 0, **OPTIONS_EXECUTE_IF_OFF},
                        )
                    ],
                    "LevelControl.MoveToLevel",
                    (BRIGHTNESS,),
                ),
            ),
        )
    if tunable:
        out += Function(
            (
                Attribute(
                    COLOR_TEMPERATURE,
                    lambda p: mireds_to_kelvin(p.read("ColorControl", "ColorTemperatureMireds")),
                    "ColorControl.ColorTemperatureMireds (mireds = 10^6 / Kelvin)",
                ),
            ),
            (
                Service(
                    "set_color_temperature",
                    "Set the white colour temperature.",
                    lambda p, a: [
                        p.invoke(
                            "ColorControl",
                            "MoveToColorTemperature",
                            {
                                "colorTemperatureMireds": kelvin_to_mireds(a["color_temperature"]),
                                "transitionTime": 0,
                                **OPTIONS_EXECUTE_IF_OFF,
                            },
                        )
                    ],
                    "ColorControl.MoveToColorTemperature",
                    (COLOR_TEMPERATURE,),
                ),
            ),
        )
    return out


SPEED = Param("speed_level", "enum", "Fan speed.", options=("low", "medium", "high"))


def _fan() -> Function:
    return _on_off() + Function(
        (
            Attribute(
                Param("speed_level", "enum", "Fan speed (off when stopped).", options=tuple(FAN_SPEEDS)),
                lambda p: {v: k for k, v in FAN_SPEEDS.items()}.get(p.read("FanControl", "FanMode"), "auto"),
                "FanControl.FanMode (0 off, 1 low, 2 medium, 3 high)",
            ),
        ),
        (
            Service(
                "set_speed_level",
                "Set the fan speed.",
                lambda p, a: [p.write("FanControl", "FanMode", FAN_SPEEDS[a["speed_level"]])],
                "write FanControl.FanMode",
                (SPEED,),
            ),
        ),
    )


AC_MODE = Param("ac_mode", "enum", "Operating mode.", options=("cool", "heat", "dry", "fan_only"))
TARGET_TEMPERATURE = Param(
    "target_temperature", "float", "Target temperature.", range=(16, 30), precision=0.5, unit="Celsius"
)


def _setpoint(p: Port) -> str:
    return (
        "OccupiedHeatingSetpoint"
        if p.read("Thermostat", "SystemMode") == AC_MODES["heat"]
        else "OccupiedCoolingSetpoint"
    )


def _ac() -> Function:
    return _on_off() + Function(
        (
            Attribute(
                Param("ac_mode", "enum", "Operating mode.", options=tuple(AC_MODES)),
                lambda p: {v: k for k, v in AC_MODES.items()}.get(p.read("Thermostat", "SystemMode"), "auto"),
                "Thermostat.SystemMode (0 off, 3 cool, 4 heat, 7 fan only, 8 dry)",
            ),
            Attribute(
                TARGET_TEMPERATURE,
                lambda p: p.read("Thermostat", _setpoint(p)) / 100,
                "Thermostat.OccupiedHeatingSetpoint in heat mode, else OccupiedCoolingSetpoint (0.01 °C)",
            ),
        ),
        (
            Service(
                "set_ac_mode",
                "Set the operating mode (the AC must be on).",
                lambda p, a: [p.write("Thermostat", "SystemMode", AC_MODES[a["ac_mode"]])],
                "write Thermostat.SystemMode",
                (AC_MODE,),
            ),
            Service(
                "set_target_temperature",
                "Set the target temperature of the current mode (the AC must be on).",
                lambda p, a: [p.write("Thermostat", _setpoint(p), round(a["target_temperature"] * 100))],
                "write Thermostat.Occupied{Heating|Cooling}Setpoint",
                (TARGET_TEMPERATURE,),
            ),
        ),
    )


POSITION = Param(
    "position", "int", "How far open (0 closed, 100 fully open).", range=(0, 100), precision=1, unit="percentage"
)


def _cover_position(p: Port) -> int:
    target: int | None = p.read("WindowCovering", "TargetPositionLiftPercent100ths")
    if target is None:
        target = p.read("WindowCovering", "CurrentPositionLiftPercent100ths") or 0
    return 100 - round(target / 100)


def _cover() -> Function:
    def go(percent_open: int) -> Callable[[Port, dict[str, Any]], list[WorkflowStep]]:
        return lambda p, a: [
            p.invoke("WindowCovering", "GoToLiftPercentage", {"liftPercent100thsValue": (100 - percent_open) * 100})
        ]

    return Function(
        (Attribute(POSITION, _cover_position, "WindowCovering.TargetPositionLiftPercent100ths (closed = 10000)"),),
        (
            Service("open", "Open fully.", go(100), "WindowCovering.GoToLiftPercentage 0"),
            Service("close", "Close fully.", go(0), "WindowCovering.GoToLiftPercentage 10000"),
            Service(
                "set_position",
                "Open to a position.",
                lambda p, a: go(a["position"])(p, a),
                "WindowCovering.GoToLiftPercentage",
                (POSITION,),
            ),
        ),
    )


VOLUME = Param("volume_level", "int", "Volume.", range=(0, 100), precision=1, unit="percentage")


def _player() -> Function:
    return _on_off() + Function(
        (
            Attribute(
                VOLUME,
                lambda p: level_to_percent(p.read("LevelControl", "CurrentLevel"), 0),
                "LevelControl.CurrentLevel (level = volume × 254 / 100)",
            ),
            Attribute(
                Param("work_state", "enum", "Playback state.", options=tuple(PLAYBACK.values())),
                lambda p: PLAYBACK.get(p.read("MediaPlayback", "CurrentState"), "stopped"),
                "MediaPlayback.CurrentState",
            ),
        ),
        (
            Service(
                "set_volume",
                "Set the volume (the player must be on).",
                lambda p, a: [
                    p.invoke(
                        "LevelControl",
                        "MoveToLevel",
                        {
                            "level": percent_to_level(a["volume_level"]),
                            "transitionTime": 0,
                            "optionsMask": 0,
                            "optionsOverride": 0,
                        },
                    )
                ],
                "LevelControl.MoveToLevel",
                (VOLUME,),
            ),
            Service("play", "Play.", lambda p, a: [p.invoke("MediaPlayback", "Play")], "MediaPlayback.Play"),
            Service("pause", "Pause.", lambda p, a: [p.invoke("MediaPlayback", "Pause")], "MediaPlayback.Pause"),
            Service("stop", "Stop.", lambda p, a: [p.invoke("MediaPlayback", "Stop")], "MediaPlayback.Stop"),
        ),
    )


SUCTION = Param("suction", "enum", "Cleaning mode.", options=tuple(RVC_SUCTION))


def _vacuum() -> Function:
    return Function(
        (
            Attribute(
                Param("work_state", "enum", "What the cleaner is doing.", options=tuple(RVC_STATES.values())),
                lambda p: RVC_STATES.get(p.read("RvcOperationalState", "OperationalState"), "error"),
                "RvcOperationalState.OperationalState",
            ),
            Attribute(
                SUCTION,
                lambda p: {v: k for k, v in RVC_SUCTION.items()}.get(p.read("RvcCleanMode", "CurrentMode"), "vacuum"),
                "RvcCleanMode.CurrentMode",
            ),
        ),
        (
            Service(
                "start",
                "Start cleaning.",
                lambda p, a: [p.invoke("RvcRunMode", "ChangeToMode", {"newMode": 2})],
                "RvcRunMode.ChangeToMode 2 (Vacuum)",
            ),
            Service(
                "pause",
                "Pause cleaning.",
                lambda p, a: [p.invoke("RvcOperationalState", "Pause")],
                "RvcOperationalState.Pause",
            ),
            Service(
                "return_to_base",
                "Go back to the dock.",
                lambda p, a: [p.invoke("RvcOperationalState", "GoHome")],
                "RvcOperationalState.GoHome",
            ),
            Service(
                "set_suction",
                "Set the cleaning mode.",
                lambda p, a: [p.invoke("RvcCleanMode", "ChangeToMode", {"newMode": RVC_SUCTION[a["suction"]]})],
                "RvcCleanMode.ChangeToMode",
                (SUCTION,),
            ),
        ),
    )


def _lock() -> Function:
    return Function(
        (
            Attribute(
                Param("state", "enum", "Bolt state.", options=("locked", "unlocked")),
                lambda p: "locked" if p.read("DoorLock", "LockState") == 1 else "unlocked",
                "DoorLock.LockState",
            ),
        ),
        (
            Service("lock", "Lock.", lambda p, a: [p.invoke("DoorLock", "LockDoor")], "DoorLock.LockDoor"),
            Service("open", "Unlock.", lambda p, a: [p.invoke("DoorLock", "UnlockDoor")], "DoorLock.UnlockDoor"),
        ),
    )


def _centi(cluster: str, endpoint: int) -> Callable[[Port], Any]:
    return lambda p: round((p.read(cluster, "MeasuredValue", endpoint) or 0) / 100, 2)


def _climate_sensor() -> Function:
    return Function(
        (
            Attribute(
                Param("current_temperature", "float", "Measured temperature.", precision=0.01, unit="Celsius"),
                _centi("TemperatureMeasurement", 1),
                "1.TemperatureMeasurement.MeasuredValue (0.01 °C)",
                ("TemperatureMeasurement.MeasuredValue", lambda v: round(v * 100)),
            ),
            Attribute(
                Param("current_humidity", "float", "Measured relative humidity.", precision=0.01, unit="percentage"),
                _centi("RelativeHumidityMeasurement", 2),
                "2.RelativeHumidityMeasurement.MeasuredValue (0.01 %)",
                ("RelativeHumidityMeasurement.MeasuredValue@2", lambda v: round(v * 100)),
            ),
        ),
        (),
    )


def _human_sensor() -> Function:
    return Function(
        (
            Attribute(
                Param("human_detected", "enum", "Someone is there.", options=("yes", "no")),
                lambda p: "yes" if (p.read("OccupancySensing", "Occupancy") or 0) & 1 else "no",
                "OccupancySensing.Occupancy bit 0",
                ("OccupancySensing.Occupancy", lambda v: 1 if v == "yes" else 0),
            ),
        ),
        (),
    )


VALVE_STATES = {"closed": 0, "open": 1}  # ValveStateEnum kClosed/kOpen (kTransitioning = 2 reads as its target)


def _valve_state(p: Port) -> str:
    """Where the valve is, or is going while it travels (3 s): the state a service call just asked for."""
    target = p.read("ValveConfigurationAndControl", "TargetState")
    current = target if target is not None else p.read("ValveConfigurationAndControl", "CurrentState")
    return "open" if current == VALVE_STATES["open"] else "closed"


def _command_service(name: str, description: str, cluster: str, command: str) -> Service:
    """A service without arguments that is one cluster command."""
    return Service(name, description, lambda p, a: [p.invoke(cluster, command)], f"{cluster}.{command}")


def _valve() -> Function:
    """A water valve: open/closed with open and close (SMH-Bench's cover vocabulary; no level: on/off only)."""
    return Function(
        (
            Attribute(
                Param("state", "enum", "Whether water can flow.", options=tuple(VALVE_STATES)),
                _valve_state,
                "ValveConfigurationAndControl.TargetState, else CurrentState (0 closed, 1 open)",
                ("ValveConfigurationAndControl.CurrentState", lambda v: VALVE_STATES[v]),
            ),
        ),
        (
            _command_service("open", "Open the valve (until closed).", "ValveConfigurationAndControl", "Open"),
            _command_service("close", "Close the valve.", "ValveConfigurationAndControl", "Close"),
        ),
    )


def _leak_sensor() -> Function:
    return Function(
        (
            Attribute(
                Param("leak_detected", "enum", "Water is at the sensor.", options=("yes", "no")),
                lambda p: "yes" if p.read("BooleanState", "StateValue") else "no",
                "BooleanState.StateValue (true = water)",
                ("BooleanState.StateValue", lambda v: v == "yes"),
            ),
        ),
        (),
    )


# Matter mode numbers of the appliance mode clusters (clusters/modes.py tables; a test reads the devices'
# SupportedModes and checks these agree), keyed by the snake-case label agents use.
WATER_HEATER_MODES = {"off": 0, "manual": 1, "timed": 2}
OVEN_MODES = {
    "bake": 0,
    "convection": 1,
    "grill": 2,
    "roast": 3,
    "clean": 4,
    "convection_bake": 5,
    "convection_roast": 6,
    "warming": 7,
    "proofing": 8,
}
WASHER_MODES = {"normal": 0, "delicate": 1, "heavy": 2, "whites": 3, "quick_normal": 4, "heavy_whites": 5}
DISHWASHER_MODES = {"normal": 0, "heavy_duty": 1, "light_wash": 2, "quick_wash": 3, "low_energy": 4, "silent": 5}
DRYNESS_LEVELS = {"low": 0, "normal": 1, "extra": 2, "max": 3}  # LaundryDryerControls DrynessLevelEnum
OPERATIONAL_STATES = {0: "stopped", 1: "running", 2: "paused", 3: "error"}  # OperationalStateEnum
BOOST_DURATION_S = 3600  # start_heating's boost: the tank reaches the target quantity within an hour
WATER_HEATER_LIMITS = (30, 80)  # °C: the catalogue's heat_limits (Min/MaxHeatSetpointLimit), checked by a test


def _by_value(table: Mapping[str, int], value: object, default: str) -> str:
    return next((k for k, v in table.items() if v == value), default)


def _mode(cluster: str, name: str, table: Mapping[str, int], description: str) -> tuple[Param, Attribute, Service]:
    """A Mode Base cluster as an enum attribute plus its ``set_<name>`` service (ChangeToMode)."""
    param = Param(name, "enum", description, options=tuple(table))
    attribute = Attribute(
        param,
        lambda p: _by_value(table, p.read(cluster, "CurrentMode"), "unknown"),
        f"{cluster}.CurrentMode ({', '.join(f'{v} {k}' for k, v in table.items())})",
    )
    service = Service(
        f"set_{name}",
        f"Choose the {name.replace('_', ' ')}.",
        lambda p, a: [p.invoke(cluster, "ChangeToMode", {"newMode": table[a[name]]})],
        f"{cluster}.ChangeToMode",
        (param,),
    )
    return param, attribute, service


def _temperature_setpoint(param: Param, service_name: str, description: str) -> tuple[Attribute, Service]:
    """TemperatureControl's setpoint (0.01 °C) as a whole-degree attribute plus the service that sets it."""
    attribute = Attribute(
        param,
        lambda p: round(p.read("TemperatureControl", "TemperatureSetpoint") / 100),
        "TemperatureControl.TemperatureSetpoint (0.01 °C)",
    )
    service = Service(
        service_name,
        description,
        lambda p, a: [p.invoke("TemperatureControl", "SetTemperature", {"targetTemperature": a[param.name] * 100})],
        "TemperatureControl.SetTemperature",
        (param,),
    )
    return attribute, service


def _cycle(cluster: str = "OperationalState", *, pause: bool = True) -> Function:
    """An appliance's programme cycle: its state and start/stop (and pause where the cluster has it)."""
    services = [
        Service("start", "Start the programme.", lambda p, a: [p.invoke(cluster, "Start")], f"{cluster}.Start"),
        Service("stop", "Stop the programme.", lambda p, a: [p.invoke(cluster, "Stop")], f"{cluster}.Stop"),
    ]
    if pause:
        services.append(
            Service("pause", "Pause the programme.", lambda p, a: [p.invoke(cluster, "Pause")], f"{cluster}.Pause")
        )
    return Function(
        (
            Attribute(
                Param("work_state", "enum", "What the programme is doing.", options=tuple(OPERATIONAL_STATES.values())),
                lambda p: OPERATIONAL_STATES.get(p.read(cluster, "OperationalState"), "error"),
                f"{cluster}.OperationalState (0 stopped, 1 running, 2 paused, 3 error)",
            ),
        ),
        tuple(services),
    )


WORK_MODE = Param(
    "work_mode", "enum", "How the heater runs: manual (now) or timed (by its schedule).", options=("manual", "timed")
)
WATER_QUANTITY = Param(
    "target_water_quantity", "int", "How much of the tank to heat.", range=(10, 100), precision=10, unit="percentage"
)
WATER_TEMPERATURE = Param(
    "target_water_temperature",
    "int",
    "Target water temperature.",
    range=WATER_HEATER_LIMITS,
    precision=1,
    unit="Celsius",
)


def _water_heater() -> Function:
    _, mode_attribute, mode_service = _mode(
        "WaterHeaterMode", "work_mode", WATER_HEATER_MODES, "Heater mode (off, manual, timed)."
    )

    def start(p: Port, a: dict[str, Any]) -> list[WorkflowStep]:
        # Validated against the cluster limits first (the params mirror them), so no step is refused after
        # another one ran: mode, setpoint, then the boost that heats the tank to the wanted fill.
        return [
            p.invoke("WaterHeaterMode", "ChangeToMode", {"newMode": WATER_HEATER_MODES[a["work_mode"]]}),
            p.write("Thermostat", "OccupiedHeatingSetpoint", a["target_water_temperature"] * 100),
            p.invoke(
                "WaterHeaterManagement",
                "Boost",
                {"boostInfo": {"duration": BOOST_DURATION_S, "targetPercentage": a["target_water_quantity"]}},
            ),
        ]

    return Function(
        (
            mode_attribute,
            Attribute(
                WATER_TEMPERATURE,
                lambda p: round(p.read("Thermostat", "OccupiedHeatingSetpoint") / 100),
                "Thermostat.OccupiedHeatingSetpoint (0.01 °C)",
                ("Thermostat.OccupiedHeatingSetpoint", lambda v: round(v * 100)),
            ),
            Attribute(
                Param("heating_state", "enum", "Whether a heating run (boost) is on.", options=("heating", "idle")),
                lambda p: "heating" if p.read("WaterHeaterManagement", "BoostState") == 1 else "idle",
                "WaterHeaterManagement.BoostState (1 active)",
            ),
            Attribute(
                Param(
                    "water_quantity",
                    "int",
                    "Hot water in the tank now (read-only; rises while heating).",
                    range=(0, 100),
                    precision=1,
                    unit="percentage",
                ),
                lambda p: p.read("WaterHeaterManagement", "TankPercentage"),
                "WaterHeaterManagement.TankPercentage",
            ),
        ),
        (
            Service(
                "start_heating",
                "Heat the tank: mode, how much water and how hot (all three required).",
                start,
                "WaterHeaterMode.ChangeToMode + write Thermostat.OccupiedHeatingSetpoint + "
                "WaterHeaterManagement.Boost(targetPercentage)",
                (WORK_MODE, WATER_QUANTITY, WATER_TEMPERATURE),
            ),
            Service(
                "stop_heating",
                "Stop the heating run.",
                lambda p, a: [p.invoke("WaterHeaterManagement", "CancelBoost")],
                "WaterHeaterManagement.CancelBoost",
            ),
            Service(
                "set_target_water_temperature",
                "Set the target water temperature.",
                lambda p, a: [p.write("Thermostat", "OccupiedHeatingSetpoint", a["target_water_temperature"] * 100)],
                "write Thermostat.OccupiedHeatingSetpoint",
                (WATER_TEMPERATURE,),
            ),
            mode_service,
        ),
    )


OVEN_TEMPERATURE = Param(
    "target_temperature", "int", "Cavity temperature setpoint.", range=(50, 250), precision=5, unit="Celsius"
)


def _oven() -> Function:
    _, mode_attribute, mode_service = _mode("OvenMode", "work_mode", OVEN_MODES, "Cooking mode.")
    temperature, set_temperature = _temperature_setpoint(
        OVEN_TEMPERATURE, "set_target_temperature", "Set the cavity temperature (works while cooking too)."
    )
    return _cycle("OvenCavityOperationalState", pause=False) + Function(
        (mode_attribute, temperature), (mode_service, set_temperature)
    )


WASH_TEMPERATURE = Param("water_temperature", "int", "Wash temperature.", range=(5, 95), precision=1, unit="Celsius")


def _washer() -> Function:
    _, mode_attribute, mode_service = _mode("LaundryWasherMode", "wash_mode", WASHER_MODES, "Wash programme.")
    temperature, set_temperature = _temperature_setpoint(
        WASH_TEMPERATURE, "set_water_temperature", "Set the wash temperature."
    )
    return (
        _on_off()
        + _cycle()
        + Function((mode_attribute, temperature), (mode_service, set_temperature))
        + _washer_options()
    )


DRYNESS = Param("dryness_level", "enum", "How dry the laundry should end.", options=tuple(DRYNESS_LEVELS))


def _dryer() -> Function:
    return (
        _on_off()
        + _cycle()
        + Function(
            (
                Attribute(
                    DRYNESS,
                    lambda p: _by_value(
                        DRYNESS_LEVELS, p.read("LaundryDryerControls", "SelectedDrynessLevel"), "normal"
                    ),
                    "LaundryDryerControls.SelectedDrynessLevel",
                ),
            ),
            (
                Service(
                    "set_dryness_level",
                    "Choose the dryness level (not while running).",
                    lambda p, a: [
                        p.write("LaundryDryerControls", "SelectedDrynessLevel", DRYNESS_LEVELS[a["dryness_level"]])
                    ],
                    "write LaundryDryerControls.SelectedDrynessLevel",
                    (DRYNESS,),
                ),
            ),
        )
    )


SPIN_SPEED_LABELS = ("low", "medium", "high", "extra_high")  # LaundryWasherControls' SpinSpeeds, snake-cased
RINSES = {"none": 0, "normal": 1, "extra": 2, "max": 3}  # LaundryWasherControls NumberOfRinsesEnum
SPIN_SPEED = Param(
    "spin_speed", "enum", "Spin speed (each wash programme offers some of them).", options=SPIN_SPEED_LABELS
)
RINSE_COUNT = Param(
    "rinses", "enum", "How many rinses (each wash programme offers some of them).", options=tuple(RINSES)
)


def _snake(label: str) -> str:
    return label.strip().lower().replace(" ", "_").replace("-", "_")


def _spin_speed(p: Port) -> str:
    speeds, current = p.read("LaundryWasherControls", "SpinSpeeds"), p.read("LaundryWasherControls", "SpinSpeedCurrent")
    return _snake(speeds[current]) if current is not None and current < len(speeds) else "none"


def _offered_spin_speeds(p: Port) -> tuple[str, ...]:
    """The device's SpinSpeeds now (they follow the wash programme); Matter's value is an index into them."""
    return tuple(_snake(s) for s in p.read("LaundryWasherControls", "SpinSpeeds"))


def _offered_rinses(p: Port) -> tuple[str, ...]:
    supported = p.read("LaundryWasherControls", "SupportedRinses")
    return tuple(name for name, value in RINSES.items() if value in supported)


def _washer_options() -> Function:
    return Function(
        (
            Attribute(
                Param("spin_speed", "enum", SPIN_SPEED.description, options=(*SPIN_SPEED_LABELS, "none")),
                _spin_speed,
                "LaundryWasherControls.SpinSpeeds[SpinSpeedCurrent]",
            ),
            Attribute(
                RINSE_COUNT,
                lambda p: _by_value(RINSES, p.read("LaundryWasherControls", "NumberOfRinses"), "none"),
                "LaundryWasherControls.NumberOfRinses (0 none, 1 normal, 2 extra, 3 max)",
            ),
        ),
        (
            Service(
                "set_spin_speed",
                "Choose the spin speed (one the current programme offers; not while running).",
                lambda p, a: [
                    p.write("LaundryWasherControls", "SpinSpeedCurrent", _offered_spin_speeds(p).index(a["spin_speed"]))
                ],
                "write LaundryWasherControls.SpinSpeedCurrent (index into SpinSpeeds)",
                (SPIN_SPEED,),
                offered=lambda p: {"spin_speed": _offered_spin_speeds(p)},
            ),
            Service(
                "set_rinses",
                "Choose the number of rinses (one the current programme offers; not while running).",
                lambda p, a: [p.write("LaundryWasherControls", "NumberOfRinses", RINSES[a["rinses"]])],
                "write LaundryWasherControls.NumberOfRinses",
                (RINSE_COUNT,),
                offered=lambda p: {"rinses": _offered_rinses(p)},
            ),
        ),
    )


def _dishwasher() -> Function:
    _, mode_attribute, mode_service = _mode("DishwasherMode", "wash_mode", DISHWASHER_MODES, "Wash programme.")
    return _on_off() + _cycle() + Function((mode_attribute,), (mode_service,))


MICROWAVE_MODES = {"normal": 0, "defrost": 1}
MICROWAVE_COOK_TIME = (1, 3600)  # s: 1..MaxCookTime (the catalogue's microwave), checked by a test
MICROWAVE_POWER = (10, 100, 10)  # %: the spec's fixed PowerSetting limits without PowerNumberLimits, checked by a test
COOKING_TIME = Param(
    "target_cooking_time", "int", "How long to cook.", range=MICROWAVE_COOK_TIME, precision=1, unit="second"
)
POWER_LEVEL = Param(
    "power_level", "int", "Microwave power.", range=MICROWAVE_POWER[:2], precision=MICROWAVE_POWER[2], unit="percentage"
)
MICROWAVE_MODE = Param("work_mode", "enum", "Cooking mode.", options=tuple(MICROWAVE_MODES))


def _cooking_parameters(p: Port, **change: int) -> WorkflowStep:
    """SetCookingParameters resets every field it is not given (mode to Normal, time to 30 s, power to the
    maximum), so each service passes the device's current values for the fields it does not change."""
    fields = {
        "cookMode": p.read("MicrowaveOvenMode", "CurrentMode"),
        "cookTime": p.read("MicrowaveOvenControl", "CookTime"),
        "powerSetting": p.read("MicrowaveOvenControl", "PowerSetting"),
        **change,
    }
    return p.invoke("MicrowaveOvenControl", "SetCookingParameters", fields)


def _microwave() -> Function:
    return _cycle() + Function(
        (
            Attribute(
                MICROWAVE_MODE,
                lambda p: _by_value(MICROWAVE_MODES, p.read("MicrowaveOvenMode", "CurrentMode"), "unknown"),
                "MicrowaveOvenMode.CurrentMode (0 normal, 1 defrost)",
            ),
            Attribute(
                COOKING_TIME, lambda p: p.read("MicrowaveOvenControl", "CookTime"), "MicrowaveOvenControl.CookTime (s)"
            ),
            Attribute(
                POWER_LEVEL,
                lambda p: p.read("MicrowaveOvenControl", "PowerSetting"),
                "MicrowaveOvenControl.PowerSetting (%)",
            ),
            Attribute(
                Param(
                    "remaining_running_time",
                    "int",
                    "Seconds left of the cooking run (0 when none; read-only).",
                    range=(0, MICROWAVE_COOK_TIME[1]),
                    precision=1,
                    unit="second",
                ),
                lambda p: p.read("OperationalState", "CountdownTime") or 0,
                "OperationalState.CountdownTime (s)",
            ),
        ),
        (
            Service(
                "resume",
                "Resume a paused programme.",
                lambda p, a: [p.invoke("OperationalState", "Resume")],
                "OperationalState.Resume",
            ),
            Service(
                "set_cooking_time",
                "Set how long to cook (only while stopped).",
                lambda p, a: [_cooking_parameters(p, cookTime=a["target_cooking_time"])],
                "MicrowaveOvenControl.SetCookingParameters(cookTime)",
                (COOKING_TIME,),
            ),
            Service(
                "set_power_level",
                "Set the microwave power (only while stopped).",
                lambda p, a: [_cooking_parameters(p, powerSetting=a["power_level"])],
                "MicrowaveOvenControl.SetCookingParameters(powerSetting)",
                (POWER_LEVEL,),
            ),
            Service(
                "set_work_mode",
                "Choose the cooking mode (only while stopped).",
                lambda p, a: [_cooking_parameters(p, cookMode=MICROWAVE_MODES[a["work_mode"]])],
                "MicrowaveOvenControl.SetCookingParameters(cookMode)",
                (MICROWAVE_MODE,),
            ),
        ),
    )


# RefrigeratorAndTemperatureControlledCabinetMode (clusters/modes.py RTCC_MODES); the compartments' setpoint limits
# are the catalogue's (°C, whole degrees), checked by a test.
CABINET_MODES = {"normal": 0, "energy_save": 1, "rapid_cool": 2, "rapid_freeze": 3}
CABINET_LIMITS = {"refrigerator": (1, 7), "freezer": (-23, -15)}


def _cabinet(kind: str) -> Function:
    _, mode_attribute, mode_service = _mode(
        "RefrigeratorAndTemperatureControlledCabinetMode", "mode", CABINET_MODES, "Cooling mode."
    )
    target = Param(
        "target_temperature",
        "int",
        "Compartment temperature setpoint.",
        range=CABINET_LIMITS[kind],
        precision=1,
        unit="Celsius",
    )
    temperature, set_temperature = _temperature_setpoint(
        target, "set_target_temperature", "Set the compartment temperature."
    )
    return Function(
        (
            mode_attribute,
            temperature,
            Attribute(
                Param(
                    "current_temperature",
                    "float",
                    "Measured compartment temperature (read-only).",
                    precision=0.01,
                    unit="Celsius",
                ),
                _centi("TemperatureMeasurement", 1),
                "TemperatureMeasurement.MeasuredValue (0.01 °C)",
            ),
        ),
        (mode_service, set_temperature),
    )


PRODUCTS: dict[str, Product] = {
    "on_off_light": Product("light", "light", "A switchable light.", ((None, 1, _light(False, False)),)),
    "dimmable_light": Product("light", "light", "A dimmable light.", ((None, 1, _light(True, False)),)),
    "color_temperature_light": Product(
        "light", "color_temperature_light", "A tunable white light.", ((None, 1, _light(True, True)),)
    ),
    "extended_color_light": Product("light", "color_light", "A colour light.", ((None, 1, _light(True, True)),)),
    "fan_light": Product(
        "fan_light", "fan_light", "A ceiling fan with a light.", (("light", 1, _light(True, False)), ("fan", 2, _fan()))
    ),
    "fan": Product("fan", "smart_fan", "A fan.", ((None, 1, _fan()),)),
    "air_conditioner": Product("ac", "air_conditioner", "An air conditioner.", ((None, 1, _ac()),)),
    "curtain": Product("cover", "curtain", "A motorised curtain.", ((None, 1, _cover()),)),
    "blind": Product("cover", "blind", "A motorised blind.", ((None, 1, _cover()),)),
    "smart_speaker": Product("media", "universal_speaker", "A speaker.", (("player", 1, _player()),)),
    "smart_screen": Product("media", "smart_screen", "A smart display.", (("player", 1, _player()),)),
    "tv": Product("media", "tv", "A television.", (("player", 1, _player()),)),
    "rvc": Product("vacuum", "robot_cleaner", "A robot vacuum cleaner.", ((None, 1, _vacuum()),)),
    "door_lock": Product("lock", "smart_lock", "A smart lock.", ((None, 1, _lock()),)),
    "climate_sensor": Product(
        "sensor", "climate_sensor", "A temperature and humidity sensor.", ((None, 1, _climate_sensor()),)
    ),
    "occupancy_sensor": Product("sensor", "human_sensor", "A presence sensor.", ((None, 1, _human_sensor()),)),
    "smart_plug": Product("plug", "smart_plug", "A switchable socket.", ((None, 1, _on_off()),)),
    "water_heater": Product(
        "water_heater", "electric_water_heater", "An electric water heater.", ((None, 1, _water_heater()),)
    ),
    "oven": Product("oven", "built_in_oven", "A built-in oven (the cavity is endpoint 2).", ((None, 2, _oven()),)),
    "laundry_washer": Product("washing_machine", "washer", "A washing machine.", ((None, 1, _washer()),)),
    "laundry_dryer": Product("washing_machine", "dryer", "A tumble dryer.", ((None, 1, _dryer()),)),
    "dishwasher": Product("dishwasher", "dishwasher", "A dishwasher.", ((None, 1, _dishwasher()),)),
    # The paper's oven-style namespace: critics name microwave_steam_oven.work_state, .target_cooking_time, ...
    "microwave_oven": Product(
        "oven", "microwave_oven", "A microwave oven.", (("microwave_steam_oven", 1, _microwave()),)
    ),
    # No fridge category in the paper's representative list; the schema's category is free text (T7).
    "refrigerator": Product("refrigerator", "refrigerator", "A refrigerator.", ((None, 1, _cabinet("refrigerator")),)),
    "freezer": Product("refrigerator", "freezer", "A freezer.", ((None, 1, _cabinet("freezer")),)),
    # Water (no category in the paper's list; the schema's category is free text): the main valve and leak sensors.
    "water_valve": Product(
        "valve", "water_valve", "A motorised main water valve.", ((None, 1, _valve()),), tags=("water",)
    ),
    "water_leak_detector": Product(
        "sensor", "leak_sensor", "A water leak sensor.", ((None, 1, _leak_sensor()),), tags=("water",)
    ),
}
