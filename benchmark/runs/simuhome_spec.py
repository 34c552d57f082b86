"""SimuHome's evaluation spec (``eval_spec.example.yaml``, schema ``simuhome-eval-spec-v1``) met by homefabric:
recognised when ``bench run`` is given one, and migrated (``bench migrate-spec``) to the equivalent run spec, with
a comment for each setting that has no counterpart here.

SimuHome's eval spec: ``run {id, output_root}``, ``episode {dir, qt, case, seed}``, ``strategy {name, timeout,
temperature, max_steps}``, ``orchestration {max_workers, simulator_start_timeout, simulator_start_retries,
evaluation_retries, allow_partial_start}``, ``api {base, key}`` (defaults of the models), ``judge {model,
api_base, api_key}``, ``models [{model, api_base, api_key}]``. Its episode files are ``<qt>_<case>_seed_<n>.json``
— homefabric's episode ids — and its agent is a ReAct loop of one JSON object per turn (our react agent's text
mode), at seed 42 with up to 10 retries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

from benchmark.suites.simuhome.episode import KINDS

SIMUHOME_EVAL_SCHEMA: Final = "simuhome-eval-spec-v1"
# Top-level keys only SimuHome's eval spec has (``judge`` is in both): two of them make a file SimuHome's.
SIMUHOME_ONLY_KEYS: Final = ("run", "episode", "strategy", "orchestration", "api", "models")
QUERY_TYPES: Final = tuple(dict.fromkeys(kind.rsplit("_", 1)[0] for kind in KINDS))
CASES: Final = ("feasible", "infeasible")
# Each SimuHome setting and where it goes in a homefabric run spec (the error of `bench run` and the comments of
# a migrated spec both read this table).
KEY_MAP: Final[dict[str, str]] = {
    "run.id": "run_id",
    "run.output_root": "out (output_root/id)",
    "episode.dir": "episodes.path",
    "episode.qt, episode.case": "episodes.kinds (<qt>_<case>)",
    "episode.seed": "episodes.ids (<qt>_<case>_seed_<n>)",
    "strategy.name": "agent.name (react, text mode: one JSON object per turn)",
    "strategy.max_steps": "agent.max_steps",
    "strategy.timeout": "agent.model.timeout_s",
    "strategy.temperature": "agent.model.temperature",
    "models[].model, models[].api_base, api.base": "agent.model (one model) or agent.models (several): model, base_url",
    "models[].api_key, api.key": "agent.model.api_key_env (a run spec names the variable, never the key)",
    "judge.model, judge.api_base, judge.api_key": "judge: {kind: llm, model: {model, base_url, api_key_env}}",
}
NO_COUNTERPART: Final[dict[str, str]] = {
    "orchestration.max_workers": "no simulator processes here (one in-process home per episode); concurrency "
    "sets how many episodes run at once",
    "orchestration.simulator_start_timeout": "no simulator process to start",
    "orchestration.simulator_start_retries": "no simulator process to start",
    "orchestration.allow_partial_start": "no simulator process to start",
    "orchestration.evaluation_retries": "bench run --resume runs infrastructure errors again",
}
DEFAULT_KEY_ENV: Final = "OPENAI_API_KEY"


class SimuHomeSpecError(ValueError):
    """A SimuHome eval spec that cannot be migrated (the message names the setting and what is allowed)."""


def is_simuhome_eval_spec(data: Any) -> bool:
    """A parsed YAML document that is SimuHome's eval spec: its schema, or two of its own top-level keys."""
    if not isinstance(data, dict):
        return False
    if data.get("schema") == SIMUHOME_EVAL_SCHEMA:
        return True
    return sum(key in data for key in SIMUHOME_ONLY_KEYS) >= 2


