"""The SMH instance τ = (H0, u, C, M, g) on disk (``schema: homefabric-smh-instance/1``), validated with pydantic.

H0 is a home file (``home``, relative to the instance directory) plus ``setup``: SMH actions run on it
first (the dialogue history's executed actions), so H0 is the home after them. u is ``user_query``; C
is ``dialogue_history``; M is ``memory``; g is ``goal``. Nothing here depends on wall time or order of
dict insertion: ``dump_instance`` is byte-deterministic.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from agent_tools.smh.rules import Action, SmhAutomation
from benchmark.suites.smh.taxonomy import CATEGORY_OF, SUBCATEGORIES, TIERS

INSTANCE_SCHEMA: Final = "homefabric-smh-instance/1"
Mode = Literal["execute", "clarify", "answer", "automate"]
Op = Literal["==", "!=", ">", ">=", "<", "<=", "any"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Turn(_Strict):
    role: Literal["user", "assistant"]
    text: str
    actions: list[Action] = Field(default_factory=list, description="what the assistant executed in this turn")
    prior_values: dict[str, Any] = Field(default_factory=dict, description='"did/path" → the value before it')


class Memory(_Strict):
    short_term: list[str] = Field(default_factory=list)
    long_term: dict[str, str] = Field(default_factory=dict, description="compact phrase → stored preference")


class Constraint(_Strict):
    """One critic clause: ``device(did).path op value`` (``any``: may change freely)."""

    did: StrictStr
    path: StrictStr
    op: Op = "=="
    value: Any = None


class Clarification(_Strict):
    slot: Literal["device", "room", "value", "mode", "time"]
    reply: str = Field(description="the simulated user's scripted answer (its hidden intent)")
    accepts: list[str] = Field(default_factory=list, description="words a fitting question mentions (any one)")


class ExpectedAnswer(_Strict):
    text: str
    facts: list[str] = Field(description="every one must appear in the response (normalised)")


class Goal(_Strict):
    mode: Mode
    constraints: list[Constraint] = Field(default_factory=list, description="the critic (execute/clarify)")
    reference: list[Action] = Field(default_factory=list, description="the oracle's actions")
    answer: ExpectedAnswer | None = None
    clarification: Clarification | None = None
    automations: list[SmhAutomation] = Field(default_factory=list)
    clarify_allowed: bool = Field(default=False, description="asking first is also right (state ambiguity)")


class Instance(_Strict):
    schema_: Literal["homefabric-smh-instance/1"] = Field(default=INSTANCE_SCHEMA, alias="schema")
    id: StrictStr
    category: StrictStr
    subcategory: Literal[SUBCATEGORIES]  # type: ignore[valid-type]  # a Literal of a tuple: pydantic reads it
    tier: Literal[TIERS]  # type: ignore[valid-type]  # a Literal of a tuple: pydantic reads it
    home: StrictStr
    setup: list[Action] = Field(default_factory=list)
    current_time: StrictStr
    entrance_device: StrictStr
    user_query: StrictStr
    template_query: str | None = Field(default=None, description="the generator's wording, when paraphrased")
    paraphrase: dict[str, Any] | None = Field(default=None, description="the LLM paraphrase's outcome")
    intended_query: str | None = None
    dialogue_history: list[Turn] = Field(default_factory=list)
    memory: Memory = Field(default_factory=Memory)
    goal: Goal

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def check_category(self) -> None:
        if CATEGORY_OF[self.subcategory] != self.category:
            raise ValueError(f"{self.id}: subcategory {self.subcategory} belongs to {CATEGORY_OF[self.subcategory]}")


def dump_instance(instance: Instance) -> str:
    return (
        json.dumps(instance.model_dump(mode="json", by_alias=True), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    )


def load_instances(directory: Path) -> list[Instance]:
    """Every ``instances/*.json`` under ``directory``, by id; a bad file raises ValueError naming it."""
    out = []
    for file in sorted((directory / "instances").glob("*.json")):
        try:
            out.append(Instance.model_validate_json(file.read_text(encoding="utf-8")))
        except ValueError as error:
            first = str(error).splitlines()
            raise ValueError(f"{file}: not an SMH instance ({' '.join(first[:3])})") from None
    return out
