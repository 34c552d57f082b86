"""The agent tools over one EmulatedHome: SimuHome's names, arguments and envelope, with real error causes.

``ToolBox(fabric, profile="simuhome", admin=False, call_cost_s=0.0, realtime=False, compat_transport=False)``
implements ``benchmark.agents.base.ToolCaller``: ``call(name, arguments)`` never raises and always
returns the envelope; every call is logged in ``invocations``; ``finish`` sets ``final_answer``.

Backends: ``fabric`` is any ``emulator.home_api.HomeAPI``: the emulated ``emulator.emulated_home.EmulatedHome``, or
``agent_tools.matter_backend.MatterHome`` over python-matter-server.

Time: the fabric's virtual clock is paused while the agent thinks (unlike SimuHome, bug 17). A call
may cost ``call_cost_s`` seconds of virtual time, advanced after the call (refused calls cost it too:
the agent spent the turn). ``realtime=True`` reproduces SimuHome instead: before each call, virtual
time advances by the wall-clock time since the previous call (or since the toolbox was made).
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import replace
from datetime import datetime
from typing import Any, Literal

from pydantic import ValidationError

from agent_tools import arguments as a
from agent_tools import automation_tools as auto
from agent_tools.control_rules import control_rules_payload
from agent_tools.envelope import SIMUHOME_API_BASE, compat_error, fail, from_fabric_error, http_status, ok
from agent_tools.limits import MAX_OBSERVATION_CHARS, cap_observation, cap_text
from agent_tools.registry import ToolSet, tool
from agent_tools.structure import device_structure
from agent_tools.validation import ArgumentError, decode_arguments, parse_model
from emulator.clock import TICK_S, TIME_FORMAT
from emulator.errors import HomeError
from emulator.home_api import HomeAPI
from emulator.home_config import DeviceConfig
from emulator.home_power import home_power
from emulator.simuhome.values import chip_cluster_name  # SimuHome's spellings are accepted everywhere
from emulator.workflows import WorkflowStep

# Clusters whose CurrentPhase get_attribute reports as a phase name (SimuHome's behaviour for OperationalState).
_PHASED_CLUSTERS = frozenset({"OperationalState", "RvcOperationalState", "OvenCavityOperationalState"})
_PATH_ERRORS = frozenset({"ENDPOINT_NOT_FOUND", "CLUSTER_NOT_FOUND", "ATTRIBUTE_NOT_FOUND"})

SIMUHOME_TOOLS: tuple[str, ...] = (
    "get_rooms",
    "get_room_devices",
    "get_room_states",
    "get_device_structure",
    "get_all_attributes",
    "get_attribute",
    "execute_command",
    "write_attribute",
    "get_cluster_doc",
    "get_environment_control_rules",
    "get_current_time",
    "schedule_workflow",
    "get_workflow_status",
    "cancel_workflow",
    "get_workflow_list",
    "finish",
)
PAPER13_TOOLS: tuple[str, ...] = tuple(
    t for t in SIMUHOME_TOOLS if t not in ("get_all_attributes", "get_workflow_list", "cancel_workflow")
)
"""SimuHome's paper speaks of 13 tools; which 13 is not recorded in its code. This is the *inferred* set
(facts §1.1): the 16 agent tools minus get_all_attributes, get_workflow_list and cancel_workflow."""
ADMIN_TOOLS: tuple[str, ...] = ("get_home_state", "add_device", "remove_device", "set_tick_interval")
# SimuHome's 16 tools plus persistent automations (SMH-Bench's task category 4) and the home's energy.
SIMUHOME_EXT_TOOLS: tuple[str, ...] = SIMUHOME_TOOLS[:-1] + auto.AUTOMATION_TOOL_NAMES + ("get_home_energy", "finish")
TOOL_PROFILES: dict[str, tuple[str, ...]] = {
    "simuhome": SIMUHOME_TOOLS,
    "paper13": PAPER13_TOOLS,
    "simuhome_ext": SIMUHOME_EXT_TOOLS,
}
# Arguments a profile accepts beyond SimuHome's (tool → its wider argument model, a subclass of the tool's
# own model, which is SimuHome's exact argument set). simuhome and paper13 are SimuHome's contract: a key
# SimuHome's tool layer refuses (e.g. schedule_workflow's description) is refused there as SimuHome does.
PROFILE_ARGUMENTS: dict[str, dict[str, type[a.ToolArgs]]] = {
    "simuhome_ext": {"schedule_workflow": a.ScheduleWorkflowExtArgs},
}


class ToolBox(ToolSet, offered=(*SIMUHOME_EXT_TOOLS, *ADMIN_TOOLS)):
    """The agent tools bound to one fabric (one episode)."""

    def __init__(
        self,
        fabric: HomeAPI,
        *,
        profile: str = "simuhome",
        admin: bool = False,
        call_cost_s: float = 0.0,
        realtime: bool = False,
        compat_transport: bool = False,
    ) -> None:
        if profile not in TOOL_PROFILES:
            raise ValueError(f"unknown tool profile {profile!r}; known: {sorted(TOOL_PROFILES)}")
        if not isinstance(call_cost_s, int | float) or not math.isfinite(call_cost_s) or call_cost_s < 0:
            raise ValueError(f"call_cost_s must be a finite number >= 0, got {call_cost_s!r}")
        self.fabric = fabric
        self.profile = profile
        self.admin = admin
        self.call_cost_s = float(call_cost_s)
        self.realtime = realtime
        self.compat_transport = compat_transport
        self.invocations: list[dict[str, Any]] = []
        self.final_answer: str | None = None
        self._names = TOOL_PROFILES[profile] + (ADMIN_TOOLS if admin else ())
        wider = PROFILE_ARGUMENTS.get(profile, {})
        self._specs = {name: replace(spec, model=wider.get(name, spec.model)) for name, spec in self.tools.items()}
        self._last_wall = time.monotonic()

    # ------------------------------------------------------------------------------ ToolCaller
    def names(self) -> list[str]:
        return list(self._names)

    def schemas(self, style: Literal["openai", "mcp"] = "openai") -> list[dict[str, Any]]:
        """Function-calling definitions of the offered tools (OpenAI chat ``tools`` or MCP tool listings)."""
        if style not in ("openai", "mcp"):
            raise ValueError(f"unknown schema style {style!r}; use 'openai' or 'mcp'")
        return [self._specs[name].schema(style) for name in self._names]

    def call(self, name: str, arguments: object = None) -> dict[str, Any]:
        """Run one tool; always returns the envelope ``{status:{code,message}, data, error}``, never raises.

        Arguments are checked against ``agent_tools.limits`` before they are decoded or copied; an
        observation over the size limit is cut, and the envelope says how much was left out."""
        try:
            return self._call(name, arguments)
        except Exception as error:  # whatever a model sends, the episode goes on with a refusal
            envelope = fail("INTERNAL_ERROR", cap_text(f"Internal error ({type(error).__name__}): {error}"))
            self._log(name if isinstance(name, str) else repr(name)[:100], None, envelope, "")
            return envelope

    def _call(self, name: str, arguments: object) -> dict[str, Any]:
        if self.realtime:
            now = time.monotonic()
            self.fabric.advance(max(0.0, now - self._last_wall))
            self._last_wall = now
        virtual_time = self.fabric.now_text()
        params: Any = None  # what the log keeps: only arguments that passed the limits
        try:
            decoded = decode_arguments(arguments)
            params = copy.deepcopy(decoded)
            envelope = self._run(name, decoded)
        except ArgumentError as error:
            envelope = error.envelope
        if envelope.get("error") is None:
            data, left_out = cap_observation(envelope.get("data"))
            if left_out:
                envelope = {
                    **envelope,
                    "data": data,
                    "left_out": {
                        "count": left_out,
                        "reason": f"the observation was over {MAX_OBSERVATION_CHARS} characters; "
                        "ask for less (one device, one room, a status filter)",
                    },
                }
        self._log(name, params, envelope, virtual_time)
        if self.call_cost_s:
            self.fabric.advance(self.call_cost_s)
        return envelope

    # ------------------------------------------------------------------------------ dispatch
    def _run(self, name: str, decoded: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(name, str) or name not in self._names:
            return fail("UNKNOWN_TOOL", f"Unknown tool {name!r}. Available tools: {', '.join(self._names)}")
        tool = self._specs[name]
        args = parse_model(tool.model, decoded)
        try:
            return ok(getattr(self, tool.method)(args))
        except HomeError as error:
            if self.compat_transport:
                return compat_error(http_status(error.code), SIMUHOME_API_BASE + tool.route_for(decoded))
            envelope = from_fabric_error(error)
            envelope["error"]["detail"] = cap_text(envelope["error"]["detail"])
            return envelope
        except ArgumentError:
            raise
        except Exception as error:  # a bug of ours must not end the episode; report it as SimuHome does
            return fail("INTERNAL_ERROR", cap_text(f"Internal error ({type(error).__name__}): {error}"))

    def _log(self, name: object, params: object, envelope: dict[str, Any], virtual_time: str) -> None:
        error = envelope.get("error")
        self.invocations.append(
            {
                "tool": name,
                "params": params,
                "ok": error is None,
                "status_code": envelope["status"]["code"],
                "error_type": error["type"] if error else None,
                "virtual_time": virtual_time,
            }
        )

    # ------------------------------------------------------------------------------ rooms
    @tool(
        "get_rooms",
        a.NoArgs,
        "List the home's rooms: {rooms:[{room_id, display_name}]}, sorted by room_id.",
        mutates_state=False,
        route="/rooms",
    )
    def _tool_get_rooms(self, args: a.NoArgs) -> dict[str, Any]:
        return {"rooms": [{"room_id": r.room_id, "display_name": r.name} for r in self.fabric.rooms()]}

    @tool(
        "get_room_devices",
        a.RoomArgs,
        "Devices in a room: a map device_id → {device_type}.",
        mutates_state=False,
        route="/rooms/{room_id}/devices",
    )
    def _tool_get_room_devices(self, args: a.RoomArgs) -> dict[str, Any]:
        return {d.device_id: {"device_type": d.device_type} for d in self.fabric.devices(args.room_id)}

    @tool(
        "get_room_states",
        a.RoomArgs,
        "A room's environment now: temperature (0.01 °C, 2512 = 25.12 °C), humidity (0.01 %, 4800 = 48 %), "
        "illuminance (lux) and pm10 (µg/m³).",
        mutates_state=False,
        route="/rooms/{room_id}/states",
    )
    def _tool_get_room_states(self, args: a.RoomArgs) -> dict[str, Any]:
        state = self.fabric.room_state(args.room_id)
        return {key: state[key] for key in ("temperature", "pm10", "illuminance", "humidity")}

    # ------------------------------------------------------------------------------ devices
    @tool(
        "get_device_structure",
        a.DeviceArgs,
        "A device's endpoints → clusters → attributes (value, type, readonly, enum names and values, ranges) "
        "and commands with their argument names, types, defaults and ranges.",
        mutates_state=False,
        route="/devices/{device_id}/structure",
    )
    def _tool_get_device_structure(self, args: a.DeviceArgs) -> dict[str, Any]:
        structure = device_structure(self.fabric, args.device_id)
        if self.profile == "simuhome_ext":  # the node id a switch's Binding entry names; not SimuHome's contract
            structure["node_id"] = self.fabric.node_id(args.device_id)
        return structure

    @tool(
        "get_all_attributes",
        a.DeviceArgs,
        'Every attribute of a device as a flat map "<endpoint>.<Cluster>.<Attribute>" → value.',
        mutates_state=False,
        route="/devices/{device_id}/attributes",
    )
    def _tool_get_all_attributes(self, args: a.DeviceArgs) -> dict[str, Any]:
        return self.fabric.read_all(args.device_id)

    @tool(
        "get_attribute",
        a.GetAttributeArgs,
        "Read one attribute value. OperationalState CurrentPhase is returned as the phase name. An unknown "
        "endpoint, cluster or attribute is an error naming what exists.",
        mutates_state=False,
        route="/devices/{device_id}/attributes/{endpoint_id}/{cluster_id}/{attribute_id}",
    )
    def _tool_get_attribute(self, args: a.GetAttributeArgs) -> Any:
        cluster = chip_cluster_name(args.cluster_id)
        try:
            value = self.fabric.read(args.device_id, args.endpoint_id, cluster, args.attribute_id)
        except HomeError as error:
            if self.compat_transport and error.code in _PATH_ERRORS:
                return None  # SimuHome answers an unknown path with a successful null (bug 2)
            raise
        if cluster in _PHASED_CLUSTERS and args.attribute_id == "CurrentPhase" and isinstance(value, int):
            phases = self.fabric.read(args.device_id, args.endpoint_id, cluster, "PhaseList")
            if isinstance(phases, list) and 0 <= value < len(phases):
                return phases[value]
        return value

    @tool(
        "execute_command",
        a.ExecuteCommandArgs,
        "Invoke a device command (e.g. OnOff On, LevelControl MoveToLevel, FanControl Step, OperationalState "
        "Start). Errors say why (device off, value out of range, invalid in state) and what is allowed.",
        mutates_state=True,
        route="/devices/{device_id}/commands",
    )
    def _tool_execute_command(self, args: a.ExecuteCommandArgs) -> dict[str, Any]:
        return self.fabric.invoke(
            args.device_id, args.endpoint_id, chip_cluster_name(args.cluster_id), args.command_id, args.args
        ).to_dict()

    @tool(
        "write_attribute",
        a.WriteAttributeArgs,
        "Write a writable attribute (e.g. FanControl PercentSetting, Thermostat OccupiedCoolingSetpoint, "
        "SystemMode). Returns old_value and new_value.",
        mutates_state=True,
        route="/devices/{device_id}/attributes/write",
    )
    def _tool_write_attribute(self, args: a.WriteAttributeArgs) -> dict[str, Any]:
        return self.fabric.write(
            args.device_id, args.endpoint_id, chip_cluster_name(args.cluster_id), args.attribute_id, args.value
        ).to_dict()

    # ------------------------------------------------------------------------------ knowledge
    @tool(
        "get_cluster_doc",
        a.ClusterDocArgs,
        "Search the documentation of the clusters and device types this home implements (attributes, "
        "commands, arguments, ranges, device rules). Returns {text}: the best top_k chunks.",
        mutates_state=False,
        route="/cluster_doc",
    )
    def _tool_get_cluster_doc(self, args: a.ClusterDocArgs) -> dict[str, Any]:
        from agent_tools.cluster_docs import search_text  # the documentation index loads with the first search

        return {"text": search_text(args.query, args.top_k)}

    @tool(
        "get_environment_control_rules",
        a.ControlRulesArgs,
        "Which device types change a room's temperature, humidity, air_quality (pm10) or illuminance, the "
        "actions that make them act, and their rates and limits. control_rules is a JSON string.",
        mutates_state=False,
        route="/environment/control_rules/{state}",
    )
    def _tool_get_environment_control_rules(self, args: a.ControlRulesArgs) -> dict[str, Any]:
        physics = getattr(self.fabric, "physics", None)  # a Matter backend has no physics model: the defaults
        return control_rules_payload(args.state, physics.params if physics is not None else None)

    @tool(
        "get_current_time",
        a.NoArgs,
        'The home\'s virtual time now: {now: "YYYY-MM-DD HH:MM:SS"}.',
        mutates_state=False,
        route="/time",
    )
    def _tool_get_current_time(self, args: a.NoArgs) -> dict[str, Any]:
        return {"now": self.fabric.now_text()}

    @tool(
        "get_home_energy",
        a.NoArgs,
        "The home's electricity, every metered device added up (emulator/home_power.py): {active_power_mW (> 0 "
        "drawn from the grid, < 0 fed back: solar panels and a discharging battery count negative), "
        "consumption_mW, production_mW, imported_mWh, exported_mWh, net_energy_mWh, unknown_power (devices "
        "whose draw is unknown, counted as 0), meters: [{device_id, device_type, endpoint, active_power_mW, "
        "imported_mWh, exported_mWh, as_of_s}]}; each meter's energy is as it last counted it (as_of_s).",
        mutates_state=False,
    )
    def _tool_get_home_energy(self, args: a.NoArgs) -> dict[str, Any]:
        return home_power(self.fabric).as_dict()

    # ------------------------------------------------------------------------------ workflows
    def _steps(self, steps: list[a.WorkflowStepArgs]) -> list[WorkflowStep]:
        out = []
        for index, step in enumerate(steps):
            where = f"steps[{index}] ({step.tool})"
            if step.tool == "execute_command":
                command = parse_model(a.ExecuteCommandArgs, step.args, where=where)
                out.append(
                    WorkflowStep(
                        "invoke",
                        command.device_id,
                        command.endpoint_id,
                        chip_cluster_name(command.cluster_id),
                        command.command_id,
                        dict(command.args),
                    )
                )
            else:
                write = parse_model(a.WriteAttributeArgs, step.args, where=where)
                out.append(
                    WorkflowStep(
                        "write",
                        write.device_id,
                        write.endpoint_id,
                        chip_cluster_name(write.cluster_id),
                        write.attribute_id,
                        value=write.value,
                    )
                )
        return out

    @tool(
        "schedule_workflow",
        a.ScheduleWorkflowArgs,
        "Run execute_command / write_attribute steps at a future virtual time. Every step is checked now; a "
        "step can still fail when it runs if the device is then in the wrong state (see get_workflow_status).",
        mutates_state=True,
        route="/schedule/workflow",
    )
    def _tool_schedule_workflow(self, args: a.ScheduleWorkflowArgs | a.ScheduleWorkflowExtArgs) -> dict[str, Any]:
        try:
            start = datetime.strptime(args.start_time, TIME_FORMAT)
        except ValueError:
            raise HomeError(
                "VALIDATION_ERROR",
                f"start_time {args.start_time!r} is not a valid time; expected 'YYYY-MM-DD HH:MM:SS'",
            ) from None
        if start <= self.fabric.now():
            raise HomeError(
                "VALIDATION_ERROR",
                f"start_time {args.start_time} is not in the future (now {self.fabric.now_text()}); use a later time",
            )
        steps = self._steps(args.steps)
        note = args.description if isinstance(args, a.ScheduleWorkflowExtArgs) else None
        workflow = self.fabric.schedule(args.start_time, steps, note or "")
        return {
            "workflow_id": workflow.workflow_id,
            "start_time": workflow.start_time,
            "status": workflow.status,
            "total_steps": len(workflow.steps),
        }

    @tool(
        "get_workflow_status",
        a.WorkflowArgs,
        "Status of a scheduled workflow: pending, running, completed, failed (with the failing step and "
        "cause) or cancelled.",
        mutates_state=False,
        route="/schedule/workflow/{workflow_id}/status",
    )
    def _tool_get_workflow_status(self, args: a.WorkflowArgs) -> dict[str, Any]:
        return self.fabric.workflow(args.workflow_id).to_dict()

    @tool(
        "cancel_workflow",
        a.WorkflowArgs,
        "Cancel a pending workflow.",
        mutates_state=True,
        route="/schedule/workflow/{workflow_id}/cancel",
    )
    def _tool_cancel_workflow(self, args: a.WorkflowArgs) -> dict[str, Any]:
        already = self.fabric.workflow(args.workflow_id).status == "cancelled"
        workflow = self.fabric.cancel(args.workflow_id)
        out: dict[str, Any] = {"workflow_id": workflow.workflow_id, "status": workflow.status}
        if already:
            out["message"] = "Already cancelled"
        return out

    @tool(
        "get_workflow_list",
        a.WorkflowListArgs,
        "List scheduled workflows, optionally filtered by status and start-time window.",
        mutates_state=False,
        route="/schedule/workflows",
    )
    def _tool_get_workflow_list(self, args: a.WorkflowListArgs) -> list[dict[str, Any]]:
        if args.from_time and args.to_time and args.from_time > args.to_time:
            raise HomeError("VALIDATION_ERROR", f"from_time {args.from_time} is after to_time {args.to_time}")
        out = []
        for workflow in self.fabric.workflows(args.status):
            if (args.from_time and workflow.start_time < args.from_time) or (
                args.to_time and workflow.start_time > args.to_time
            ):
                continue
            entry = workflow.to_dict()
            entry.pop("error")
            out.append(entry)
        return out

    # ------------------------------------------------------------------------------ automations
    @tool(
        "create_automation",
        auto.CreateAutomationArgs,
        auto.DESCRIPTIONS["create_automation"],
        mutates_state=True,
        route="/automations",
    )
    def _tool_create_automation(self, args: auto.CreateAutomationArgs) -> dict[str, Any]:
        return auto.create_automation(self.fabric, args, self._steps(args.actions), chip_cluster_name)

    @tool(
        "list_automations", a.NoArgs, auto.DESCRIPTIONS["list_automations"], mutates_state=False, route="/automations"
    )
    def _tool_list_automations(self, args: a.NoArgs) -> list[dict[str, Any]]:
        return auto.list_automations(self.fabric)

    @tool(
        "delete_automation",
        auto.DeleteAutomationArgs,
        auto.DESCRIPTIONS["delete_automation"],
        mutates_state=True,
        route="/automations/{automation_id}",
    )
    def _tool_delete_automation(self, args: auto.DeleteAutomationArgs) -> dict[str, Any]:
        return auto.delete_automation(self.fabric, args)

    @tool("finish", a.FinishArgs, "End the task with the final answer to the user.", mutates_state=False)
    def _tool_finish(self, args: a.FinishArgs) -> dict[str, Any]:
        self.final_answer = args.answer
        return {"answer": args.answer}

    # ------------------------------------------------------------------------------ admin
    @tool(
        "get_home_state",
        a.NoArgs,
        "(admin) The whole home: time, rooms with states and device attributes.",
        mutates_state=False,
        route="/home/state",
    )
    def _tool_get_home_state(self, args: a.NoArgs) -> dict[str, Any]:
        """SimuHome's home snapshot shape (facts §1.5)."""
        snapshot = self.fabric.snapshot()
        rooms: dict[str, Any] = {}
        for room_id, room in snapshot["rooms"].items():
            devices = [
                {"device_id": d, "device_type": v["device_type"], "attributes": v["attributes"]}
                for d, v in snapshot["devices"].items()
                if v["room_id"] == room_id
            ]
            rooms[room_id] = {"state": room["state"], "devices": devices}
        return {
            "tick_interval": TICK_S,
            "current_tick": snapshot["tick"],
            "current_time": snapshot["time"],
            "base_time": snapshot["base_time"],
            "rooms": rooms,
        }

    @tool(
        "add_device",
        a.AddDeviceArgs,
        "(admin) Add a catalogue device to an existing room.",
        mutates_state=True,
        route="/devices/add",
    )
    def _tool_add_device(self, args: a.AddDeviceArgs) -> dict[str, Any]:
        try:
            config = DeviceConfig(id=args.device_id, type=args.device_type, room=args.room_id)
        except ValidationError as error:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
            raise HomeError("INVALID_ARGUMENT", f"invalid device: {problems}") from None
        device = self.fabric.add_device(config)
        return {"room_id": device.room_id, "device_id": device.device_id}

    @tool(
        "remove_device",
        a.DeviceArgs,
        "(admin) Remove a device from the home.",
        mutates_state=True,
        route="/devices/{device_id}",
    )
    def _tool_remove_device(self, args: a.DeviceArgs) -> dict[str, Any]:
        self.fabric.remove_device(args.device_id)
        return {"device_id": args.device_id}

    @tool(
        "set_tick_interval",
        a.TickIntervalArgs,
        "(admin) SimuHome's tick-interval setting; this emulator's clock is event-driven at a fixed 0.1 s "
        "tick, so only 0.1 is accepted.",
        mutates_state=False,
        route="/simulation/tick_interval",
    )
    def _tool_set_tick_interval(self, args: a.TickIntervalArgs) -> dict[str, Any]:
        if not math.isclose(args.tick_interval, TICK_S, rel_tol=0, abs_tol=1e-9):
            raise HomeError(
                "VALIDATION_ERROR",
                f"tick_interval {args.tick_interval} cannot be set: this emulator's clock is event-driven with a "
                f"fixed {TICK_S} s tick (virtual time moves only when advanced, so the interval would not "
                "change speed anyway)",
                allowed=[TICK_S],
            )
        return {
            "tick_interval": TICK_S,
            "device_count": len(list(self.fabric.devices())),
            "aggregator_count": 4 * len(list(self.fabric.rooms())),
        }


def _check_profile_arguments() -> None:
    """Checked at import: a wider argument model belongs to a tool of its profile and keeps every argument of
    the tool's own model (it subclasses it), so the tool's method reads it as it reads SimuHome's."""
    for profile, wider in PROFILE_ARGUMENTS.items():
        for name, model in wider.items():
            if profile not in TOOL_PROFILES or name not in TOOL_PROFILES[profile]:
                raise TypeError(f"PROFILE_ARGUMENTS[{profile!r}][{name!r}]: not a tool of that profile")
            if not issubclass(model, ToolBox.tools[name].model):
                raise TypeError(
                    f"PROFILE_ARGUMENTS[{profile!r}][{name!r}]: {model.__name__} does not extend "
                    f"{ToolBox.tools[name].model.__name__}"
                )


_check_profile_arguments()
