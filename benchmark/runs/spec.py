"""The benchmark run spec (YAML, ``schema: homefabric-bench-spec/1``), validated with pydantic.

Per-role model configs (agent, judge) are OpenAI-compatible endpoints (``benchmark.llm.endpoint.LLMEndpointSpec``:
base_url, model, api_key_env, temperature, seed, timeout_s, max_retries…); no key is ever written in a spec.
A malformed spec raises :class:`SpecError` naming the file and each field.

    schema: homefabric-bench-spec/1
    episodes: {path: episodes/, kinds: [qt3_feasible], limit: 50}
    agent: {name: react, max_steps: 20, model: {base_url: http://127.0.0.1:8000/v1, model: qwen3}}
    judge: {kind: llm, model: {base_url: http://127.0.0.1:8001/v1, model: judge}}
    trials: 3
    concurrency: 8
    backend: {matter_server: ws://127.0.0.1:5580/ws, mapping: mapping.json}   # optional: a live Matter home

Several models in one run: ``agent.models: [{base_url: …, model: a}, {base_url: …, model: b}]`` instead of
``agent.model`` (react only). ``bench run`` then runs the same episodes once per model, each in its own run
directory ``OUT/<label>/`` (see :func:`per_model` and :mod:`benchmark.reports.multi_model`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_serializer, model_validator

from benchmark.agents.options import check_options
from benchmark.llm.endpoint import LLMEndpointSpec
from benchmark.scoring.evaluators.state_comparison import EvalSettings
from benchmark.suites.simuhome.episode import KINDS
from benchmark.suites.smh.spec import SMH_AGENTS, SmhSpec
from benchmark.suites.voice.spec import SpeechSpec
from emulator.home_config import validation_problems

SPEC_SCHEMA: Final = "homefabric-bench-spec/1"
AGENTS = ("oracle", "null", "replay", "react")


class SpecError(ValueError):
    def __init__(self, source: str, problems: list[tuple[str, str]]) -> None:
        self.source = source
        self.problems = problems
        lines = [f"  {path}: {message}" if path else f"  {message}" for path, message in problems]
        super().__init__(f"{source}: invalid run spec:\n" + "\n".join(lines))


class SimuHomeSpecGiven(SpecError):
    """SimuHome's eval spec where a run spec belongs: one message naming it, the migration command, the key map."""

    def __init__(self, source: str) -> None:
        from benchmark.runs.simuhome_spec import found_simuhome_spec_message

        self.source = source
        self.problems = []
        ValueError.__init__(self, found_simuhome_spec_message(source))


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class EpisodeSelection(_Strict):
    path: str
    kinds: list[str] | None = Field(default=None, description='e.g. ["qt3_feasible", "qt2_infeasible"]')
    ids: list[str] | None = None
    limit: int | None = Field(default=None, ge=1, description="at most this many episodes (after sorting)")

    @model_validator(mode="after")
    def _known_kinds(self) -> EpisodeSelection:
        unknown = [k for k in self.kinds or [] if k not in KINDS]
        if unknown:
            raise ValueError(f"unknown kinds {unknown}; known: {list(KINDS)}")
        return self


class AgentSpec(_Strict):
    name: Literal["oracle", "null", "replay", "react"]
    model: LLMEndpointSpec | None = None
    models: list[LLMEndpointSpec] | None = Field(
        default=None, min_length=2, description="several models, one run each (react; instead of model)"
    )
    max_steps: int = Field(default=20, ge=1)
    replay_from: str | None = Field(default=None, description="run directory or records.jsonl (replay agent)")
    options: dict[str, Any] = Field(default_factory=dict, description="agent-specific settings")

    @model_validator(mode="after")
    def _needs(self) -> AgentSpec:
        if self.models is not None and self.model is not None:
            raise ValueError("give either model or models, not both")
        if self.models is not None and self.name != "react":
            raise ValueError(f"models is for the react agent; the {self.name} agent uses no model")
        if self.name == "react" and self.model is None and self.models is None:
            raise ValueError("the react agent needs a model (base_url, model)")
        if self.name == "replay" and not self.replay_from:
            raise ValueError("the replay agent needs replay_from (a run directory or records.jsonl)")
        check_options(self.name, self.options)  # a typo is a spec error, before anything is written
        return self

    @model_serializer(mode="wrap")
    def _without_absent_models(self, handler: Any) -> Any:
        # A one-model spec dumps as before, so its spec hash and stored manifests do not change.
        data = handler(self)
        if isinstance(data, dict) and data.get("models") is None:
            data.pop("models", None)
        return data


class JudgeSpec(_Strict):
    kind: Literal["rules", "llm"] = "rules"
    model: LLMEndpointSpec | None = None
    votes: int = Field(default=3, ge=1, le=9)

    @model_validator(mode="after")
    def _needs_model(self) -> JudgeSpec:
        if self.kind == "llm" and self.model is None:
            raise ValueError("the llm judge needs a model (base_url, model)")
        return self


class ToolsSpec(_Strict):
    profile: Literal["simuhome", "paper13", "simuhome_ext"] = "simuhome"
    call_cost_s: float = Field(default=0.0, ge=0)
    compat_transport: bool = False


