"""The typed results of a benchmark run: the run record (around scoring's verdict and judge record,
``benchmark.scoring.verdicts``) written as one line of ``records.jsonl`` (schema ``homefabric-run-record/2``),
and its wall-clock time as one line of ``timings.jsonl``.

The models describe the file as it is: same field names, same order, and a field that a record does not
carry (an infrastructure error has no trajectory; only LLM judges count tokens) stays absent rather than
becoming null — a model remembers which fields it was given (``exclude_unset``), so a record read from a
file is written back byte for byte (resume rewrites the records it keeps). Fields a later version adds load
too (``extra="allow"``). Nested free-form content (tool arguments, observations, state changes, checks)
keeps its JSON shape.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ConfigDict, Field

from benchmark.scoring.verdicts import JudgeTokens, RecordModel, Verdict

RECORD_SCHEMA = "homefabric-run-record/2"  # /2: no wall_time_s (it is in timings.jsonl), so records are reproducible
NOT_RUNNABLE = "not_runnable_on_this_home"  # the status of an episode a live Matter home could not start


# --- the run record -----------------------------------------------------------------------------------------


class TokenCounts(RecordModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    calls: int


class RecordedStep(RecordModel):
    index: int
    thought: str | None
    tool: str | None
    arguments: Any
    observation: Any
    virtual_time: str | None = None
    raw: Any = None


class RecordedOutcome(RecordModel):
    """The agent's side of a record (``benchmark.agents.base.AgentOutcome`` as written)."""

    final_answer: str | None
    end_reason: str
    error: str | None
    failure: str | None
    mode: str | None
    tokens: TokenCounts
    steps: list[RecordedStep]
    transcript: dict[str, Any] | None = None  # LLM agents only


class Invocation(RecordModel):
    """One tool call as the toolbox logged it."""

    tool: str
    params: Any
    ok: bool
    status_code: int
    error_type: str | None
    virtual_time: str


class VirtualSpan(RecordModel):
    start: str
    end: str
    start_tick: int
    end_tick: int
    duration_s: float


class RecordTokens(RecordModel):
    agent: TokenCounts
    judge: JudgeTokens | None


class RunRecord(RecordModel):
    """One (episode, trial) of a run: what was asked, what the agent did, the home's change and the verdict.
    An infrastructure error before the agent ran carries only the identity, ``status`` and ``error``."""

    schema_: str = Field(default=RECORD_SCHEMA, alias="schema")
    episode_id: str
    kind: str | None = None
    query_type: str | None = None
    case: str | None = None
    trial: int
    seed: int | None = None
    agent: str | None = None
    query: str | None = None
    episode_sha256: str | None = None
    input: str | None = None  # text, or how a spoken query reached the agent
    speech: dict[str, Any] | None = None  # spoken input only
    final_answer: str | None = None
    outcome: RecordedOutcome | None = None
    invocations: list[Invocation] = Field(default_factory=list)
    state_diff: list[dict[str, Any]] = Field(default_factory=list)
    virtual: VirtualSpan | None = None
    status: str | None = None  # passed | failed | infra_error | NOT_RUNNABLE (a live home)
    error: str | None = None
    verdict: Verdict | None = None
    tokens: RecordTokens | None = None
    wall_time_s: float | None = None  # schema /1 records only; later runs write it to timings.jsonl (RunTiming)

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(exclude_unset=True, by_alias=True)

    def line(self) -> str:
        """The record as one line of ``records.jsonl``."""
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str, separators=(",", ":")) + "\n"


class RunTiming(RecordModel):
    """One line of ``timings.jsonl``: how long an (episode, trial) took on the wall clock. The only figure of a
    run that differs between two runs of the same actions, so it is kept out of the record."""

    episode_id: str
    trial: int = Field(ge=0)
    wall_time_s: float = Field(ge=0)

    def line(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n"


# --- the run report (report.json) ---------------------------------------------------------------------------

Number = int | float  # kept as given: a total of no records is 0, a mean 0.0 (the report's bytes stay as they were)


class ReportSummary(RecordModel):
    """Success and cost figures over a set of records (overall, per kind, per query type)."""

    episodes: int
    records: int
    evaluated: int
    passed: int
    success_rate: Number | None
    success_ci95: list[Number] | None
    success_by_trial: list[Number]
    success_trial_std: Number | None
    success_rate_simuhome: Number | None
    step_limit_runs: int
    pass_hat_k: dict[str, Number | None]
    infra_errors: int
    tokens_total: Number
    tokens_mean: Number
    irrelevant_change_runs: int
    irrelevant_changes_total: int
    error_types: dict[str, int]
    steps_mean: Number
    virtual_duration_mean_s: Number
    wall_time_total_s: Number


class InfraErrorEntry(RecordModel):
    episode_id: str
    trial: int | None
    error: str | None


class TranscriptSummary(RecordModel):
    records: int
    of: int
    tool_schema_sha256: list[str]


class RunReport(RecordModel):
    """``report.json`` of a run directory (schema ``homefabric-run-report/1``)."""

    schema_: str = Field(default="homefabric-run-report/1", alias="schema")
    run_dir: str
    run_id: str | None
    agent: str | None
    model: str | None
    judge: str | None
    spec_sha256: str | None
    git_commit: str | None
    trials: int
    overall: ReportSummary
    state_changing_feasible: ReportSummary | None
    by_kind: dict[str, ReportSummary]
    by_query_type: dict[str, ReportSummary]
    infra_errors: list[InfraErrorEntry]
    # Episodes a live Matter home could not start (status not_runnable_on_this_home), with why; only present
    # when there are some (an emulated run's report keeps its bytes).
    not_runnable: list[InfraErrorEntry] = Field(default_factory=list)
    episode_problems: list[dict[str, Any]]
    torn_lines: bool
    line_problems: list[dict[str, Any]]
    dropped_records: list[dict[str, Any]]
    timing_problems: list[dict[str, Any]] = Field(default_factory=list)  # bad timings.jsonl lines (wall time only)
    manifest_checked: bool
    transcripts: TranscriptSummary
    plots: list[str] | None = None  # the PNG files drawn, once they are

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(exclude_unset=True, by_alias=True)


# --- the run manifest (manifest.json) -----------------------------------------------------------------------


class RunManifest(RecordModel):
    """``manifest.json``: what a run is (its spec and episodes) and where it came from. Only ``episodes`` is
    required to read one back: manifests of older runs lack the later fields."""

    schema_: str = Field(default="homefabric-run-manifest/1", alias="schema")
    run_id: str | None = None
    spec: dict[str, Any] = Field(default_factory=dict)
    spec_sha256: str | None = None
    git_commit: str | None = None
    package_version: str | None = None
    episodes: list[str]
    trials: int | None = None
    episode_sha256: dict[str, str] = Field(default_factory=dict)
    episode_problems: list[dict[str, Any]] = Field(default_factory=list)
    agent_preflight: dict[str, Any] | None = None

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(exclude_unset=True, by_alias=True)
