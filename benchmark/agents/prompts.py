"""Prompt text of the ReAct agent (our own wording) and how a task becomes the first messages.

Two variants share one body: ``native`` (the model calls tools through the function-calling
interface) and ``text`` (the model writes one JSON object per turn; the tools are described in the
prompt from the same schemas the native mode sends as ``tools``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from benchmark.agents.base import AgentTask

HOME_GUIDE = """\
You are the assistant of a smart home. You can only see and change the home through the tools you are \
given; they talk to the home's devices, which follow the Matter standard.

How the home is organised
- The home has rooms (get_rooms). Each room has devices (get_room_devices) and measured conditions \
(get_room_states).
- A device has numbered endpoints; each endpoint hosts clusters such as OnOff, LevelControl, FanControl, \
Thermostat or OperationalState, which have attributes and commands. An attribute path reads \
"<endpoint>.<Cluster>.<Attribute>", for example 1.OnOff.OnOff. get_device_structure shows what a device \
offers; get_cluster_doc explains how a cluster behaves and which arguments its commands take.

Units
- Temperatures and temperature setpoints are hundredths of a degree Celsius (2350 means 23.5 °C).
- Humidity is in hundredths of a percent (4500 means 45 %).
- Illuminance is in lux and PM10 (dust) in µg/m³, as they are.
Speak to the user in everyday units.

How to work
1. Never guess an identifier. Room ids, device ids, endpoint numbers and cluster, attribute and command \
names must be exactly the ones the tools returned. Look them up first.
2. Check before you act. Read the current state of a device before changing it; some operations need the \
device switched on first, some settings cannot change while an appliance runs. When a tool answers with an \
error, read its detail, correct the call, and do not repeat the same failing call.
3. Changing a room's temperature, humidity, light or air quality needs a device that actually acts on it \
(a mode, a setpoint, a fan speed, a brightness), not only switching something on. \
get_environment_control_rules says what works for each kind of condition.
4. get_current_time gives the home's clock. A running appliance (dishwasher, washer, dryer, robot vacuum) \
reports the seconds it still needs in OperationalState.CountdownTime; use it to know when it will finish.
5. Use schedule_workflow only when the user wants something to happen later, and only with a start time \
in the future, computed from get_current_time (and countdowns when the request refers to an appliance \
finishing). Each step is an execute_command or write_attribute call with all of its arguments, device_id \
included. A scheduled workflow has not run yet: do not tell the user it already happened.
6. If the request cannot be done — the device or room the user means does not exist, nothing present can \
produce the change, it is already as the user wants, or the times the user gives contradict each other or \
the clock — do not change anything; explain the problem in your answer.
7. Trust the user's description of how the room feels; the sensors tell you where to start.
8. When you are done, end with finish and a short answer in plain language: what you found or what you \
did, with the values the user asked for."""

NATIVE_TAIL = """\

Call the tools through the function-calling interface; you may call several in one turn. End the task \
by calling finish with your answer for the user."""

TEXT_TAIL = """\

Tools
{tool_list}

