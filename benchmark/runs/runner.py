"""The benchmark runner: episodes × trials, one fresh in-process fabric each (or, with ``backend``, the live
Matter home brought to each episode's initial state: ``benchmark.runs.live_home``), bounded concurrency, resumable.

Run directory::

    manifest.json     the spec, its sha256, git commit, package version, episode problems
    records.jsonl     one JSON record per (episode, trial): appended and fsynced as each finishes, rewritten in
                      the run's order (episode, trial) when the run ends
    timings.jsonl     how long each (episode, trial) took on the wall clock, appended and fsynced with its record

A record holds the full trajectory (steps with observations), the tool invocations, the state diff at the
agent's end, the verdict, tokens and the virtual duration, and no wall-clock time (schema
``homefabric-run-record/2``; /1 records carried ``wall_time_s`` and still load and report). So the same
episodes and agent actions give a byte-identical ``records.jsonl`` whatever the concurrency and however often
the run was killed and resumed; the wall times, which differ every run, are only in ``timings.jsonl``.
``resume`` keeps every complete record except infrastructure errors (not ordinary failures: SimuHome's bug
22b) and runs what is missing; a torn last line of a killed run is dropped. Each (episode, trial) therefore
ends up in the file exactly once.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tools import ToolBox
from agent_tools.toolbox import TOOL_PROFILES
from benchmark.agents.base import Agent, AgentOutcome, AgentTask
from benchmark.agents.options import ReactOptions
from benchmark.agents.oracle import OracleAgent
from benchmark.execution.executors import Executor, WorkUnit, described
from benchmark.runs.progress import RunProgress
from benchmark.runs.records import NOT_RUNNABLE, RECORD_SCHEMA, RunManifest, RunRecord, RunTiming
from benchmark.runs.spec import RunSpec
from benchmark.runs.store import (
    RECORDS,
    TIMINGS,
    RunError,
    episode_sha256,
    git_commit,
    package_version,
    prepare_run_directory,
    read_records_file,
    read_timings_file,
)
from benchmark.scoring.automation_scoring import gold_automations
from benchmark.scoring.evaluators.evaluate import EvaluationInput, evaluate_episode
from benchmark.scoring.evaluators.judging import Judge
from benchmark.scoring.evaluators.state_comparison import fresh_fabric
from benchmark.scoring.judges.rules import RulesJudge
from benchmark.suites.simuhome.episode import Episode, EpisodeProblem, iter_episodes_by_id, load_episodes
from emulator.emulated_home import EmulatedHome
from emulator.files import open_for_append, write_atomically, write_line

# What only some runs use is imported where they use it: an oracle run on the in-process fabric loads no LLM client
# or ReAct agent, no Matter-server client (a live home: spec.backend) (tests/test_cli_startup.py pins it).
if TYPE_CHECKING:
    from agent_tools.matter_backend import MatterHome
    from benchmark.runs.live_home import LiveHome

# --- the process --------------------------------------------------------------------------------------------


def freeze_long_lived() -> None:
    """For a process about to run episodes (``bench run``, ``perf/harness.py``): collect once, then move every
    object it holds now — modules, chip's cluster classes (~140k objects after imports), the loaded episodes —
    out of the cyclic collector's reach, so its full collections during the run walk only what the run makes
    (perf/harness.py: about a quarter less CPU per oracle episode). Those objects live as long as the process
    anyway; garbage made later is collected as before. Once per process (a second run adds nothing worth it).
    The youngest generation is then collected every ``YOUNG_GENERATION_ALLOCATIONS`` allocations instead of 700:
    an episode builds its homes from some hundred thousand objects, and a collection every 700 of them cost 15 %
    of a run's CPU (perf/harness.py: 0.27–0.32 of 2.0 CPU-s) for the same garbage (peak RSS +2 MiB). Each
    collection also frees the homes finished since the last one and costs some 10 ms more than its share of the
    allocations: at 20 000, collections still took a fifth of a run's CPU (perf/harness.py --per-type 40: 1.1–1.4
    of 5–7 CPU-s, measured with gc.callbacks); at 50 000, 0.64–0.9 (--per-type 20: 0.38–0.40 → 0.20–0.22 CPU-s,
    −7–9 % CPU per episode) for peak RSS +6 MiB (104 → 110 MiB at --per-type 20); 100 000 costs more again."""
    if _frozen:
        return
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_GENERATION_ALLOCATIONS, *gc.get_threshold()[1:])
    _frozen.append(True)


YOUNG_GENERATION_ALLOCATIONS = 50_000  # gc threshold 0 of a process running episodes (freeze_long_lived)
_frozen: list[bool] = []  # freeze_long_lived ran in this process


# --- agents and judges from a spec ------------------------------------------------------------------------


def make_agent(spec: RunSpec) -> Agent:
    agent = spec.agent
    if agent.name == "oracle":
        return OracleAgent()
    if agent.name == "null":
        from benchmark.agents.null import NullAgent

        return NullAgent()
    if agent.name == "replay":
        from benchmark.agents.replay import ReplayAgent

        return ReplayAgent.from_path(agent.replay_from or "")
    if agent.model is None:  # agent.models: `bench run` splits it into one spec per model (runs.spec.per_model)
        raise ValueError("a spec with agent.models runs one model at a time; split it with runs.spec.per_model")
    from benchmark.agents.react import ReactAgent
    from benchmark.llm.client import LLMClient

    client = LLMClient.from_spec(agent.model)
    options = ReactOptions.model_validate(agent.options)  # already checked when the spec was read
    return ReactAgent(client, max_steps=agent.max_steps, temperature=agent.model.temperature, **options.model_dump())


def make_judge(spec: RunSpec) -> Judge:
    if spec.judge.kind == "llm":
        from benchmark.scoring.judges.llm import LLMJudge

        return LLMJudge.from_spec(spec.judge.model, votes=spec.judge.votes)
    return RulesJudge()


# --- episodes ----------------------------------------------------------------------------------------------


def select_episodes(spec: RunSpec) -> tuple[list[Episode], list[EpisodeProblem]]:
    selection = spec.episodes
    if selection.limit:  # the first `limit` by id: read files in id order until they are found
        chosen: list[Episode] = []
        problems: list[EpisodeProblem] = []
        for episode, found in iter_episodes_by_id(selection.path, ids=selection.ids or None):
            problems.extend(found)
            if episode is not None and (not selection.kinds or episode.kind in selection.kinds):
                chosen.append(episode)
                if len(chosen) == selection.limit:
                    break
        return chosen, problems
    episodes, problems = load_episodes(selection.path)
    if selection.kinds:
        episodes = [e for e in episodes if e.kind in selection.kinds]
    if selection.ids:
        wanted = set(selection.ids)
        episodes = [e for e in episodes if e.episode_id in wanted]
    episodes.sort(key=lambda e: e.episode_id)
    return episodes, problems


def automation_tools_problem(profile: str, episodes: list[Episode]) -> str | None:
    """Episodes with gold automations (e.g. the home-systems family) are unsolvable without create_automation."""
    if "create_automation" in TOOL_PROFILES[profile]:
        return None
    needing = [e.episode_id for e in episodes if gold_automations(e)]
    if not needing:
        return None
    return (
        f"{len(needing)} episode(s) ask for automations ({needing[0]}, ...) but tool profile {profile!r} has no "
        "create_automation; use --tools simuhome_ext (tools.profile)"
    )


# --- one episode -------------------------------------------------------------------------------------------


def _virtual_span(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    return {
        "start": before["time"],
        "end": after["time"],
        "start_tick": before["tick"],
        "end_tick": after["tick"],
        "duration_s": (after["tick"] - before["tick"]) / 10,
    }


async def run_episode(
    episode: Episode,
    trial: int,
    agent: Agent,
    judge: Judge,
    spec: RunSpec,
    live: LiveHome | None = None,
    *,
    episode_hash: str | None = None,
) -> RunRecord:
    """Run one (episode, trial) on a fresh fabric — or on the live Matter home ``live``, brought to the
    episode's initial state first — and return its record (never raises for agent problems). ``episode_hash``:
    the episode's ``episode_sha256`` when the caller has it already (a run hashes each episode once)."""
    record: dict[str, Any] = {
        "schema": RECORD_SCHEMA,
        "episode_id": episode.episode_id,
        "kind": episode.kind,
        "query_type": episode.query_type,
        "case": episode.case,
        "trial": trial,
        "seed": episode.meta.seed,
        "agent": agent.name,
        "query": episode.query,
        "episode_sha256": episode_hash or episode_sha256(episode),
    }
    fabric: EmulatedHome | MatterHome
    try:
        if live is None:
            fabric = fresh_fabric(episode.initial_home_config)
        else:
            preparation = await asyncio.to_thread(live.prepare, episode)
            if not preparation.runnable:
                return RunRecord.model_validate({**record, "status": NOT_RUNNABLE, "error": preparation.reason()})
            fabric = live.home
    except Exception as error:  # a home the loader accepted but the fabric refuses: not the agent's fault
        return RunRecord.model_validate(
            {**record, "status": "infra_error", "error": f"home: {type(error).__name__}: {error}"}
        )
    toolbox = ToolBox(
        fabric,
        profile=spec.tools.profile,
        call_cost_s=spec.tools.call_cost_s,
        compat_transport=spec.tools.compat_transport,
    )
    before = fabric.snapshot()
    baseline = None
    if live is not None:
        from benchmark.runs.live_home import StaticBaseline

        baseline = StaticBaseline(before)
    extras: dict[str, Any] = {"trial": trial}
    if agent.needs_episode:  # the oracle: privileged by declaration (benchmark.agents.base.AgentBase)
        extras["episode"] = episode
    query = episode.query
    record["input"] = spec.speech.input if spec.speech is not None else "text"
    if spec.speech is not None and spec.speech.input != "text":  # the same episode and scoring, heard
        # here, not at the top: the speech stack costs 0.8 s CPU to import (measured); text runs skip it
        from benchmark.suites.voice.episode_input import spoken_input

        spoken = await asyncio.to_thread(spoken_input, episode, spec.speech)
        query, record["speech"] = spoken.query, spoken.record
        extras.update(spoken.extras)
    task = AgentTask(
        query=query,
        user_location=episode.user_location,
        current_time=fabric.now_text(),
        episode_id=episode.episode_id,
        extras=extras,
    )
    try:
        outcome = await asyncio.wait_for(agent.run(task, toolbox), spec.episode_timeout_s)
    except TimeoutError:
        outcome = AgentOutcome(
            toolbox.final_answer, [], "aborted", error=f"episode wall-clock limit {spec.episode_timeout_s} s reached"
        )
    except Exception as error:  # an agent bug ends its episode, not the run
        outcome = AgentOutcome(toolbox.final_answer, [], "aborted", error=f"{type(error).__name__}: {error}")
    after = fabric.snapshot()
    answer = outcome.final_answer if outcome.final_answer is not None else toolbox.final_answer
    record.update(
        {
            "final_answer": answer,
            "outcome": outcome.to_dict(),
            "invocations": toolbox.invocations,
            "state_diff": EmulatedHome.diff(before, after),
            "virtual": _virtual_span(before, after),
        }
    )
    if outcome.end_reason == "infra_error":
        record.update({"status": "infra_error", "error": outcome.error, "verdict": None})
    else:
        data = EvaluationInput(
            episode,
            fabric,
            before,
            after,
            toolbox.invocations,
            answer,
            [s.to_dict() for s in outcome.steps],
            outcome.end_reason,
            failure=outcome.failure,
            baseline=baseline,
            state_diff=record["state_diff"],
        )
        verdict = await evaluate_episode(data, judge, spec.evaluation)
        status = "infra_error" if verdict.infra_error else ("passed" if verdict.passed else "failed")
        record.update({"status": status, "error": verdict.infra_error or outcome.error, "verdict": verdict})
    judged = record["verdict"].judge if record["verdict"] is not None else None
    record["tokens"] = {"agent": outcome.tokens.to_dict(), "judge": judged.tokens if judged is not None else None}
    return RunRecord.model_validate(record)


