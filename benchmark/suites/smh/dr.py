"""Direct Reasoning: the full-context prompt (§5) and the strict JSON reply ``{mode, response, actions |
automations | clarification}``.

The prompt carries the request, dialogue history, memory, entrance device, time, rooms, every device with
its current values and component paths, and each product's schema once (deduplicated by ``spid``). The
reply must be one JSON object (a ```json fence around it is tolerated); anything else is a format failure.
Actions and rules are kept as given: their validity is judged when they are replayed (AV / AJ).
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_tools.smh.home_env import HomeEnv
from benchmark.suites.smh.instance import Instance

SYSTEM = """\
You are the assistant of a smart home. You get the whole home at once: rooms, devices with their current \
values, and each product's schema (attributes with type/range/options/unit; services with typed arguments). \
Multi-function devices have components: address them as "component.service" (e.g. "light.turn_on").

Reply with exactly one JSON object and nothing else:
{"mode": "execute" | "clarify" | "answer" | "automate",
 "response": "<what you tell the user; for clarify: your one question>",
 "actions": [{"did": "<device id>", "locator": "<service path>", "arguments": {...}}],
 "automations": [{"name": "...", "trigger": {"time_cron": "<Quartz: sec min hour dom month dow year>"} or \
{"state": {"did": "...", "attribute": "...", "op": ">", "value": 75}}, "conditions": [{"did": "...", \
"attribute": "...", "op": "==", "value": "no"}], "actions": [{"did": "...", "locator": "...", "arguments": {}}]}]}
- execute: the actions run in order, now. Only change what the request needs; every other device must keep \
its state. Devices that are off refuse most settings until turned on.
- clarify: when the request cannot be carried out without information only the user has; ask one question.
- answer: a question about the home; answer it in "response" from the values given; no actions.
- automate: a rule for later or for a condition; put it in "automations"; no actions."""


class DrReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    mode: Literal["execute", "clarify", "answer", "automate"]
    response: str = ""
    actions: list[Any] = Field(default_factory=list)
    automations: list[Any] = Field(default_factory=list)
    clarification: str | None = None

    @property
    def question(self) -> str:
        return self.clarification or self.response


class ReplyFormatError(ValueError):
    pass


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def parse_reply(text: str | None) -> DrReply:
    if not text or not text.strip():
        raise ReplyFormatError("empty output")
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text.strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError as error:
        raise ReplyFormatError(f"not JSON: {error.msg} at {error.pos}") from None
    if not isinstance(data, dict):
        raise ReplyFormatError(f"the reply is a JSON {type(data).__name__}, not an object")
    try:
        return DrReply.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        raise ReplyFormatError(f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from None


def context(instance: Instance, env: HomeEnv) -> dict[str, Any]:
    schemas: dict[str, Any] = {}
    devices = []
    for did in env.device_ids():
        data = env.userdata(did)
        if data["spid"] not in schemas:
            view = env.export_device(did, values=False)
            schemas[data["spid"]] = {
                k: view[k] for k in ("description", "attributes", "services", "components") if view[k]
            }
        devices.append(
            {
                "did": did,
                "name": env.device_name(did),
                "room": data["room"],
                "spid": data["spid"],
                "category": data["category"],
                "state": env.device_state(did),
            }
        )
    return {
        "current_time": instance.current_time,
        "entrance_device": instance.entrance_device,
        "rooms": env.rooms(),
        "devices": devices,
        "schemas": schemas,
        "dialogue_history": [t.model_dump(mode="json", exclude={"prior_values"}) for t in instance.dialogue_history],
        "memory": instance.memory.model_dump(mode="json"),
    }


def first_messages(instance: Instance, env: HomeEnv) -> list[dict[str, Any]]:
    home = json.dumps(context(instance, env), ensure_ascii=False, separators=(",", ":"))
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"HOME: {home}\n\nREQUEST: {instance.user_query}"},
    ]


def reply_messages(messages: list[dict[str, Any]], assistant_text: str, user_reply: str) -> list[dict[str, Any]]:
    """Stage 2 after a clarification: the question and the user's answer appended."""
    return [
        *messages,
        {"role": "assistant", "content": assistant_text},
        {"role": "user", "content": f"USER ANSWERS: {user_reply}\n\nReply with the JSON object again."},
    ]