Reply format
Every reply must be exactly one JSON object and nothing else:
{{"thought": "<your short reasoning>", "action": "<one tool name>", "action_input": {{<the tool's arguments>}}}}
Call one tool per reply. The result comes back in a message that starts with "Observation:". End the \
task with "action": "finish" and "action_input": {{"answer": "{answer_placeholder}"}}."""

ANSWER_PLACEHOLDER = "<your answer for the user>"
PLACEHOLDER = re.compile(r"<[^<>\n]{3,80}>")

NATIVE_NUDGE = "Continue by calling one of the tools. When you are done, call finish with your answer for the user."


def system_prompt(mode: str, schemas: Sequence[Mapping[str, Any]]) -> str:
    if mode == "native":
        return HOME_GUIDE + NATIVE_TAIL
    return HOME_GUIDE + TEXT_TAIL.format(tool_list=describe_tools(schemas), answer_placeholder=ANSWER_PLACEHOLDER)


def describe_tools(schemas: Sequence[Mapping[str, Any]]) -> str:
    """The tools as text, from their function-calling schemas, with what native mode would have shown:

    ``- name(arg, opt?) — what it does`` then one indented line per argument (type, description).
    """
    blocks = []
    for schema in schemas:
        function = schema.get("function", schema)
        parameters = function.get("parameters") or {}
        required = set(parameters.get("required") or [])
        properties = parameters.get("properties") or {}
        signature = ", ".join(name if name in required else f"{name}?" for name in properties)
        description = _one_line(function.get("description"))
        lines = [f"- {function.get('name')}({signature})" + (f" — {description}" if description else "")]
        for name, spec in properties.items():
            note = _one_line(spec.get("description"))
            lines.append(f"    {name}: {_type_name(spec)}" + (f" — {note}" if note else ""))
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def _one_line(text: Any) -> str:
    return " ".join(str(text or "").split())


def _type_name(spec: Mapping[str, Any]) -> str:
    if "enum" in spec:
        return " | ".join(json.dumps(value) for value in spec["enum"])
    kind = spec.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array" and isinstance(spec.get("items"), Mapping):
        return f"array of {_type_name(spec['items'])}"
    if kind == "object" and isinstance(spec.get("properties"), Mapping) and spec["properties"]:
        fields = ", ".join(f"{name}: {_type_name(sub)}" for name, sub in spec["properties"].items())
        return "{" + fields + "}"
    if kind is not None:
        return str(kind)
    for key in ("anyOf", "oneOf"):
        if key in spec:
            return " | ".join(_type_name(option) for option in spec[key] if isinstance(option, Mapping))
    return "any"


def task_message(task: AgentTask) -> str:
    lines = [
        f"User request: {task.query}",
        f"User's location: {task.user_location}",
        f"Current time: {task.current_time}",
    ]
    if task.memory:
        lines += [
            "",
            "What you remember about this household:",
            *(f"- {key}: {_compact(value)}" for key, value in task.memory.items()),
        ]
    earlier = [entry for entry in task.dialogue_history if not _is_chat_message(entry)]
    if earlier:
        lines += ["", "Earlier in this conversation:", *(f"- {_compact(entry)}" for entry in earlier)]
    return "\n".join(lines)


def history_messages(task: AgentTask) -> list[dict[str, Any]]:
    """Prior turns that are already chat messages (user/assistant text) go in as messages, in order."""
    return [
        {"role": entry["role"], "content": entry["content"]}
        for entry in task.dialogue_history
        if _is_chat_message(entry)
    ]


def first_messages(task: AgentTask, mode: str, schemas: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": system_prompt(mode, schemas)},
        *history_messages(task),
        {"role": "user", "content": user_content(task)},
    ]


def user_content(task: AgentTask) -> str | list[dict[str, Any]]:
    """The request as text, or as text + the spoken request (an ``input_audio`` part) for audio input."""
    audio = task.extras.get("user_audio_part")
    return task_message(task) if audio is None else [{"type": "text", "text": task_message(task)}, audio]


def observation_text(envelope: Any) -> str:
    return json.dumps(envelope, ensure_ascii=False)


def text_observation(envelope: Any) -> str:
    return "Observation: " + observation_text(envelope)


def text_correction(problem: str) -> str:
    return (
        "Observation: your reply could not be used: " + problem + ". Reply with exactly one JSON object "
        '{"thought": "...", "action": "<tool name>", "action_input": {...}}.'
    )


def _is_chat_message(entry: Mapping[str, Any]) -> bool:
    return entry.get("role") in ("user", "assistant") and isinstance(entry.get("content"), str)


def _compact(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def placeholder_in(answer: Any) -> str | None:
    """The reply format's placeholder when ``answer`` is one copied back (``<your answer for the user>``, or
    any answer that is nothing but a ``<…>`` template slot), else None."""
    if not isinstance(answer, str):
        return None
    text = answer.strip()
    if ANSWER_PLACEHOLDER in text:
        return ANSWER_PLACEHOLDER
    return text if PLACEHOLDER.fullmatch(text) else None


def cut_off_problem(completion_tokens: int) -> str:
    size = f" ({completion_tokens} tokens)" if completion_tokens else ""
    return f"the reply was cut off at the token limit{size} before it was complete"


def cut_off_correction(mode: str, problem: str) -> str:
    if mode == "native":
        return (
            f"Your last reply could not be used: {problem}. Keep replies short: call one tool at a time, "
            f"and when you are done call finish with a short answer."
        )
    return (
        f"Observation: your reply could not be used: {problem}. Reply with exactly one short JSON object "
        '{"thought": "...", "action": "<tool name>", "action_input": {...}}.'
    )