def found_simuhome_spec_message(source: str) -> str:
    """What ``bench run`` answers for a SimuHome eval spec: what it is, the command that migrates it, the key map."""
    mapped = "; ".join(f"{theirs} → {ours}" for theirs, ours in KEY_MAP.items())
    return (
        f"{source} is a SimuHome eval spec ({SIMUHOME_EVAL_SCHEMA}), not a homefabric run spec: "
        f"`homefabric bench migrate-spec {source} > run.yaml` writes the equivalent run spec (what has no "
        f"counterpart as comments), then `homefabric bench run run.yaml`. Its keys map to ours: {mapped}; "
        "orchestration.* has no counterpart"
    )


@dataclass
class Migration:
    """The homefabric run spec (a mapping ``parse_spec`` reads) and, per SimuHome setting left out, why."""

    spec: dict[str, Any]
    left_out: dict[str, str] = field(default_factory=dict)

    def text(self, source: str) -> str:
        """The run spec as YAML, headed by comments: where it came from and what has no counterpart."""
        import yaml  # only `bench migrate-spec` writes YAML

        lines = [
            f"# Migrated from SimuHome eval spec {source} ({SIMUHOME_EVAL_SCHEMA}) by `homefabric bench migrate-spec`."
        ]
        if self.left_out:
            lines.append("# SimuHome settings with no counterpart here (left out):")
            lines += [f"#   {key}: {why}" for key, why in self.left_out.items()]
        return "\n".join(lines) + "\n" + yaml.safe_dump(self.spec, sort_keys=False, allow_unicode=True)


