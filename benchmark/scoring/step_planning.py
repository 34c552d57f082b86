"""Planning device steps from wanted attribute values: the order a device accepts them in, and each
actuator's strongest control action toward a room-variable direction.

Shared by the oracle agent (which runs the steps through the agent tools) and the qt2 reach evaluator
(which applies them to a copy of the home), so neither imports the other. Steps are ``WorkflowStep``s with
chip cluster names; every device rule planned around is read from the device's own attributes (setpoint
limits, the deadband, MaxLevel, the RVC's Idle / Cleaning modes by their mode tags), never from constants.
Only attributes the device serves count (its AttributeList, global attribute 0xFFFB, where the state has one);
an optional rule attribute it leaves out is what the Matter specification takes it as
(``clusters.absent_attributes``), never the value it is being planned toward.
"""

from __future__ import annotations

from typing import Any

from benchmark.scoring.evaluators.state_comparison import values_equal
from clusters.absent_attributes import device_rule, served
from emulator.simuhome.values import SIMUHOME_CLUSTER_TO_CHIP, our_key
from emulator.workflows import WorkflowStep

RUNNING, PAUSED, STOPPED = 1, 2, 0  # OperationalStateEnum
RVC_IDLE_TAG, RVC_CLEANING_TAG = 0x4000, 0x4001  # RvcRunMode ModeTag values (Matter)
COLOR_TEMP_PHYSICAL_LIMITS = (0x0000, 0xFEFF)  # ColorTempPhysicalMin/MaxMireds when not served (Matter defaults)
LOCAL_OPTIMISATION = 0  # DeviceEnergyManagement AdjustmentCauseEnum: the home's own optimisation, not the grid's


def chip_cluster(cluster: str) -> str:
    return SIMUHOME_CLUSTER_TO_CHIP.get(cluster, cluster)


def split_path(path: str) -> tuple[int, str, str, list[str]]:
    parts = path.split(".")
    return int(parts[0]), chip_cluster(parts[1]), parts[2], parts[3:]


def command(device_id: str, endpoint: int, cluster: str, name: str, args: dict[str, Any] | None = None) -> WorkflowStep:
    return WorkflowStep.invoke(device_id, endpoint, cluster, name, args)


def write(device_id: str, endpoint: int, cluster: str, attribute: str, value: Any) -> WorkflowStep:
    return WorkflowStep.write(device_id, endpoint, cluster, attribute, value)


def chip_path(path: str) -> str:
    parts = path.split(".")
    if len(parts) >= 2:
        parts[1] = chip_cluster(parts[1])
    return ".".join(parts)


# --- planning the steps that make asserts true ------------------------------------------------------------