async def timed_record(
    running: Awaitable[RunRecord], episode: Episode, trial: int, agent_name: str, episode_hash: str | None
) -> tuple[RunRecord, float]:
    """The record of ``running`` (a ``run_episode``) and its wall time; a bug of ours in one episode becomes its
    infrastructure-error record, not the end of the run."""
    started = time.perf_counter()
    try:
        record = await running
    except Exception as error:
        record = RunRecord(
            episode_id=episode.episode_id,
            kind=episode.kind,
            query_type=episode.query_type,
            case=episode.case,
            trial=trial,
            seed=episode.meta.seed,
            agent=agent_name,
            episode_sha256=episode_hash or episode_sha256(episode),
            status="infra_error",
            error=f"harness: {type(error).__name__}: {error}",
        )
    return record, round(time.perf_counter() - started, 4)


def run_unit(shared: dict[str, Any], unit: WorkUnit) -> tuple[RunRecord, float]:
    """One (episode, trial) on a fresh fabric: its record and wall time (an executor's task, run in any process:
    ``benchmark.runs.unit_runs``)."""
    spec: RunSpec = shared["spec"]
    episode: Episode = shared["episodes"][unit.kind]
    hashed = shared["hashes"].get(unit.kind)
    agent = make_agent(spec)
    running = run_episode(episode, unit.first, agent, make_judge(spec), spec, episode_hash=hashed)
    return asyncio.run(timed_record(running, episode, unit.first, agent.name, hashed))


