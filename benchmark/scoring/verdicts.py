"""What scoring returns for one (episode, trial): a judge's record and the episode's verdict, as they
stand in a ``records.jsonl`` line (``benchmark.runs.records``), and the record base both build on.

A model keeps exactly the fields it was given (``exclude_unset``), so a record read from a file is
written back byte for byte; fields a later version adds load too (``extra="allow"``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class RecordModel(BaseModel):
    # built on first use (when a record is written or read), not when the runner loads
    model_config = ConfigDict(extra="allow", defer_build=True)

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape, with exactly the fields this record was given, in the file's order."""
        return self.model_dump(exclude_unset=True)


# --- judges -------------------------------------------------------------------------------------------------


class JudgeVote(RecordModel):
    """One vote of an LLM judge: pass / fail / unreadable / error, with the reply or the error."""

    vote: str
    error: str | None = None
    reply: str | None = None
    usage: dict[str, Any] | None = None


class JudgeTokens(RecordModel):
    prompt_tokens: int
    completion_tokens: int


class JudgeRecord(RecordModel):
    """What a judge returns: ``passed`` None when it could not decide (an infrastructure error); the rules
    judge lists its ``checks``, the LLM judge its ``votes`` and ``tokens``."""

    name: str
    passed: bool | None
    checks: list[dict[str, Any]] = Field(default_factory=list)
    votes: list[JudgeVote] = Field(default_factory=list)
    error: str | None = None
    tokens: JudgeTokens | None = None


# --- the verdict --------------------------------------------------------------------------------------------


class RequiredActionResult(RecordModel):
    """A required ``{tool, params}``: called (a call with that tool and a params superset) and succeeded."""

    tool: str
    params: Any
    invoked: bool
    succeeded: bool


class Verdict(RecordModel):
    """The verdict of one (episode, trial), from ``benchmark.scoring.evaluators.evaluate.evaluate_episode``."""

    passed: bool
    score: int
    method: str  # final_state | direction | schedule | judge
    checks: list[dict[str, Any]]
    required_actions: list[RequiredActionResult]
    irrelevant_changes: list[dict[str, Any]]
    judge: JudgeRecord | None
    error_type: str | None
    infra_error: str | None
    simuhome: dict[str, Any]
    automations: dict[str, Any] | None = None  # only for episodes with automation goals