class DevicePlan:
    """Steps for one device from its current attributes (chip paths) and the wanted values, in a valid order."""

    def __init__(self, device_id: str, device_type: str, state: dict[str, Any]) -> None:
        self.device_id = device_id
        self.device_type = device_type
        self.state = state  # "ep.Cluster.Attr" (chip names) → value, updated as steps are planned

    def get(self, endpoint: int, cluster: str, attribute: str, default: Any = None) -> Any:
        return self.state.get(f"{endpoint}.{cluster}.{attribute}", default)

    def has(self, endpoint: int, cluster: str, attribute: str) -> bool:
        """Whether the device serves the attribute (read, and in its AttributeList where the state has one)."""
        return served(self.state, endpoint, cluster, attribute)

    def rule(self, endpoint: int, cluster: str, attribute: str) -> int | None:
        """A device rule: the served value, else the specification's value for an absent one."""
        return device_rule(self.state, endpoint, cluster, attribute)

    def plan(self, asserts: list[Any]) -> list[WorkflowStep]:
        wanted: dict[tuple[int, str, str], Any] = {}
        fields: dict[tuple[int, str, str], dict[str, Any]] = {}
        for item in asserts:
            endpoint, cluster, attribute, rest = split_path(item.attribute)
            if rest:
                fields.setdefault((endpoint, cluster, attribute), {})[rest[0]] = item.value
            elif not values_equal(item.value, self.get(endpoint, cluster, attribute)):
                wanted[(endpoint, cluster, attribute)] = item.value
        for key, sub in fields.items():
            current = self.get(*key) or {}
            if not all(values_equal(v, current.get(k, current.get(our_key(k)))) for k, v in sub.items()):
                wanted[key] = {"__fields__": sub}
        if not wanted:
            return []
        power = wanted.pop((1, "OnOff", "OnOff"), None)
        first: list[Any] = []
        settings: list[Any] = []
        operations: list[Any] = []
        last: list[Any] = []
        needs_power = any(k[1] not in ("OnOff",) for k in wanted)
        if power is True or (needs_power and self.get(1, "OnOff", "OnOff") is False):
            first.append(command(self.device_id, 1, "OnOff", "On"))
            self.state["1.OnOff.OnOff"] = True
        if power is False:
            last.append(command(self.device_id, 1, "OnOff", "Off"))
            self.state["1.OnOff.OnOff"] = False
        settings += self._setpoints(wanted)
        for (endpoint, cluster, attribute), value in wanted.items():
            steps = self._steps_for(endpoint, cluster, attribute, value)
            is_operation = cluster.endswith("OperationalState") or cluster == "MediaPlayback"
            (operations if is_operation else settings).extend(steps)
            self.state[f"{endpoint}.{cluster}.{attribute}"] = value
        return first + settings + operations + last

    def _setpoints(self, wanted: dict[tuple[int, str, str], Any]) -> list[WorkflowStep]:
        """Thermostat setpoints written in an order that keeps cooling − heating ≥ the deadband throughout."""
        steps: list[WorkflowStep] = []
        endpoints = {k[0] for k in wanted if k[1] == "Thermostat" and "Setpoint" in k[2]}
        for endpoint in sorted(endpoints):
            heat = wanted.pop((endpoint, "Thermostat", "OccupiedHeatingSetpoint"), None)
            cool = wanted.pop((endpoint, "Thermostat", "OccupiedCoolingSetpoint"), None)
            steps += self.setpoint_steps(endpoint, heat, cool)
        return steps

    def thermostat_limits(self, endpoint: int) -> tuple[tuple[int, int], tuple[int, int], int]:
        """The device's own rules: heating and cooling setpoint ranges (Min/Max*SetpointLimit, else the
        Abs* limits, else the specification's defaults) and the deadband (MinSetpointDeadBand in 0.1 °C, served
        by AutoMode thermostats; none served, none enforced)."""

        def limit(name: str) -> int:
            return self.rule(endpoint, "Thermostat", name) or 0  # every setpoint limit has a spec default

        heat = (limit("MinHeatSetpointLimit"), limit("MaxHeatSetpointLimit"))
        cool = (limit("MinCoolSetpointLimit"), limit("MaxCoolSetpointLimit"))
        band = (
            self.get(endpoint, "Thermostat", "MinSetpointDeadBand")
            if self.has(endpoint, "Thermostat", "MinSetpointDeadBand")
            else None
        )
        return heat, cool, int(band) * 10 if band is not None else 0

    def setpoint_steps(self, endpoint: int, heat: int | None, cool: int | None) -> list[WorkflowStep]:
        """Writes reaching the wanted setpoints inside the device's limits, ordered so that cooling − heating
        never falls below its deadband."""
        (heat_low, heat_high), (cool_low, cool_high), band = self.thermostat_limits(endpoint)
        heat = heat if self.has(endpoint, "Thermostat", "OccupiedHeatingSetpoint") else None  # a cooling-only
        cool = cool if self.has(endpoint, "Thermostat", "OccupiedCoolingSetpoint") else None  # or heating-only one
        current_heat = self.get(endpoint, "Thermostat", "OccupiedHeatingSetpoint")
        current_cool = self.get(endpoint, "Thermostat", "OccupiedCoolingSetpoint")
        cooling, heating = (
            self.has(endpoint, "Thermostat", "OccupiedCoolingSetpoint"),
            self.has(endpoint, "Thermostat", "OccupiedHeatingSetpoint"),
        )
        if heat is not None:
            heat = max(heat_low, min(heat, heat_high, cool_high - band if cooling else heat))
        if cool is not None:
            cool = min(cool_high, max(cool, cool_low, heat_low + band if heating else cool))
        if heat is not None and cool is not None and cool < heat + band:
            cool = heat + band  # asked for both but closer than the deadband: the heating setpoint wins
        if heat is not None and cool is None and current_cool is not None and heat > current_cool - band:
            cool = heat + band
        if cool is not None and heat is None and current_heat is not None and cool < current_heat + band:
            heat = cool - band
        order: list[tuple[str, int]] = []
        if heat is not None and cool is not None:
            order = (
                [("OccupiedHeatingSetpoint", heat), ("OccupiedCoolingSetpoint", cool)]
                if current_cool is None or heat <= current_cool - band
                else [("OccupiedCoolingSetpoint", cool), ("OccupiedHeatingSetpoint", heat)]
            )
        elif heat is not None:
            order = [("OccupiedHeatingSetpoint", heat)]
        elif cool is not None:
            order = [("OccupiedCoolingSetpoint", cool)]
        steps = []
        for attribute, value in order:
            if self.get(endpoint, "Thermostat", attribute) != value:
                steps.append(write(self.device_id, endpoint, "Thermostat", attribute, value))
                self.state[f"{endpoint}.Thermostat.{attribute}"] = value
        return steps

    def rvc_mode(self, endpoint: int, tag: int) -> int | None:
        """The RvcRunMode mode carrying ``tag`` (Idle / Cleaning), from the device's SupportedModes."""
        for option in self.get(endpoint, "RvcRunMode", "SupportedModes") or []:
            tags = [t.get("value") if isinstance(t, dict) else t for t in option.get("modeTags", [])]
            if tag in tags:
                mode: int | None = option.get("mode")
                return mode
        return None

    def _steps_for(self, endpoint: int, cluster: str, attribute: str, value: Any) -> list[WorkflowStep]:
        d = self.device_id
        if cluster == "LevelControl" and attribute == "CurrentLevel":
            return [command(d, endpoint, cluster, "MoveToLevel", {"Level": value})]
        if cluster == "DeviceEnergyManagement" and attribute == "Forecast":  # read-only: shifted by a command
            start = (value.get("__fields__") or {}).get("startTime") if isinstance(value, dict) else None
            if start is None:
                return []
            args = {"RequestedStartTime": start, "Cause": LOCAL_OPTIMISATION}
            return [command(d, endpoint, cluster, "StartTimeAdjustRequest", args)]
        if cluster == "ColorControl" and attribute == "ColorTemperatureMireds":  # read-only: set by a command
            low = self.get(endpoint, cluster, "ColorTempPhysicalMinMireds", COLOR_TEMP_PHYSICAL_LIMITS[0])
            high = self.get(endpoint, cluster, "ColorTempPhysicalMaxMireds", COLOR_TEMP_PHYSICAL_LIMITS[1])
            return [
                command(
                    d,
                    endpoint,
                    cluster,
                    "MoveToColorTemperature",
                    {"ColorTemperatureMireds": max(low, min(high, value)), "TransitionTime": 0},
                )
            ]
        if cluster == "WindowCovering" and attribute in (
            "TargetPositionLiftPercent100ths",
            "CurrentPositionLiftPercent100ths",
        ):
            return [command(d, endpoint, cluster, "GoToLiftPercentage", {"lift_percent_100ths": value})]
        if cluster == "TemperatureControl" and attribute == "TemperatureSetpoint":
            return [command(d, endpoint, cluster, "SetTemperature", {"target_temperature": value})]
        if cluster in ("DishwasherMode", "LaundryWasherMode", "RvcRunMode") and attribute == "CurrentMode":
            return [command(d, endpoint, cluster, "ChangeToMode", {"new_mode": value})]
        if cluster.endswith("Mode") and attribute == "CurrentMode":
            return [command(d, endpoint, cluster, "ChangeToMode", {"mode": value})]
        if cluster == "OperationalState" and attribute == "OperationalState":
            current = self.get(endpoint, cluster, attribute)
            name = {RUNNING: "Resume" if current == PAUSED else "Start", PAUSED: "Pause", STOPPED: "Stop"}.get(value)
            return [command(d, endpoint, cluster, name)] if name else []
        if cluster == "RvcOperationalState" and attribute == "OperationalState":
            current = self.get(endpoint, cluster, attribute)
            if value == RUNNING:
                return (
                    [command(d, endpoint, cluster, "Resume")]
                    if current == PAUSED
                    else [
                        command(
                            d,
                            endpoint,
                            "RvcRunMode",
                            "ChangeToMode",
                            {"new_mode": self.rvc_mode(endpoint, RVC_CLEANING_TAG)},
                        )
                    ]
                )
            if value == PAUSED:
                return [command(d, endpoint, cluster, "Pause")]
            if value in (64, 65, 66):
                return [command(d, endpoint, cluster, "GoHome")]
            return [
                command(d, endpoint, "RvcRunMode", "ChangeToMode", {"new_mode": self.rvc_mode(endpoint, RVC_IDLE_TAG)})
            ]
        if cluster == "MediaPlayback" and attribute == "CurrentState":
            name = {0: "Play", 1: "Pause", 2: "Stop"}.get(value)
            return [command(d, endpoint, cluster, name)] if name else []
        if cluster == "Channel" and attribute == "CurrentChannel":
            sub = value["__fields__"] if isinstance(value, dict) and "__fields__" in value else value
            sub = {our_key(k): v for k, v in (sub or {}).items()}
            if "majorNumber" in sub:
                return [
                    command(
                        d,
                        endpoint,
                        cluster,
                        "ChangeChannelByNumber",
                        {"major_number": sub["majorNumber"], "minor_number": sub.get("minorNumber", 0)},
                    )
                ]
            for key in ("identifier", "callSign", "name", "affiliateCallSign"):
                if key in sub:
                    return [command(d, endpoint, cluster, "ChangeChannel", {"match": str(sub[key])})]
            return []
        return [write(d, endpoint, cluster, attribute, value)]