# --- the run directory ---------------------------------------------------------------------------------------


class DurableLines:
    """The run's append-only files (records, timings) while it runs: each finished (episode, trial) writes its
    lines at once and is acknowledged (``on_record``, progress) only once they are fsynced. Lines written while
    an fsync is under way share the next one (group commit), and the fsync runs in a worker thread, so the
    episodes go on meanwhile. A kill leaves every acknowledged line on disk, and at most torn last lines."""

    def __init__(self, *fds: int) -> None:
        self._fds = fds
        self._written = 0  # lines groups written …
        self._synced = 0  # … and fsynced
        self._flushing: asyncio.Task[None] | None = None

    async def append(self, *lines: str) -> None:
        """Write one line to each file (in the order the files were given) and return once they are durable."""
        for fd, line in zip(self._fds, lines, strict=True):
            write_line(fd, line)
        self._written += 1
        mine = self._written
        while self._synced < mine:
            if self._flushing is None:
                self._flushing = asyncio.ensure_future(self._flush())
            await asyncio.shield(self._flushing)

    async def _flush(self) -> None:
        upto = self._written
        try:
            await asyncio.to_thread(self._fsync)
            self._synced = upto
        finally:
            self._flushing = None

    def _fsync(self) -> None:
        for fd in self._fds:
            os.fsync(fd)


