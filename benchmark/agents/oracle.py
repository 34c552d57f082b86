"""The oracle: solves an episode from its goals, acting only through the agent tools.

It proves every episode solvable and that the tools, the fabric and the evaluators agree. Like an agent it
reads rooms and devices first (which satisfies the required actions), then performs the asserts' writes
and commands in a valid order (power on first, settings and modes before Start, setpoints ordered for the
thermostat deadband, power off last), schedules qt4 goals with ``schedule_workflow`` at their virtual times,
drives qt2 rooms with real control actions of every actuator that moves the variable the asked way,
answers qt1 from tool reads, and answers infeasible kinds with the reason without changing anything.

The steps come from ``benchmark.scoring.step_planning`` (every device rule read from the device itself), the tool calls
and what they returned live in ``oracle_session``, the wording of answers in ``oracle_answers``; this module
decides what to do for each query type.

The runner hands it the episode in ``task.extras["episode"]`` (``needs_episode``); it is deterministic.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any, cast

from benchmark.agents.base import AgentBase, AgentOutcome, AgentTask, ToolCaller
from benchmark.agents.oracle_answers import display, missing_device, say, spoken
from benchmark.agents.oracle_session import OracleSession, tool_call
from benchmark.scoring.automation_scoring import gold_automations, tool_arguments
from benchmark.scoring.charging_scoring import charging_plan
from benchmark.scoring.evaluators.state_comparison import ROLES_BY_VARIABLE
from benchmark.scoring.step_planning import DevicePlan, control_steps, split_path
from benchmark.scoring.world_checks import episode_world_checks
from benchmark.suites.simuhome.episode import (
    DeviceAttributeGoal,
    DirectionGoal,
    Episode,
    RoomStateGoal,
    ScheduleGoal,
    TargetGoal,
    parse_episode,
)
from emulator.catalogue import CATALOGUE
from emulator.clock import TICKS_PER_SECOND, TIME_FORMAT
from emulator.simuhome.values import our_key
from emulator.workflows import WorkflowStep


class OracleAgent(AgentBase):
    name = "oracle"
    needs_episode = True

    async def run(self, task: AgentTask, tools: ToolCaller) -> AgentOutcome:
        raw = task.extras.get("episode")
        if raw is None:
            return AgentOutcome(None, [], "aborted", error="the oracle needs the episode in task.extras['episode']")
        episode = raw if isinstance(raw, Episode) else parse_episode(raw, check_home=False)
        session = OracleSession(tools)
        for action in episode.required_actions:
            data = session.data(action.tool, dict(action.params), "Check the rooms the request is about.")
            if action.tool == "get_room_devices" and isinstance(data, dict):
                session.room_devices[cast(str, action.params.get("room_id"))] = data
            if action.tool == "get_room_states" and isinstance(data, dict):
                session.room_states[cast(str, action.params.get("room_id"))] = data
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
        for check in episode_world_checks(episode):  # settings the world's acts will show (a binding, Auto)
            session.run_steps([step.to_workflow_step() for step in check.setup])
        for rule in charging_plan(episode):  # a schedule that meets a charging goal (one of many)
            session.call("create_automation", tool_arguments(rule), f"Schedule '{rule.name}'.")
        session.call("finish", {"answer": answer}, "Done.")
        return AgentOutcome(answer, session.steps, "finished")

    # qt1 ---------------------------------------------------------------------------------------------------
    def _qt1(self, episode: Episode, session: OracleSession) -> str:
        sentences = []
        states = session.room_states
        for goal in episode.goals:
            if isinstance(goal, RoomStateGoal):
                if goal.room_id not in states:
                    states[goal.room_id] = session.data("get_room_states", {"room_id": goal.room_id}) or {}
                value = states[goal.room_id].get(goal.room_state)
                text = "unknown" if value is None else display(goal.room_state, float(value))
                sentences.append(f"The {goal.room_state} in the {spoken(goal.room_id)} is {text}.")
            elif isinstance(goal, DeviceAttributeGoal):
                if goal.device_id not in session.devices_in(goal.room_id):
                    sentences.append(missing_device(goal.device_id, goal.device_type, goal.room_id))
                    continue
                endpoint, cluster, attribute, rest = split_path(goal.attribute)
                value = session.data(
                    "get_attribute",
                    {
                        "device_id": goal.device_id,
                        "endpoint_id": endpoint,
                        "cluster_id": cluster,
                        "attribute_id": attribute,
                    },
                )
                for key in rest:
                    value = value.get(key, value.get(our_key(key))) if isinstance(value, dict) else None
                sentences.append(f"{goal.device_id} in the {spoken(goal.room_id)} reports {attribute} = {say(value)}.")
        return " ".join(sentences)

    # infeasible kinds ------------------------------------------------------------------------------------
    def _infeasible(self, episode: Episode, session: OracleSession) -> str:
        if episode.query_type == "qt2":
            return self._qt2_infeasible(episode, session)
        if episode.query_type == "qt3":
            sentences = []
            for goal in episode.goals:
                if isinstance(goal, TargetGoal):
                    if goal.device_id in session.devices_in(goal.room_id):
                        sentences.append(f"{goal.device_id} is in the {spoken(goal.room_id)} but I left it as it is.")
                    else:
                        sentences.append(missing_device(goal.device_id, goal.device_type, goal.room_id))
            return " ".join(sentences) + " Nothing was changed."
        return self._qt4_infeasible(episode, session)

    def _qt2_infeasible(self, episode: Episode, session: OracleSession) -> str:
        family = (episode.meta.model_extra or {}).get("infeasible_family")
        sentences = []
        for goal in episode.goals:
            if not isinstance(goal, DirectionGoal):
                continue
            devices = session.devices_in(goal.room_id)
            room = spoken(goal.room_id)
            if goal.feasibility is True and family != "nonexistence":
                sentences.append(self._drive_room(goal, session, devices))
                continue
            movers = sorted(
                d
                for d, info in devices.items()
                if _roles(info.get("device_type", "")) & ROLES_BY_VARIABLE[goal.room_state]
            )
            verb = "raise" if goal.direction == "increase" else "lower"
            if family == "nonexistence" or not movers:
                kind = (goal.device_type or "suitable device").replace("_", " ")
                present = ", ".join(sorted(devices)) or "no devices"
                sentences.append(
                    f"I cannot {verb} the {goal.room_state} in the {room}: there is no {kind} or any "
                    f"other device there that can do it (the room has {present})."
                )
            else:
                sentences.append(
                    f"I cannot {verb} the {goal.room_state} in the {room} any further: the devices "
                    f"that control it ({', '.join(movers)}) are already at their limit, so nothing "
                    f"more can be done."
                )
        return " ".join(sentences)

    def _qt4_infeasible(self, episode: Episode, session: OracleSession) -> str:
        for goal in episode.goals:
            if isinstance(goal, ScheduleGoal) and goal.anchor.device_id:
                session.data(
                    "get_attribute",
                    {
                        "device_id": goal.anchor.device_id,
                        "endpoint_id": 1,
                        "cluster_id": "OperationalState",
                        "attribute_id": "CountdownTime",
                    },
                    "How long until the appliance finishes?",
                )
        now = session.data("get_current_time", {}) or {}
        facts = episode.temporal_conflict.model_dump() if episode.temporal_conflict is not None else {}
        kind = facts.get("type") or "timing"
        parts = [f"I did not schedule anything because the timing in your request conflicts ({kind})."]
        if facts.get("expected_time") and facts.get("conflict_time"):
            parts.append(
                f"The relative timing means {facts['expected_time']}, but you also said {facts['conflict_time']}."
            )
        elif facts.get("anchor_end_time"):
            parts.append(f"The appliance finishes at {facts['anchor_end_time']}, which does not fit the request.")
        if now.get("now"):
            parts.append(f"It is now {now['now'][11:]}.")
        parts.append("Which time do you want?")
        return " ".join(parts)

    # qt2 -----------------------------------------------------------------------------------------------------
    def _qt2(self, episode: Episode, session: OracleSession) -> str:
        sentences = []
        for goal in episode.goals:
            if isinstance(goal, DirectionGoal):
                sentences.append(self._drive_room(goal, session, session.devices_in(goal.room_id)))
        return " ".join(sentences)

    def _drive_room(self, goal: DirectionGoal, session: OracleSession, devices: dict[str, Any]) -> str:
        state = "air_quality" if goal.room_state == "pm10" else goal.room_state
        session.data(
            "get_environment_control_rules",
            {"state": state},
            f"Which devices can {goal.direction} the {goal.room_state}?",
        )
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
        room = spoken(goal.room_id)
        if not acted:
            return f"Everything in the {room} is already set to {goal.direction} the {goal.room_state}."
        text = f"To {goal.direction} the {goal.room_state} in the {room} I adjusted {', '.join(acted)}."
        return text + (f" Problems: {'; '.join(problems)}." if problems else "")

    # qt3 -----------------------------------------------------------------------------------------------------
    def _qt3(self, episode: Episode, session: OracleSession) -> str:
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
    def _qt4(self, episode: Episode, session: OracleSession, current_time: str) -> str:
        now_data = session.data("get_current_time", {}, "What time is it in the home?") or {}
        now_text = now_data.get("now") or current_time
        base = datetime.strptime(episode.base_time, TIME_FORMAT)
        now_tick = round((datetime.strptime(now_text, TIME_FORMAT) - base).total_seconds() * TICKS_PER_SECOND)
        goals = sorted((g for g in episode.goals if isinstance(g, ScheduleGoal)), key=lambda g: g.when.at_tick)
        for anchor in sorted({(g.anchor.device_id, g.anchor.device_type or "") for g in goals if g.anchor.device_id}):
            if anchor:
                session.data(
                    "get_attribute",
                    {
                        "device_id": anchor[0],
                        "endpoint_id": 1,
                        "cluster_id": _anchor_cluster(anchor[1]),
                        "attribute_id": "CountdownTime",
                    },
                    "When does the appliance finish?",
                )
        plans: dict[str, DevicePlan] = {}
        scheduled, immediate, problems = [], [], []
        for goal in goals:
            steps: list[WorkflowStep] = []
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
            arguments: dict[str, Any] = {"start_time": start, "steps": [tool_call(s) for s in steps]}
            if session.offers_argument("schedule_workflow", "description"):  # simuhome_ext; SimuHome refuses it
                arguments["description"] = f"goal at {start}"
            envelope = session.call("schedule_workflow", arguments, f"Schedule {len(steps)} step(s) for {start}.")
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
