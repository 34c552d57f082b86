"""The oracle: solves an episode from its goals, acting only through the agent tools.

It proves every episode solvable and that the tools, the fabric and the evaluators agree. Like an agent it
reads rooms and devices first (which satisfies the required actions), then performs the asserts' writes
and commands in a valid order (power on first, settings and modes before Start, setpoints ordered for the
thermostat deadband, power off last), schedules qt4 goals with ``schedule_workflow`` at their virtual times,
drives qt2 rooms with real control actions of every actuator that moves the variable the asked way,
answers qt1 from tool reads, and answers infeasible kinds with the reason without changing anything.

Every device rule it plans around is read from the device itself (setpoint limits, the deadband of AutoMode
thermostats as MinSetpointDeadBand × 10, MaxLevel, the RVC's Idle / Cleaning modes by their mode tags, the
actuator's own On/Off endpoint), never from constants.

The runner hands it the episode in ``task.extras["episode"]`` (``needs_episode``); it is deterministic.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from benchmark.agents.base import AgentBase, AgentOutcome, AgentStep, AgentTask, ToolCaller
from benchmark.automation_scoring import gold_automations, tool_arguments
from benchmark.episode import (
    DeviceAttributeGoal,
    DirectionGoal,
    Episode,
    RoomStateGoal,
    ScheduleGoal,
    TargetGoal,
    parse_episode,
)
from benchmark.evaluators.common import ROLES_BY_VARIABLE, values_equal
from emulator.catalogue import CATALOGUE
from emulator.clock import TICKS_PER_SECOND, TIME_FORMAT
from emulator.simuhome.values import SIMUHOME_CLUSTER_TO_CHIP, our_key

Step = dict[str, Any]  # {"tool": "execute_command"|"write_attribute", "args": {...}} — a workflow step
DISPLAY = {"temperature": ("°C", 0.01), "humidity": ("%", 0.01), "illuminance": ("lux", 1.0), "pm10": ("µg/m³", 1.0)}
RUNNING, PAUSED, STOPPED = 1, 2, 0  # OperationalStateEnum
RVC_IDLE_TAG, RVC_CLEANING_TAG = 0x4000, 0x4001  # RvcRunMode ModeTag values (Matter)


def _chip(cluster: str) -> str:
    return SIMUHOME_CLUSTER_TO_CHIP.get(cluster, cluster)


def _split(path: str) -> tuple[int, str, str, list[str]]:
    parts = path.split(".")
    return int(parts[0]), _chip(parts[1]), parts[2], parts[3:]


def command(device_id: str, endpoint: int, cluster: str, name: str, args: dict[str, Any] | None = None) -> Step:
    return {"tool": "execute_command", "args": {"device_id": device_id, "endpoint_id": endpoint, "cluster_id": cluster,
                                                "command_id": name, "args": args or {}}}


def write(device_id: str, endpoint: int, cluster: str, attribute: str, value: Any) -> Step:
    return {"tool": "write_attribute", "args": {"device_id": device_id, "endpoint_id": endpoint,
                                                "cluster_id": cluster, "attribute_id": attribute, "value": value}}


def _spoken(room_id: str) -> str:
    return room_id.replace("_", " ")


def _display(variable: str, value: float) -> str:
    unit, factor = DISPLAY[variable]
    return f"{value * factor:.2f} {unit}"


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
        return f"{endpoint}.{cluster}.{attribute}" in self.state

    def plan(self, asserts: list[Any]) -> list[Step]:
        wanted: dict[tuple[int, str, str], Any] = {}
        fields: dict[tuple[int, str, str], dict[str, Any]] = {}
        for item in asserts:
            endpoint, cluster, attribute, rest = _split(item.attribute)
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
        first, settings, operations, last = [], [], [], []
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

    def _setpoints(self, wanted: dict[tuple[int, str, str], Any]) -> list[Step]:
        """Thermostat setpoints written in an order that keeps cooling − heating ≥ the deadband throughout."""
        steps: list[Step] = []
        endpoints = {k[0] for k in wanted if k[1] == "Thermostat" and "Setpoint" in k[2]}
        for endpoint in sorted(endpoints):
            heat = wanted.pop((endpoint, "Thermostat", "OccupiedHeatingSetpoint"), None)
            cool = wanted.pop((endpoint, "Thermostat", "OccupiedCoolingSetpoint"), None)
            steps += self.setpoint_steps(endpoint, heat, cool)
        return steps

    def thermostat_limits(self, endpoint: int) -> tuple[tuple[int, int], tuple[int, int], int]:
        """The device's own rules: heating and cooling setpoint ranges (Min/Max*SetpointLimit, else the
        Abs* limits) and the deadband (MinSetpointDeadBand in 0.1 °C, present on AutoMode thermostats)."""
        def limit(name: str, absolute: str, default: int | None) -> int | None:
            return self.get(endpoint, "Thermostat", name, self.get(endpoint, "Thermostat", absolute, default))

        heat_now = self.get(endpoint, "Thermostat", "OccupiedHeatingSetpoint")
        cool_now = self.get(endpoint, "Thermostat", "OccupiedCoolingSetpoint")
        heat = (limit("MinHeatSetpointLimit", "AbsMinHeatSetpointLimit", heat_now),
                limit("MaxHeatSetpointLimit", "AbsMaxHeatSetpointLimit", heat_now))
        cool = (limit("MinCoolSetpointLimit", "AbsMinCoolSetpointLimit", cool_now),
                limit("MaxCoolSetpointLimit", "AbsMaxCoolSetpointLimit", cool_now))
        band = self.get(endpoint, "Thermostat", "MinSetpointDeadBand")
        return heat, cool, int(band) * 10 if band is not None else 0

    def setpoint_steps(self, endpoint: int, heat: int | None, cool: int | None) -> list[Step]:
        """Writes reaching the wanted setpoints inside the device's limits, ordered so that cooling − heating
        never falls below its deadband."""
        (heat_low, heat_high), (cool_low, cool_high), band = self.thermostat_limits(endpoint)
        heat = heat if self.has(endpoint, "Thermostat", "OccupiedHeatingSetpoint") else None  # a cooling-only
        cool = cool if self.has(endpoint, "Thermostat", "OccupiedCoolingSetpoint") else None  # or heating-only one
        current_heat = self.get(endpoint, "Thermostat", "OccupiedHeatingSetpoint")
        current_cool = self.get(endpoint, "Thermostat", "OccupiedCoolingSetpoint")
        if heat is not None and heat_low is not None and heat_high is not None:
            heat = max(heat_low, min(heat, heat_high, cool_high - band if cool_high is not None else heat))
        if cool is not None and cool_low is not None and cool_high is not None:
            cool = min(cool_high, max(cool, cool_low, heat_low + band if heat_low is not None else cool))
        if heat is not None and cool is not None and cool < heat + band:
            cool = heat + band  # asked for both but closer than the deadband: the heating setpoint wins
        if heat is not None and cool is None and current_cool is not None and heat > current_cool - band:
            cool = heat + band
        if cool is not None and heat is None and current_heat is not None and cool < current_heat + band:
            heat = cool - band
        order: list[tuple[str, int]] = []
        if heat is not None and cool is not None:
            order = ([("OccupiedHeatingSetpoint", heat), ("OccupiedCoolingSetpoint", cool)]
                     if current_cool is None or heat <= current_cool - band else
                     [("OccupiedCoolingSetpoint", cool), ("OccupiedHeatingSetpoint", heat)])
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
                return option.get("mode")
        return None

    def _steps_for(self, endpoint: int, cluster: str, attribute: str, value: Any) -> list[Step]:
        d = self.device_id
        if cluster == "LevelControl" and attribute == "CurrentLevel":
            return [command(d, endpoint, cluster, "MoveToLevel", {"Level": value})]
        if cluster == "WindowCovering" and attribute in ("TargetPositionLiftPercent100ths",
                                                         "CurrentPositionLiftPercent100ths"):
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
                return [command(d, endpoint, cluster, "Resume")] if current == PAUSED else \
                    [command(d, endpoint, "RvcRunMode", "ChangeToMode",
                             {"new_mode": self.rvc_mode(endpoint, RVC_CLEANING_TAG)})]
            if value == PAUSED:
                return [command(d, endpoint, cluster, "Pause")]
            if value in (64, 65, 66):
                return [command(d, endpoint, cluster, "GoHome")]
            return [command(d, endpoint, "RvcRunMode", "ChangeToMode",
                            {"new_mode": self.rvc_mode(endpoint, RVC_IDLE_TAG)})]
        if cluster == "MediaPlayback" and attribute == "CurrentState":
            name = {0: "Play", 1: "Pause", 2: "Stop"}.get(value)
            return [command(d, endpoint, cluster, name)] if name else []
        if cluster == "Channel" and attribute == "CurrentChannel":
            sub = value["__fields__"] if isinstance(value, dict) and "__fields__" in value else value
            sub = {our_key(k): v for k, v in (sub or {}).items()}
            if "majorNumber" in sub:
                return [command(d, endpoint, cluster, "ChangeChannelByNumber",
                                {"major_number": sub["majorNumber"], "minor_number": sub.get("minorNumber", 0)})]
            for key in ("identifier", "callSign", "name", "affiliateCallSign"):
                if key in sub:
                    return [command(d, endpoint, cluster, "ChangeChannel", {"match": str(sub[key])})]
            return []
        return [write(d, endpoint, cluster, attribute, value)]


# --- qt2: real control actions per physics role ------------------------------------------------------------

def control_steps(plan: DevicePlan, role: str, endpoint: int, variable: str, direction: str) -> list[Step]:
    """The strongest action of one actuator toward ``direction`` (and opposing actuators switched off)."""
    d = plan.device_id
    up = direction == "increase"
    # The actuator's own On/Off (a fan light's fan has one on its endpoint), else the device's on endpoint 1.
    switch = endpoint if plan.has(endpoint, "OnOff", "OnOff") else 1
    on = plan.get(switch, "OnOff", "OnOff")
    has_power = plan.has(switch, "OnOff", "OnOff")

    def power(state: bool) -> list[Step]:
        if not has_power or on is state:
            return []
        plan.state[f"{switch}.OnOff.OnOff"] = state
        return [command(d, switch, "OnOff", "On" if state else "Off")]

    def fan_full() -> list[Step]:
        if not plan.has(endpoint, "FanControl", "PercentSetting") or plan.get(endpoint, "FanControl",
                                                                              "PercentSetting") == 100:
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
        top = plan.get(endpoint, "LevelControl", "MaxLevel", 254)  # 254 is Matter's default MaxLevel
        if plan.has(endpoint, "LevelControl", "CurrentLevel") and plan.get(endpoint, "LevelControl",
                                                                            "CurrentLevel") != top:
            steps.append(command(d, endpoint, "LevelControl", "MoveToLevel", {"Level": top}))
        return steps
    if variable == "illuminance" and role == "covering":
        target = 0 if up else 10000
        if plan.get(endpoint, "WindowCovering", "TargetPositionLiftPercent100ths") == target:
            return []
        return [command(d, endpoint, "WindowCovering", "GoToLiftPercentage", {"lift_percent_100ths": target})]
    return []


# --- the agent ----------------------------------------------------------------------------------------------

class _Session:
    def __init__(self, tools: ToolCaller) -> None:
        self.tools = tools
        self.steps: list[AgentStep] = []
        self.room_devices: dict[str, dict[str, Any]] = {}
        self.device_state: dict[str, dict[str, Any]] = {}
        self.room_states: dict[str, dict[str, Any]] = {}

    def call(self, tool: str, arguments: dict[str, Any], thought: str | None = None) -> dict[str, Any]:
        envelope = self.tools.call(tool, arguments)
        self.steps.append(AgentStep(len(self.steps), thought, tool, arguments, envelope))
        return envelope

    def data(self, tool: str, arguments: dict[str, Any], thought: str | None = None) -> Any:
        envelope = self.call(tool, arguments, thought)
        return envelope.get("data") if envelope.get("error") is None else None

    def devices_in(self, room_id: str) -> dict[str, Any]:
        if room_id not in self.room_devices:
            self.room_devices[room_id] = self.data("get_room_devices", {"room_id": room_id},
                                                   f"Which devices are in the {_spoken(room_id)}?") or {}
        return self.room_devices[room_id]

    def state_of(self, device_id: str) -> dict[str, Any] | None:
        if device_id not in self.device_state:
            data = self.data("get_all_attributes", {"device_id": device_id}, f"Read the state of {device_id}.")
            if data is None:
                return None
            self.device_state[device_id] = {_chip_path(k): v for k, v in data.items()}
        return self.device_state[device_id]

    def run_steps(self, steps: list[Step]) -> list[str]:
        problems = []
        for step in steps:
            envelope = self.call(step["tool"], step["args"], _describe(step))
            if envelope.get("error") is not None:
                problems.append(f"{_describe(step)}: {envelope['error'].get('detail')}")
        return problems


def _chip_path(path: str) -> str:
    parts = path.split(".")
    if len(parts) >= 2:
        parts[1] = _chip(parts[1])
    return ".".join(parts)


def _describe(step: Step) -> str:
    args = step["args"]
    if step["tool"] == "execute_command":
        return f"{args['device_id']}: {args['cluster_id']}.{args['command_id']} {args['args'] or ''}".strip()
    return f"{args['device_id']}: set {args['cluster_id']}.{args['attribute_id']} = {args['value']}"


class OracleAgent(AgentBase):
    name = "oracle"
    needs_episode = True

    async def run(self, task: AgentTask, tools: ToolCaller) -> AgentOutcome:
        raw = task.extras.get("episode")
        if raw is None:
            return AgentOutcome(None, [], "aborted", error="the oracle needs the episode in task.extras['episode']")
        episode = raw if isinstance(raw, Episode) else parse_episode(raw, check_home=False)
        session = _Session(tools)
        for action in episode.required_actions:
            data = session.data(action.tool, dict(action.params), "Check the rooms the request is about.")
            if action.tool == "get_room_devices" and isinstance(data, dict):
                session.room_devices[action.params.get("room_id")] = data
            if action.tool == "get_room_states" and isinstance(data, dict):
                session.room_states[action.params.get("room_id")] = data
        if episode.query_type == "qt1":
            answer = self._qt1(episode, session)
        elif not episode.feasible:
            answer = self._infeasible(episode, session)
        elif episode.query_type == "qt2":
            answer = self._qt2(episode, session)
        elif episode.query_type == "qt3":
            answer = self._qt3(episode, session)
        else:
            answer = self._qt4(episode, session, task.current_time)
        for gold in gold_automations(episode):  # persistent rules, through create_automation
            session.call("create_automation", tool_arguments(gold), f"Create the automation '{gold.name}'.")
        session.call("finish", {"answer": answer}, "Done.")
        return AgentOutcome(answer, session.steps, "finished")

    # qt1 ---------------------------------------------------------------------------------------------------
    def _qt1(self, episode: Episode, session: _Session) -> str:
        sentences = []
        states = session.room_states
        for goal in episode.goals:
            if isinstance(goal, RoomStateGoal):
                if goal.room_id not in states:
                    states[goal.room_id] = session.data("get_room_states", {"room_id": goal.room_id}) or {}
                value = states[goal.room_id].get(goal.room_state)
                text = "unknown" if value is None else _display(goal.room_state, float(value))
                sentences.append(f"The {goal.room_state} in the {_spoken(goal.room_id)} is {text}.")
            elif isinstance(goal, DeviceAttributeGoal):
                if goal.device_id not in session.devices_in(goal.room_id):
                    sentences.append(self._missing_device(goal.device_id, goal.device_type, goal.room_id))
                    continue
                endpoint, cluster, attribute, rest = _split(goal.attribute)
                value = session.data("get_attribute", {"device_id": goal.device_id, "endpoint_id": endpoint,
                                                       "cluster_id": cluster, "attribute_id": attribute})
                for key in rest:
                    value = value.get(key, value.get(our_key(key))) if isinstance(value, dict) else None
                sentences.append(f"{goal.device_id} in the {_spoken(goal.room_id)} reports {attribute} = "
                                 f"{_say(value)}.")
        return " ".join(sentences)

    @staticmethod
    def _missing_device(device_id: str, device_type: str | None, room_id: str) -> str:
        kind = (device_type or "device").replace("_", " ")
        return (f"There is no {kind} {device_id} in the {_spoken(room_id)}: that device does not exist there, "
                f"so I cannot answer about it or operate it.")

    # infeasible kinds ------------------------------------------------------------------------------------
    def _infeasible(self, episode: Episode, session: _Session) -> str:
        if episode.query_type == "qt2":
            return self._qt2_infeasible(episode, session)
        if episode.query_type == "qt3":
            sentences = []
            for goal in episode.goals:
                if isinstance(goal, TargetGoal):
                    if goal.device_id in session.devices_in(goal.room_id):
                        sentences.append(f"{goal.device_id} is in the {_spoken(goal.room_id)} but I left it as it is.")
                    else:
                        sentences.append(self._missing_device(goal.device_id, goal.device_type, goal.room_id))
            return " ".join(sentences) + " Nothing was changed."
        return self._qt4_infeasible(episode, session)

    def _qt2_infeasible(self, episode: Episode, session: _Session) -> str:
        family = (episode.meta.model_extra or {}).get("infeasible_family")
        sentences = []
        for goal in episode.goals:
            if not isinstance(goal, DirectionGoal):
                continue
            devices = session.devices_in(goal.room_id)
            room = _spoken(goal.room_id)
            if goal.feasibility is True and family != "nonexistence":
                sentences.append(self._drive_room(goal, session, devices))
                continue
            movers = sorted(d for d, info in devices.items()
                            if _roles(info.get("device_type", "")) & ROLES_BY_VARIABLE[goal.room_state])
            verb = "raise" if goal.direction == "increase" else "lower"
            if family == "nonexistence" or not movers:
                kind = (goal.device_type or "suitable device").replace("_", " ")
                present = ", ".join(sorted(devices)) or "no devices"
                sentences.append(f"I cannot {verb} the {goal.room_state} in the {room}: there is no {kind} or any "
                                 f"other device there that can do it (the room has {present}).")
            else:
                sentences.append(f"I cannot {verb} the {goal.room_state} in the {room} any further: the devices "
                                 f"that control it ({', '.join(movers)}) are already at their limit, so nothing "
                                 f"more can be done.")
        return " ".join(sentences)

    def _qt4_infeasible(self, episode: Episode, session: _Session) -> str:
        for goal in episode.goals:
            if isinstance(goal, ScheduleGoal) and goal.anchor.device_id:
                session.data("get_attribute", {"device_id": goal.anchor.device_id, "endpoint_id": 1,
                                               "cluster_id": "OperationalState", "attribute_id": "CountdownTime"},
                             "How long until the appliance finishes?")
        now = session.data("get_current_time", {}) or {}
        facts = episode.temporal_conflict.model_dump() if episode.temporal_conflict is not None else {}
        kind = facts.get("type") or "timing"
        parts = [f"I did not schedule anything because the timing in your request conflicts ({kind})."]
        if facts.get("expected_time") and facts.get("conflict_time"):
            parts.append(f"The relative timing means {facts['expected_time']}, but you also said "
                         f"{facts['conflict_time']}.")
        elif facts.get("anchor_end_time"):
            parts.append(f"The appliance finishes at {facts['anchor_end_time']}, which does not fit the request.")
        if now.get("now"):
            parts.append(f"It is now {now['now'][11:]}.")
        parts.append("Which time do you want?")
        return " ".join(parts)

    # qt2 -----------------------------------------------------------------------------------------------------
    def _qt2(self, episode: Episode, session: _Session) -> str:
        sentences = []
        for goal in episode.goals:
            if isinstance(goal, DirectionGoal):
                sentences.append(self._drive_room(goal, session, session.devices_in(goal.room_id)))
        return " ".join(sentences)

    def _drive_room(self, goal: DirectionGoal, session: _Session, devices: dict[str, Any]) -> str:
        state = "air_quality" if goal.room_state == "pm10" else goal.room_state
        session.data("get_environment_control_rules", {"state": state},
                     f"Which devices can {goal.direction} the {goal.room_state}?")
        acted: list[str] = []
        problems: list[str] = []
        for device_id in sorted(devices):
            device_type = devices[device_id].get("device_type", "")
            spec = CATALOGUE.get(device_type)
            if spec is None:
                continue
            for role, endpoint in spec.roles:
                if role not in ROLES_BY_VARIABLE[goal.room_state]:
                    continue
                current = session.state_of(device_id)
                if current is None:
                    continue
                plan = DevicePlan(device_id, device_type, current)
                steps = control_steps(plan, role, endpoint, goal.room_state, goal.direction)
                problems += session.run_steps(steps)
                if steps:
                    acted.append(device_id)
        room = _spoken(goal.room_id)
        if not acted:
            return f"Everything in the {room} is already set to {goal.direction} the {goal.room_state}."
        text = f"To {goal.direction} the {goal.room_state} in the {room} I adjusted {', '.join(acted)}."
        return text + (f" Problems: {'; '.join(problems)}." if problems else "")

    # qt3 -----------------------------------------------------------------------------------------------------
    def _qt3(self, episode: Episode, session: _Session) -> str:
        done, problems = [], []
        for goal in episode.goals:
            if not isinstance(goal, TargetGoal):
                continue
            session.devices_in(goal.room_id)
            state = session.state_of(goal.device_id)
            if state is None:
                problems.append(f"{goal.device_id} is not available")
                continue
            steps = DevicePlan(goal.device_id, goal.device_type, state).plan(goal.asserts)
            problems += session.run_steps(steps)
            done.append(goal.device_id)
        text = f"Done: I set {', '.join(done)} as requested." if done else "I could not do it."
        return text + (f" Problems: {'; '.join(problems)}." if problems else "")

    # qt4 -----------------------------------------------------------------------------------------------------
    def _qt4(self, episode: Episode, session: _Session, current_time: str) -> str:
        now_data = session.data("get_current_time", {}, "What time is it in the home?") or {}
        now_text = now_data.get("now") or current_time
        base = datetime.strptime(episode.base_time, TIME_FORMAT)
        now_tick = round((datetime.strptime(now_text, TIME_FORMAT) - base).total_seconds() * TICKS_PER_SECOND)
        goals = sorted((g for g in episode.goals if isinstance(g, ScheduleGoal)), key=lambda g: g.when.at_tick)
        for anchor in sorted({(g.anchor.device_id, g.anchor.device_type or "") for g in goals if g.anchor.device_id}):
            if anchor:
                session.data("get_attribute", {"device_id": anchor[0], "endpoint_id": 1,
                                               "cluster_id": _anchor_cluster(anchor[1]),
                                               "attribute_id": "CountdownTime"}, "When does the appliance finish?")
        plans: dict[str, DevicePlan] = {}
        scheduled, immediate, problems = [], [], []
        for goal in goals:
            steps: list[Step] = []
            for target in goal.targets:
                session.devices_in(target.room_id)
                if target.device_id not in plans:
                    state = session.state_of(target.device_id)
                    if state is None:
                        problems.append(f"{target.device_id} is not available")
                        continue
                    plans[target.device_id] = DevicePlan(target.device_id, target.device_type, dict(state))
                steps += plans[target.device_id].plan(target.asserts)
            if not steps:
                continue
            low, high = goal.when.at_tick - goal.when.tolerance_ticks, goal.when.at_tick + goal.when.tolerance_ticks
            if low <= now_tick:
                problems += session.run_steps(steps)
                immediate.append(len(steps))
                continue
            start_tick = math.ceil(goal.when.at_tick / TICKS_PER_SECOND) * TICKS_PER_SECOND
            if start_tick > high:
                start_tick = math.floor(high / TICKS_PER_SECOND) * TICKS_PER_SECOND
            start = (base + timedelta(seconds=start_tick / TICKS_PER_SECOND)).strftime(TIME_FORMAT)
            envelope = session.call("schedule_workflow", {"start_time": start, "steps": steps,
                                                          "description": f"goal at {start}"},
                                    f"Schedule {len(steps)} step(s) for {start}.")
            if envelope.get("error") is not None:
                problems.append(f"scheduling at {start}: {envelope['error'].get('detail')}")
            else:
                scheduled.append(start[11:])
        parts = []
        if immediate:
            parts.append("I did the first part now.")
        if scheduled:
            parts.append(f"I scheduled the rest for {', '.join(scheduled)}.")
        if problems:
            parts.append(f"Problems: {'; '.join(problems)}.")
        return " ".join(parts) or "Everything was already as requested."


def _anchor_cluster(device_type: str | None) -> str:
    return "RvcOperationalState" if device_type == "rvc" else "OperationalState"


def _roles(device_type: str) -> set[str]:
    spec = CATALOGUE.get(device_type)
    return {role for role, _ in spec.roles} if spec is not None else set()


def _say(value: Any) -> str:
    if isinstance(value, bool):
        return "on (true)" if value else "off (false)"
    if isinstance(value, dict):
        name = value.get("name") or value.get("label")
        return f"{name} ({value})" if name else str(value)
    return str(value)