def read_records(path: Path) -> tuple[list[dict[str, Any]], bool]:
    """Usable records of a records file, and whether any line was not one (``runs.store`` names each)."""
    result = read_records_file(path)
    return result.records, result.torn or bool(result.problems)


def record_line(record: RunRecord | Mapping[str, Any]) -> str:
    """One line of ``records.jsonl``; a record read back from the file is written byte for byte as it was."""
    return (record if isinstance(record, RunRecord) else RunRecord.model_validate(record)).line()


@dataclass
class RunSummary:
    out: Path
    ran: int
    kept: int
    skipped_episode_files: list[EpisodeProblem] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)
    dropped: list[dict[str, Any]] = field(default_factory=list)  # earlier records not kept, and why


async def preflight_models(agent: Agent, judge: Judge) -> dict[str, Any] | None:
    """A run's checks before anything is written: the agent's own (agents with a model have a
    ``preflight()``; its warning — tools dropped… — is printed, its result goes into the manifest), then an
    LLM judge's endpoint (a dead one would make every record an infrastructure error). A failed check is a
    :class:`RunError` naming it."""
    check = getattr(agent, "preflight", None)
    client = next(iter(getattr(judge, "clients", None) or []), None)
    if check is None and client is None:
        return None  # nothing with a model (the oracle and the rules judge): the LLM client is never loaded
    from benchmark.llm.client import LLMClient
    from benchmark.llm.preflight import PreflightError, check_endpoint

    result: dict[str, Any] | None = None
    try:
        if check is not None:
            result = await check()
            if result and result.get("warning"):
                print(f"warning: {result['warning']}", file=sys.stderr)
        if isinstance(client, LLMClient):
            await check_endpoint(client, role="judge")
    except PreflightError as error:
        raise RunError(str(error)) from None
    return result