def _section(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SimuHomeSpecError(f"{key}: a mapping is expected, got {type(value).__name__}")
    return value


def _choices(value: Any, allowed: tuple[str, ...], key: str) -> list[str]:
    """A qt or case setting (one value, a list, a comma list, or all/absent) as the values it selects."""
    if value is None or value == "all":
        return list(allowed)
    values = value if isinstance(value, list) else str(value).split(",")
    chosen = [str(v).strip() for v in values]
    unknown = [v for v in chosen if v not in allowed]
    if unknown:
        raise SimuHomeSpecError(f"{key}: {unknown} not known; allowed: all or {', '.join(allowed)}")
    return chosen


def _seeds(value: Any) -> list[int] | None:
    """``episode.seed``: one seed, a list, or ranges like ``1-3,5``; absent or all → every seed."""
    if value is None or value == "all":
        return None
    parts = value if isinstance(value, list) else str(value).split(",")
    seeds: list[int] = []
    for part in parts:
        text = str(part).strip()
        span = re.fullmatch(r"(\d+)\s*-\s*(\d+)", text)
        if span and int(span[1]) <= int(span[2]):
            seeds += range(int(span[1]), int(span[2]) + 1)
        elif text.isdigit():
            seeds.append(int(text))
        else:
            raise SimuHomeSpecError(f"episode.seed: {text!r} is not a seed; give numbers and ranges like 1-3,5")
    return seeds


def _key_env(value: Any, key: str, left_out: dict[str, str]) -> str | None:
    """A SimuHome api_key (``env:VAR`` or the key itself) as the name of the variable that holds it."""
    if value is None or value == "":
        return None
    text = str(value)
    if text.startswith("env:") and text[4:]:
        return text[4:]
    left_out[key] = f"a run spec never holds a key: export it as {DEFAULT_KEY_ENV} (api_key_env)"
    return DEFAULT_KEY_ENV


def _endpoint(entry: Any, where: str, api: dict[str, Any], strategy: dict[str, Any], left_out: dict[str, str]) -> Any:
    if not isinstance(entry, dict) or not entry.get("model"):
        raise SimuHomeSpecError(f"{where}: a mapping with model (and api_base) is expected")
    base_url = entry.get("api_base") or api.get("base")
    if not base_url:
        raise SimuHomeSpecError(f"{where}.api_base: no base URL (nor api.base); give an OpenAI-compatible …/v1 URL")
    endpoint: dict[str, Any] = {"base_url": str(base_url), "model": str(entry["model"])}
    key_env = _key_env(entry.get("api_key", api.get("key")), f"{where}.api_key", left_out)
    if key_env:
        endpoint["api_key_env"] = key_env
    endpoint["temperature"] = float(strategy.get("temperature", 0.0))
    endpoint["seed"] = 42  # SimuHome's agent samples at seed 42
    endpoint["timeout_s"] = float(strategy.get("timeout", 60))
    endpoint["max_retries"] = 10  # SimuHome retries a failed request up to 10 times
    return endpoint


def migrate(data: Any) -> Migration:
    """SimuHome's eval spec (parsed YAML) → the equivalent homefabric run spec; SimuHomeSpecError names what
    cannot be read."""
    if not is_simuhome_eval_spec(data):
        raise SimuHomeSpecError(
            f"not a SimuHome eval spec (schema {SIMUHOME_EVAL_SCHEMA}, top-level keys {', '.join(SIMUHOME_ONLY_KEYS)})"
        )
    left_out: dict[str, str] = {}
    run, episode, strategy = _section(data, "run"), _section(data, "episode"), _section(data, "strategy")
    api, judge, orchestration = _section(data, "api"), _section(data, "judge"), _section(data, "orchestration")
    for key in orchestration:
        left_out[f"orchestration.{key}"] = NO_COUNTERPART.get(f"orchestration.{key}", "no counterpart")
    for key in data:
        if key not in (*SIMUHOME_ONLY_KEYS, "judge", "schema"):
            left_out[str(key)] = "not a setting of SimuHome's eval spec"
    if "dir" not in episode:
        raise SimuHomeSpecError("episode.dir: the episode directory is missing")
    selection: dict[str, Any] = {"path": str(episode["dir"])}
    kinds = [
        f"{qt}_{case}"
        for qt in _choices(episode.get("qt"), QUERY_TYPES, "episode.qt")
        for case in _choices(episode.get("case"), CASES, "episode.case")
    ]
    if len(kinds) < len(KINDS):
        selection["kinds"] = kinds
    seeds = _seeds(episode.get("seed"))
    if seeds is not None:
        selection["ids"] = [f"{kind}_seed_{seed}" for kind in kinds for seed in seeds]
    name = strategy.get("name", "react")
    if name not in ("react", "hi_agent"):
        raise SimuHomeSpecError(f"strategy.name: {name!r} not known; allowed: react, hi_agent")
    if name == "hi_agent":
        left_out["strategy.name"] = "hi_agent (plan, subgoals, memory) has no counterpart; the react agent runs"
    models = data.get("models") or []
    if not isinstance(models, list) or not models:
        raise SimuHomeSpecError("models: no model given; the react agent needs one (model, api_base)")
    endpoints = [_endpoint(entry, f"models[{i}]", api, strategy, left_out) for i, entry in enumerate(models)]
    agent: dict[str, Any] = {"name": "react", "max_steps": int(strategy.get("max_steps", 20))}
    if len(endpoints) == 1:
        agent["model"] = endpoints[0]
    else:
        agent["models"] = endpoints
    agent["options"] = {"mode": "text"}  # one JSON object per turn, as SimuHome's ReAct loop asks
    spec: dict[str, Any] = {"schema": "homefabric-bench-spec/1"}
    if run.get("id"):
        spec["run_id"] = str(run["id"])
    if run.get("output_root"):
        spec["out"] = f"{run['output_root']}/{run.get('id') or 'run'}"
    spec["episodes"] = selection
    spec["agent"] = agent
    if judge:
        judge_endpoint = _endpoint(judge, "judge", api, {}, left_out)
        spec["judge"] = {"kind": "llm", "model": judge_endpoint, "votes": 3}
    else:
        left_out["judge"] = "none given: the deterministic rules judge scores the judged kinds"
    spec["tools"] = {"profile": "simuhome"}
    return Migration(spec, left_out)