# --- qt2: real control actions per physics role ------------------------------------------------------------


def control_steps(plan: DevicePlan, role: str, endpoint: int, variable: str, direction: str) -> list[WorkflowStep]:
    """The strongest action of one actuator toward ``direction`` (and opposing actuators switched off)."""
    d = plan.device_id
    up = direction == "increase"
    # The actuator's own On/Off (a fan light's fan has one on its endpoint), else the device's on endpoint 1.
    switch = endpoint if plan.has(endpoint, "OnOff", "OnOff") else 1
    on = plan.get(switch, "OnOff", "OnOff")
    has_power = plan.has(switch, "OnOff", "OnOff")

    def power(state: bool) -> list[WorkflowStep]:
        if not has_power or on is state:
            return []
        plan.state[f"{switch}.OnOff.OnOff"] = state
        return [command(d, switch, "OnOff", "On" if state else "Off")]

    def fan_full() -> list[WorkflowStep]:
        if (
            not plan.has(endpoint, "FanControl", "PercentSetting")
            or plan.get(endpoint, "FanControl", "PercentSetting") == 100
        ):
            return []
        return [write(d, endpoint, "FanControl", "PercentSetting", 100)]

    if variable == "temperature" and role in ("ac", "heat_pump", "thermostat"):
        steps = power(True) if role == "ac" else []
        (heat_low, heat_high), (cool_low, cool_high), _ = plan.thermostat_limits(endpoint)
        # SystemModeEnum Heat 4 / Cool 3 where ControlSequenceOfOperation allows it (0, 1 cool only; 2, 3 heat
        # only), else Off 0.
        sequence = plan.get(endpoint, "Thermostat", "ControlSequenceOfOperation")
        if up:
            steps += plan.setpoint_steps(endpoint, heat_high, cool_high)
            mode = 4 if sequence not in (0, 1) else 0
        else:
            steps += plan.setpoint_steps(endpoint, heat_low, cool_low)
            mode = 3 if sequence not in (2, 3) else 0
        if plan.get(endpoint, "Thermostat", "SystemMode") != mode:
            steps.append(write(d, endpoint, "Thermostat", "SystemMode", mode))
        return steps + (fan_full() if role == "ac" else [])
    if variable == "temperature" and role == "fan":
        return power(False) if up else power(True) + fan_full()
    if variable == "humidity" and role in ("humidifier", "dehumidifier"):
        helps = (role == "humidifier") == up
        return power(True) + fan_full() if helps else power(False)
    if variable == "pm10" and role == "purifier":
        return power(False) if up else power(True) + fan_full()
    if variable == "illuminance" and role == "light":
        if not up:
            return power(False)
        steps = power(True)
        top = plan.rule(endpoint, "LevelControl", "MaxLevel")
        if (
            plan.has(endpoint, "LevelControl", "CurrentLevel")
            and plan.get(endpoint, "LevelControl", "CurrentLevel") != top
        ):
            steps.append(command(d, endpoint, "LevelControl", "MoveToLevel", {"Level": top}))
        return steps
    if variable == "illuminance" and role == "covering":
        target = 0 if up else 10000
        if plan.get(endpoint, "WindowCovering", "TargetPositionLiftPercent100ths") == target:
            return []
        return [command(d, endpoint, "WindowCovering", "GoToLiftPercentage", {"lift_percent_100ths": target})]
    return []