class Runner:
    def __init__(
        self,
        spec: RunSpec,
        out: str | os.PathLike[str],
        *,
        resume: bool = False,
        progress: bool = True,
        agent: Agent | None = None,
        judge: Judge | None = None,
        on_record: Callable[[dict[str, Any]], None] | None = None,
        force: bool = False,
        live: LiveHome | None = None,
        executor: Executor | None = None,
    ) -> None:
        # on_record gets each record as it is written (its JSON shape, as readers of records.jsonl see it)
        self.spec = spec
        self.out = Path(out)
        self.resume = resume
        self.force = force  # resume without a manifest (no spec or episode check of the records kept)
        self.dropped: list[dict[str, Any]] = []
        self.progress = progress
        self.agent = agent
        self.judge = judge
        self.on_record = on_record
        self._fd: int | None = None
        self._timings_fd: int | None = None
        self._episode_hashes: dict[str, str] = {}  # episode id → episode_sha256, taken once per run (manifest)
        # A live Matter home (spec.backend): given (tests reach it inside a namespace), or opened by the run.
        self.live = live
        # Where the (episode, trial) units run: None, here with asyncio concurrency; an executor (--executor ray),
        # each unit a task with an agent and judge of its own made from the spec (benchmark.runs.unit_runs).
        self.executor = executor

    @property
    def records_path(self) -> Path:
        return self.out / RECORDS

    def _manifest(
        self, episodes: list[Episode], problems: list[EpisodeProblem], preflight: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        return RunManifest.model_validate(
            {
                "schema": "homefabric-run-manifest/1",
                "run_id": self.spec.run_id or self.out.name,
                "spec": self.spec.model_dump(mode="json", by_alias=True),
                "spec_sha256": self.spec.sha256(),
                "git_commit": git_commit(),
                "package_version": package_version(),
                "episodes": [e.episode_id for e in episodes],
                "trials": self.spec.trials,
                "episode_sha256": self._hashes_of(episodes),
                "episode_problems": [p.to_dict() for p in problems],
                "agent_preflight": preflight,
            }
        ).to_dict()

    def _hashes_of(self, episodes: list[Episode]) -> dict[str, str]:
        """Each episode's content hash, taken once: the manifest and every record of the run carry it."""
        self._episode_hashes = {e.episode_id: episode_sha256(e) for e in episodes}
        return dict(self._episode_hashes)

    def _prepare(
        self, episodes: list[Episode], problems: list[EpisodeProblem], preflight: dict[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        prepared = prepare_run_directory(
            self.out,
            self._manifest(episodes, problems, preflight),
            resume=self.resume,
            force=self.force,
            line=record_line,
        )
        self.dropped = prepared.dropped
        return prepared.kept

    async def run(self, episodes: list[Episode] | None = None, problems: Iterable[EpisodeProblem] = ()) -> RunSummary:
        if episodes is None:
            episodes, problems = select_episodes(self.spec)
        problems = list(problems)
        agent = self.agent or make_agent(self.spec)
        judge = self.judge or make_judge(self.spec)
        preflight = await preflight_models(agent, judge)  # before anything is written
        own_live = self.live is None and self.spec.backend is not None
        if own_live:
            self.live = await self._open_live()  # before anything is written
        try:
            return await self._run_selected(episodes, problems, preflight, agent, judge)
        finally:
            if own_live and self.live is not None:
                self.live.close()
                self.live = None

    async def _open_live(self) -> LiveHome:
        """The spec's live Matter home, connected (RunError naming why when it cannot be)."""
        from agent_tools.matter_backend import MappingError, MatterServerError
        from benchmark.runs.live_home import LiveHome

        assert self.spec.backend is not None
        live = LiveHome(self.spec.backend.matter_server, self.spec.backend.mapping)
        try:
            await asyncio.to_thread(lambda: live.home)
        except (MappingError, MatterServerError) as error:
            raise RunError(f"the live home: {error}") from None
        return live

    async def _run_selected(
        self,
        episodes: list[Episode],
        problems: list[EpisodeProblem],
        preflight: dict[str, Any] | None,
        agent: Agent,
        judge: Judge,
    ) -> RunSummary:
        kept = self._prepare(episodes, problems, preflight)
        if not self.resume:  # a fresh run: no timings of an earlier one (resume keeps those of the kept records)
            (self.out / TIMINGS).unlink(missing_ok=True)
        order = [(e.episode_id, t) for e in episodes for t in range(self.spec.trials)]
        done = {(r["episode_id"], int(r["trial"])): r for r in kept}
        todo = [(e, t) for e in episodes for t in range(self.spec.trials) if (e.episode_id, t) not in done]
        statuses: dict[str, int] = {}
        fresh: dict[tuple[str, int], str] = {}  # the line of each record this run made, as it was appended
        self._fd = open_for_append(self.records_path)
        self._timings_fd = open_for_append(self.out / TIMINGS)
        try:
            await self._run_all(todo, agent, judge, statuses, fresh, DurableLines(self._fd, self._timings_fd))
        finally:
            os.close(self._fd)
            os.close(self._timings_fd)
            self._fd = self._timings_fd = None
        self._write_in_run_order(order, done, fresh)
        return RunSummary(self.out, len(todo), len(kept), problems, statuses, self.dropped)

    def _write_in_run_order(
        self,
        order: list[tuple[str, int]],
        done: dict[tuple[str, int], dict[str, Any]],
        fresh: dict[tuple[str, int], str],
    ) -> None:
        """Rewrite both files in the run's order (episode, trial), whatever order the records finished in:
        with no wall time in a record, this makes ``records.jsonl`` the same bytes for the same actions."""
        lines = {**{key: record_line(r) for key, r in done.items()}, **fresh}
        write_atomically(self.records_path, "".join(lines[key] for key in order if key in lines))
        timings = read_timings_file(self.out / TIMINGS).wall_time_s
        write_atomically(
            self.out / TIMINGS,
            "".join(
                RunTiming(episode_id=key[0], trial=key[1], wall_time_s=timings[key]).line()
                for key in order
                if key in lines and key in timings
            ),
        )

    async def _run_all(
        self,
        todo: list[tuple[Episode, int]],
        agent: Agent,
        judge: Judge,
        statuses: dict[str, int],
        fresh: dict[tuple[str, int], str],
        files: DurableLines,
    ) -> None:
        semaphore = asyncio.Semaphore(1 if self.live is not None else self.spec.concurrency)  # one live home
        where = described(self.executor) if self.executor is not None else ""
        progress = RunProgress(agent.name, len(todo), where=where, enabled=self.progress and bool(todo))

        async def keep(episode: Episode, trial: int, record: RunRecord, wall_time_s: float) -> None:
            # as it finishes: a kill loses only what was running (and what was not yet acknowledged)
            line = record_line(record)
            await files.append(
                line, RunTiming(episode_id=episode.episode_id, trial=trial, wall_time_s=wall_time_s).line()
            )
            fresh[(episode.episode_id, trial)] = line
            status = record.status or "infra_error"
            statuses[status] = statuses.get(status, 0) + 1
            if self.on_record is not None:
                self.on_record(record.to_dict())
            progress.advance(status)

        async def one(episode: Episode, trial: int) -> None:
            async with semaphore:
                hashed = self._episode_hashes.get(episode.episode_id)
                running = run_episode(episode, trial, agent, judge, self.spec, self.live, episode_hash=hashed)
                record, wall_time_s = await timed_record(running, episode, trial, agent.name, hashed)
            await keep(episode, trial, record, wall_time_s)

        with progress:
            if self.executor is not None:  # units on an executor (Ray), kept in unit order
                from benchmark.runs.unit_runs import records_on

                units = records_on(self.executor, run_unit, self.spec, todo, self._episode_hashes)
                # each next unit fetched in a thread: a unit run here (the local executor) runs its own event loop
                while (finished := await asyncio.to_thread(next, units, None)) is not None:
                    await keep(*finished)
            else:
                await asyncio.gather(*(one(e, t) for e, t in todo))
