"""Agent runs behind the API: run an agent over episodes in the background with the benchmark runner (each
episode on its own fresh fabric, never the served home), and keep every step of the trajectory as an event list
that clients stream while the run goes on. Finished runs are plain run directories (manifest.json +
records.jsonl) under ``runs_dir``; stored ones are listed and read back too.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmark.agents.base import AgentOutcome, AgentTask, ToolCaller
from benchmark.http.confined_files import MAX_RECORDS_BYTES, Root, read_regular
from benchmark.http.episode_library import EpisodeLibrary
from benchmark.http.models import StartRunBody
from benchmark.runs.runner import Runner, make_agent, read_records
from benchmark.runs.spec import SpecError, parse_spec
from benchmark.runs.store import RECORDS
from benchmark.suites.simuhome.episode import Episode
from bridge.http.errors import ApiError
from emulator.emulated_home import EmulatedHome

RUN_ID = re.compile(r"[A-Za-z0-9_\-.]{1,100}")


def record_summary(index: int, record: dict[str, Any]) -> dict[str, Any]:
    outcome = record.get("outcome") or {}
    verdict = record.get("verdict") or {}
    return {
        "index": index,
        "episode_id": record.get("episode_id"),
        "trial": record.get("trial"),
        "kind": record.get("kind"),
        "agent": record.get("agent"),
        "status": record.get("status"),
        "query": record.get("query"),
        "final_answer": record.get("final_answer"),
        "steps": len(outcome.get("steps") or []),
        "passed": verdict.get("passed"),
        "score": verdict.get("score"),
    }


# --- streaming the trajectory while the agent works ---------------------------------------------------------


class _StreamingTools:
    """The episode's tools, reporting each call (arguments, observation, state diff) as it happens."""

    def __init__(self, tools: Any, task: AgentTask, emit: Any) -> None:
        self._tools = tools
        self._task = task
        self._emit = emit
        self._index = 0

    def call(self, name: str, arguments: Any = None) -> dict[str, Any]:
        fabric: EmulatedHome | None = getattr(self._tools, "fabric", None)
        before = fabric.snapshot() if fabric is not None else None
        envelope: dict[str, Any] = self._tools.call(name, arguments)
        diff = EmulatedHome.diff(before, fabric.snapshot()) if fabric is not None and before is not None else []
        invocation = (getattr(self._tools, "invocations", None) or [{}])[-1]
        self._emit(
            {
                "type": "step",
                "episode_id": self._task.episode_id,
                "trial": self._task.extras.get("trial", 0),
                "index": self._index,
                "tool": name,
                "arguments": arguments,
                "observation": envelope,
                "virtual_time": invocation.get("virtual_time"),
                "state_diff": diff,
            }
        )
        self._index += 1
        return envelope

    def schemas(self, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        schemas: list[dict[str, Any]] = self._tools.schemas(*args, **kwargs)
        return schemas

    def names(self) -> list[str]:
        names: list[str] = self._tools.names()
        return names

    def __getattr__(self, name: str) -> Any:  # final_answer, invocations, … of the real ToolBox
        return getattr(self._tools, name)


class StreamingAgent:
    """Wraps any agent so that its tool calls are streamed; the agent itself is unchanged."""

    def __init__(self, inner: Any, emit: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.needs_episode = inner.needs_episode
        self._emit = emit

    async def run(self, task: AgentTask, tools: ToolCaller) -> AgentOutcome:
        self._emit(
            {
                "type": "episode_started",
                "episode_id": task.episode_id,
                "trial": task.extras.get("trial", 0),
                "query": task.query,
                "user_location": task.user_location,
                "current_time": task.current_time,
            }
        )
        outcome: AgentOutcome = await self.inner.run(task, _StreamingTools(tools, task, self._emit))
        return outcome


# --- runs ----------------------------------------------------------------------------------------------------


@dataclass
class LiveRun:
    run_id: str
    out: Path
    total: int
    status: str = "running"
    error: str | None = None
    statuses: dict[str, int] = field(default_factory=dict)
    records: int = 0
    events: list[dict[str, Any]] = field(default_factory=list)
    task: asyncio.Task[None] | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def emit(self, event: dict[str, Any]) -> None:
        self.events.append({"seq": len(self.events), **event})
        self._changed.set()

    async def wait_for_more(self, seen: int, timeout: float) -> None:
        if len(self.events) > seen or self.status != "running":
            return
        self._changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout)

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "live": True,
            "status": self.status,
            "records": self.records,
            "statuses": dict(self.statuses),
            "error": self.error,
            "events": len(self.events),
        }