class BackendSpec(_Strict):
    """A live Matter home instead of the emulated one (``benchmark.runs.live_home``)."""

    matter_server: str = Field(
        pattern=r"^(ws|wss|http|https)://\S+$",
        description="python-matter-server's websocket, e.g. ws://127.0.0.1:5580/ws",
    )
    mapping: str | None = Field(default=None, description="a mapping file (`homefabric matter map`)")


class RunSpec(_Strict):
    schema_: Literal["homefabric-bench-spec/1"] = Field(default=SPEC_SCHEMA, alias="schema")
    run_id: str | None = None
    out: str | None = Field(default=None, description="run directory (the --out flag wins)")
    episodes: EpisodeSelection
    agent: AgentSpec
    judge: JudgeSpec = Field(default_factory=JudgeSpec)
    trials: int = Field(default=1, ge=1, le=100)
    concurrency: int = Field(default=4, ge=1, le=256)
    episode_timeout_s: float | None = Field(default=None, gt=0, description="wall-clock limit per episode run")
    tools: ToolsSpec = Field(default_factory=ToolsSpec)
    evaluation: EvalSettings = Field(default_factory=EvalSettings)
    speech: SpeechSpec | None = Field(default=None, description="how the agent hears the user (None: text)")
    suite: Literal["simuhome", "smh"] = "simuhome"
    smh: SmhSpec | None = Field(default=None, description="suite smh: settings, tiers, subcategories, budget")
    backend: BackendSpec | None = Field(default=None, description="a live Matter home (None: the emulated home)")

    @model_validator(mode="after")
    def _smh_fields(self) -> RunSpec:
        if self.suite == "smh":
            self.smh = self.smh or SmhSpec()
            if self.agent.name not in SMH_AGENTS or self.episodes.kinds or self.agent.models:
                raise ValueError(
                    f"suite smh: agent.name one of {list(SMH_AGENTS)}, one model, and "
                    "smh.subcategories instead of episodes.kinds"
                )
        elif self.smh is not None:
            raise ValueError("an smh: section needs suite: smh")
        if self.backend is not None and self.suite != "simuhome":
            raise ValueError("backend (a live Matter home) runs the simuhome suite only")
        return self

    def canonical_json(self) -> str:
        data = self.model_dump(mode="json", by_alias=True)
        if data.get("speech") is None:
            data.pop("speech", None)  # text runs keep the hash they had before speech existed (resume)
        if data.get("suite") == "simuhome":
            data.pop("suite", None)  # and SimuHome runs the one they had before SMH specs existed
            data.pop("smh", None)
        data.pop("out", None)  # where a run lives is not what it is: a moved run directory resumes
        if data.get("backend") is None:
            data.pop("backend", None)  # emulated runs keep the hash they had before live homes existed
        return json.dumps(data, sort_keys=True, separators=(",", ":"))

    def sha256(self) -> str:
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()


def model_label(endpoint: LLMEndpointSpec) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", endpoint.model).strip("-.") or "model"


def per_model(spec: RunSpec, out: str) -> list[tuple[str, RunSpec]]:
    """A multi-model spec as one ordinary spec per model (label, spec with ``agent.model`` set and its own
    ``out`` and ``run_id``); labels are the model names, numbered when two are the same."""
    assert spec.agent.models is not None
    labels = [model_label(m) for m in spec.agent.models]
    labels = [label if labels.count(label) == 1 else f"{label}-{i + 1}" for i, label in enumerate(labels)]
    result = []
    for label, endpoint in zip(labels, spec.agent.models, strict=True):
        data = spec.model_dump(mode="json", by_alias=True)
        data["agent"].pop("models", None)
        data["agent"]["model"] = endpoint.model_dump(mode="json")
        data["out"] = str(Path(out) / label)
        data["run_id"] = f"{spec.run_id or Path(out).name}-{label}"
        result.append((label, parse_spec(data, f"<{label}>")))
    return result


def parse_spec(data: Any, source: str = "<spec>") -> RunSpec:
    if not isinstance(data, dict):
        raise SpecError(source, [("", f"a run spec is a mapping, got {type(data).__name__}")])
    try:
        return RunSpec.model_validate(data)
    except ValidationError as error:
        raise SpecError(source, validation_problems(error)) from None


def load_spec(path: str | os.PathLike[str]) -> RunSpec:
    import yaml  # here, not at the top: a run from flags (no spec file) never loads it or the next

    from benchmark.runs.simuhome_spec import is_simuhome_eval_spec

    file = Path(path)
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except OSError as error:
        raise SpecError(str(file), [("", f"cannot read the file: {error}")]) from None
    except yaml.YAMLError as error:
        raise SpecError(str(file), [("", f"invalid YAML: {error}")]) from None
    if is_simuhome_eval_spec(data):
        raise SimuHomeSpecGiven(str(file))
    return parse_spec(data, str(file))


def dump_spec(spec: RunSpec) -> str:
    import yaml

    return yaml.safe_dump(spec.model_dump(mode="json", by_alias=True, exclude_defaults=False), sort_keys=False)
