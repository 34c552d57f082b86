"""The ``agent.options`` of a run spec, one pydantic model per agent: a typo (``mdoe``) or a bad value is a
spec error naming the allowed options, raised when the spec is read — before anything is written.

Every option is documented in the README ("Agent options"); the descriptions below are the same text.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class NoOptions(BaseModel):
    """Agents without settings (oracle, null, replay) accept no options at all."""

    model_config = ConfigDict(extra="forbid")


class ReactOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mode: Literal["native", "text", "auto"] = Field(
        default="native",
        description="native: tools through the function-calling interface; text: one JSON object per turn "
        "(text-ReAct); auto: native if the preflight's probe comes back with a tool call, else text",
    )
    tool_choice: Literal["auto", "required", "omit"] | None = Field(
        default="auto", description="the tool_choice sent in native mode; omit (or null): leave the field out"
    )
    max_consecutive_failures: int = Field(
        default=3, ge=1, description="unusable replies in a row (bad JSON, unknown tool, cut off) that end the run"
    )
    plain_answer_finishes: bool = Field(
        default=True, description="native mode: a reply in prose without a tool call is the final answer"
    )
    text_response_format: dict[str, Any] | None = Field(
        default=None, description='text mode: a response_format to send, e.g. {"type": "json_object"}'
    )
    preflight: bool = Field(
        default=True, description="probe the endpoint (and, for native/auto, tool calling) once before the run"
    )


AGENT_OPTIONS: dict[str, type[BaseModel]] = {
    "react": ReactOptions,
    "oracle": NoOptions,
    "null": NoOptions,
    "replay": NoOptions,
}


def option_names(agent: str) -> list[str]:
    return list(AGENT_OPTIONS[agent].model_fields)


def check_options(agent: str, options: dict[str, Any]) -> BaseModel:
    """The validated options, or a one-line ValueError naming the bad option and the allowed ones."""
    model = AGENT_OPTIONS[agent]
    allowed = ", ".join(option_names(agent)) or "none"
    try:
        return model.model_validate(options)
    except ValidationError as error:
        problems = []
        for item in error.errors():
            where = ".".join(str(part) for part in item["loc"])
            if item["type"] == "extra_forbidden":
                problems.append(f"unknown option {where!r} for the {agent} agent (allowed: {allowed})")
            else:
                problems.append(f"option {where!r}: {item['msg']} (got {item.get('input')!r})")
        raise ValueError("; ".join(problems)) from None