def _endpoint(url: str) -> str:
    return url.strip().rstrip("/")


class RunManager:
    """Agent runs. A react agent may only call a model endpoint, and read an API-key variable, that the
    operator allowed on the command line (``--allow-model-endpoint``, ``--model-key-env``): a client must
    not be able to send a server secret to a URL of its choosing. Replays read records under the runs dir."""

    def __init__(
        self,
        library: EpisodeLibrary,
        runs_dir: Path,
        *,
        model_endpoints: list[str] | tuple[str, ...] = (),
        model_key_envs: list[str] | tuple[str, ...] = (),
    ) -> None:
        self.library = library
        self.runs_dir = runs_dir
        self.runs_root = Root(runs_dir, "--runs-dir", "run records")
        self.model_endpoints = sorted({_endpoint(u) for u in model_endpoints})
        self.model_key_envs = sorted(set(model_key_envs))
        self.live: dict[str, LiveRun] = {}
        self._counter = 0

    def _new_run_id(self) -> str:
        self._counter += 1
        return f"api-{time.strftime('%Y%m%d-%H%M%S')}-{self._counter:03d}"

    def _check_model(self, base_url: str, api_key_env: str | None) -> None:
        if _endpoint(base_url) not in self.model_endpoints:
            raise ApiError(
                "MODEL_ENDPOINT_NOT_ALLOWED",
                "agent.base_url is not an endpoint the operator allowed: "
                "start the API with --allow-model-endpoint URL (repeatable) to allow one",
                allowed=self.model_endpoints,
                status=403,
            )
        if api_key_env is not None and api_key_env not in self.model_key_envs:
            raise ApiError(
                "KEY_ENV_NOT_ALLOWED",
                "agent.api_key_env is not a variable the operator allowed: start "
                "the API with --model-key-env NAME (repeatable) to allow one",
                allowed=self.model_key_envs,
                status=403,
            )

    def _replay_source(self, requested: str | None) -> str:
        path = self.runs_root.confine(requested or "")
        file = path / RECORDS if path.is_dir() else path
        try:
            read_regular(file, MAX_RECORDS_BYTES)  # regular, bounded: checked before the agent reads it
        except FileNotFoundError:
            raise ApiError(
                "PATH_NOT_FOUND", f"no records {self.runs_root.relative(file)!r} under the runs directory"
            ) from None
        except (OSError, ValueError) as error:
            raise ApiError(
                "INVALID_ARGUMENT", f"records {self.runs_root.relative(file)!r} cannot be replayed: {str(error)[:200]}"
            ) from None
        return str(file)

    async def start(self, body: StartRunBody) -> LiveRun:
        episodes = [self.library.get(e) for e in body.episode_ids]
        agent = body.agent
        agent_spec: dict[str, Any] = {"name": agent.name, "max_steps": agent.max_steps}
        if agent.name == "react":
            if not agent.base_url or not agent.model:
                raise ApiError("VALIDATION_ERROR", "agent.base_url and agent.model are needed for the react agent")
            self._check_model(agent.base_url, agent.api_key_env)
            agent_spec["model"] = {"base_url": agent.base_url, "model": agent.model, "api_key_env": agent.api_key_env}
        if agent.name == "replay":
            agent_spec["replay_from"] = await asyncio.to_thread(self._replay_source, agent.replay_from)
        source = episodes[0].source or "<api>"
        try:
            spec = parse_spec(
                {
                    "episodes": {"path": str(source)},
                    "agent": agent_spec,
                    "trials": body.trials,
                    "concurrency": body.concurrency,
                    "episode_timeout_s": body.episode_timeout_s,
                },
                "<api run>",
            )
        except SpecError as error:
            raise ApiError(
                "VALIDATION_ERROR", str(error), allowed=[{"field": p, "message": m} for p, m in error.problems]
            ) from None
        try:
            inner = await asyncio.to_thread(make_agent, spec)
        except (OSError, ValueError) as error:
            raise ApiError("INVALID_AGENT", f"agent {agent.name}: {str(error)[:300]}") from None
        run_id = self._new_run_id()
        run = LiveRun(run_id, self.runs_dir / run_id, total=len(episodes) * body.trials)
        record_index = 0

        def on_record(record: dict[str, Any]) -> None:
            nonlocal record_index
            run.records += 1
            run.statuses[record["status"]] = run.statuses.get(record["status"], 0) + 1
            run.emit(
                {
                    "type": "record",
                    **record_summary(record_index, record),
                    "verdict": record.get("verdict"),
                    "state_diff": record.get("state_diff"),
                    "error": record.get("error"),
                }
            )
            record_index += 1

        runner = Runner(spec, run.out, progress=False, agent=StreamingAgent(inner, run.emit), on_record=on_record)
        run.emit(
            {
                "type": "run_started",
                "run_id": run_id,
                "agent": agent.name,
                "episodes": body.episode_ids,
                "trials": body.trials,
            }
        )
        run.task = asyncio.create_task(self._drive(run, runner, episodes), name=f"http-run-{run_id}")
        self.live[run_id] = run
        return run

    async def _drive(self, run: LiveRun, runner: Runner, episodes: list[Episode]) -> None:
        try:
            await runner.run(episodes=episodes)
            run.status = "finished"
        except asyncio.CancelledError:
            run.status, run.error = "failed", "cancelled (the API stopped)"
            raise
        except Exception as error:  # reported to the client; the API keeps serving
            run.status, run.error = "failed", f"{type(error).__name__}: {error}"
        finally:
            run.emit({"type": "run_finished", "status": run.status, "statuses": dict(run.statuses), "error": run.error})

    # --- reading runs ------------------------------------------------------------------------------------
    def _dir(self, run_id: str) -> Path:
        if not RUN_ID.fullmatch(run_id) or run_id in (".", ".."):
            raise ApiError(
                "INVALID_ARGUMENT",
                f"run id {run_id!r} is not a run directory name",
                allowed="letters, digits, '_', '-', '.'",
            )
        return self.runs_dir / run_id

    def all_runs(self) -> list[dict[str, Any]]:
        out = {run_id: run.to_dict() for run_id, run in self.live.items()}
        if self.runs_dir.is_dir():
            for path in sorted(self.runs_dir.iterdir()):
                if path.name not in out and (path / RECORDS).is_file():
                    records, _ = read_records(path / RECORDS)
                    statuses: dict[str, int] = {}
                    for record in records:
                        statuses[record.get("status", "?")] = statuses.get(record.get("status", "?"), 0) + 1
                    out[path.name] = {
                        "run_id": path.name,
                        "live": False,
                        "status": "stored",
                        "records": len(records),
                        "statuses": statuses,
                        "error": None,
                        "events": 0,
                    }
        return sorted(out.values(), key=lambda r: r["run_id"])

    def get(self, run_id: str) -> dict[str, Any]:
        for run in self.all_runs():
            if run["run_id"] == run_id:
                return run
        self._dir(run_id)
        raise ApiError(
            "RUN_NOT_FOUND",
            f"no run {run_id!r} (live or under the runs directory)",
            allowed=[r["run_id"] for r in self.all_runs()][:50],
        )

    def live_run(self, run_id: str) -> LiveRun:
        run = self.live.get(run_id)
        if run is None:
            raise ApiError("RUN_NOT_FOUND", f"no live run {run_id!r}", allowed=sorted(self.live))
        return run

    def records(self, run_id: str) -> list[dict[str, Any]]:
        path = self._dir(run_id) / RECORDS
        if not path.is_file():
            self.get(run_id)  # 404 naming the known runs
            return []
        return read_records(path)[0]

    def record(self, run_id: str, index: int) -> dict[str, Any]:
        records = self.records(run_id)
        if not 0 <= index < len(records):
            raise ApiError(
                "RECORD_NOT_FOUND",
                f"run {run_id} has no record {index}",
                allowed=f"0..{len(records) - 1}" if records else "none yet",
            )
        return records[index]

    async def close(self) -> None:
        tasks = [run.task for run in self.live.values() if run.task is not None and not run.task.done()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
