"""Tool profile ``smh`` (the EIA setting): ``query_device``, ``control_device``, ``create_automation`` and
``ask_user``, over the HomeEnv view, with an interaction budget (default 10 calls).

Same envelope as the other profiles (``{status:{code,message}, data, error}``) and the same
``call``/``schemas(style)``/``names`` shape, so the react agent and the MCP server take it unchanged.
Every call is logged (tool, arguments, code) for the verifier's TV/IE classification; a call past the
budget is refused with ``BUDGET_EXCEEDED`` and ends the episode (``exhausted``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr, ValidationError

from agent_tools.envelope import fail, ok
from agent_tools.registry import ToolSet, tool
from agent_tools.smh import DEFAULT_BUDGET
from agent_tools.smh.home_env import HomeEnv
from agent_tools.smh.rules import RuleError, SmhAutomation, to_spec
from emulator.errors import HomeError


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class QueryArgs(_Args):
    what: Literal["candidates", "specs", "status"] = Field(
        description=(
            "candidates: devices matching the filters (did, name, room, category, subcategory, tags); specs: the "
            "full schema of the matching devices (attributes with type/range/options/unit, services with typed "
            "arguments, component paths); status: current attribute values of the matching devices."
        )
    )
    did: StrictStr | None = Field(default=None, description="One device id.")
    room: StrictStr | None = Field(default=None, description="A room id.")
    category: StrictStr | None = Field(default=None, description="e.g. light, ac, cover, media, sensor, fan_light.")
    subcategory: StrictStr | None = None
    tags: list[StrictStr] | None = Field(default=None, description="Devices carrying all of these tags.")


class ControlArgs(_Args):
    did: StrictStr = Field(description="Device id.")
    locator: StrictStr = Field(
        description='Service path: "turn_on", or "component.service" for multi-function '
        'devices, e.g. "light.set_brightness", "player.play".'
    )
    arguments: dict[str, Any] = Field(default_factory=dict, description="The service's arguments by name.")


class AskArgs(_Args):
    question: StrictStr = Field(min_length=1, description="One clarifying question for the user.")


class SmhToolBox(ToolSet):
    """The smh tools bound to one episode's home."""

    profile = "smh"

    def __init__(self, env: HomeEnv, *, budget: int = DEFAULT_BUDGET, user: Callable[[str], str] | None = None) -> None:
        self.env = env
        self.budget = budget
        self.user = user
        self.log: list[dict[str, Any]] = []
        self.exhausted = False
        self.automations: list[dict[str, Any]] = []  # the SMH rules created (predicted automations)
        self.questions: list[dict[str, str]] = []

    def names(self) -> list[str]:
        return list(self.tools) if self.user is not None else [n for n in self.tools if n != "ask_user"]

    def schemas(self, style: str = "openai") -> list[dict[str, Any]]:
        return [self.tools[name].schema("openai" if style == "openai" else "mcp") for name in self.names()]

    def call(self, name: str, arguments: object = None) -> dict[str, Any]:
        if len(self.log) >= self.budget:
            self.exhausted = True
            envelope = fail("BUDGET_EXCEEDED", f"the interaction budget of {self.budget} tool calls is spent")
        else:
            envelope = self._call(name, arguments)
        self.log.append({"tool": name, "arguments": arguments, "code": (envelope["error"] or {}).get("type", "OK")})
        return envelope

    def _call(self, name: str, arguments: object) -> dict[str, Any]:
        if name not in self.names():
            return fail("UNKNOWN_TOOL", f"no tool {name!r}; tools: {self.names()}")
        try:
            args = self.tools[name].model.model_validate(arguments if arguments is not None else {})
        except ValidationError as error:
            first = error.errors()[0]
            code = "MISSING_PARAMETERS" if first["type"] == "missing" else "INVALID_PARAMETERS"
            where = ".".join(str(p) for p in first["loc"])
            return fail(code, f"{name}: {where}: {first['msg']}")
        envelope: dict[str, Any] = getattr(self, self.tools[name].method)(args)
        return envelope

    def _select(self, args: QueryArgs) -> list[str]:
        out = []
        for did in self.env.device_ids():
            data = self.env.userdata(did)
            if args.did is not None and did != args.did:
                continue
            if args.room is not None and data["room"] != args.room:
                continue
            if args.category is not None and data["category"] != args.category:
                continue
            if args.subcategory is not None and data["subcategory"] != args.subcategory:
                continue
            if args.tags and not set(args.tags) <= set(data["tags"]):
                continue
            out.append(did)
        return out

    @tool(
        "query_device",
        QueryArgs,
        "Look devices up: candidates (an index), specs (schemas and locators) or status (values).",
        mutates_state=False,
    )
    def _query_device(self, args: QueryArgs) -> dict[str, Any]:
        chosen = self._select(args)
        if args.did is not None and not chosen:
            return fail("UNKNOWN_DEVICE", f"no device {args.did!r}")
        if args.what == "candidates":
            return ok([row for row in self.env.index() if row["did"] in chosen])
        if args.what == "specs":
            return ok([self.env.export_device(d, values=False) for d in chosen])
        return ok({d: self.env.device_state(d) for d in chosen})

    @tool(
        "control_device",
        ControlArgs,
        "Run one service on a device now (validated first; a refused call changes nothing).",
        mutates_state=True,
    )
    def _control_device(self, args: ControlArgs) -> dict[str, Any]:
        result = self.env.call(args.did, args.locator, args.arguments)
        return ok(result.as_dict()) if result.ok else fail(result.code, result.message)

    @tool(
        "create_automation",
        SmhAutomation,
        "Create a persistent rule. trigger: {time_cron: Quartz 'sec min hour dom month dow year'} or {state: {did, "
        "attribute, op, value}}; conditions: [{did, attribute, op, value}] all true at firing; actions: [{did, "
        "locator, arguments}].",
        mutates_state=True,
    )
    def _create_automation(self, rule: SmhAutomation) -> dict[str, Any]:
        try:
            spec = to_spec(self.env, rule)
            created = self.env.fabric.add_automation(spec)
        except RuleError as error:
            return fail(error.code, str(error))
        except HomeError as error:
            return fail(error.code, error.message)
        self.automations.append(rule.model_dump(mode="json"))
        return ok({"automation_id": created.id, "kind": created.kind()})

    @tool(
        "ask_user",
        AskArgs,
        "Ask the user one clarifying question when the request cannot be carried out as stated.",
        mutates_state=False,
    )
    def _ask_user(self, args: AskArgs) -> dict[str, Any]:
        reply = self.user(args.question) if self.user is not None else ""
        self.questions.append({"question": args.question, "reply": reply})
        return ok({"reply": reply})
