"""The one-shot JSON (DR) and ReAct (EIA) agents end to end against the local OpenAI-compatible stand-in
(a real HTTP server speaking chat completions), through the existing LLMClient."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from benchmark.llm.client import LLMClient
from benchmark.suites.smh.agents import LlmDr, ReactEia, oracle_question
from benchmark.suites.smh.instance import Instance
from benchmark.suites.smh.session import Homes
from benchmark.suites.smh.settings import Outcome, run_dr, run_eia
from tests.support.openai_standin import OpenAIStandin, http_error, text, tool_call


async def _no_sleep(_: float) -> None:
    return None


def _pick(instances: list[Instance], subcategory: str) -> Instance:
    return next(i for i in instances if i.subcategory == subcategory and i.tier == "medium")


def _actions(instance: Instance) -> list[dict]:
    return [a.model_dump(mode="json") for a in instance.goal.reference]


def test_dr_agent_one_shot_and_a_clarification_stage(suite_dir: Path, instances: list[Instance]) -> None:
    execute = _pick(instances, "explicit_multi_device")
    clarify = _pick(instances, "slot_missing")
    script = [
        text(json.dumps({"mode": "execute", "response": "Done.", "actions": _actions(execute)}), usage=(900, 40)),
        text("```json\n" + json.dumps({"mode": "clarify", "response": oracle_question(clarify)}) + "\n```"),
        text(json.dumps({"mode": "execute", "response": "Done.", "actions": _actions(clarify)})),
        http_error(400, message="bad request"),
    ]

    async def scenario() -> tuple[list, list]:
        async with OpenAIStandin(script) as server:
            agent = LlmDr(LLMClient(server.base_url, None, "standin", sleep=_no_sleep, max_retries=0))
            homes = Homes(suite_dir)
            outcomes = [await run_dr(i, agent, homes) for i in (execute, clarify, execute)]
            return outcomes, server.chat_requests

    outcomes, requests = asyncio.run(scenario())
    assert [o.verdict.overall_pass for o in outcomes[:2]] == [True, True]
    assert outcomes[0].prediction.tokens["prompt_tokens"] == 900
    assert outcomes[2].verdict.error_class == "FRF" and outcomes[2].verdict.error_subtype == "request_failed"
    first_prompt = requests[0].body["messages"][1]["content"]
    assert '"schemas"' in first_prompt and execute.user_query in first_prompt
    assert "USER ANSWERS: " + clarify.goal.clarification.reply in requests[2].body["messages"][-1]["content"]


def test_react_agent_queries_acts_and_answers(suite_dir: Path, instances: list[Instance]) -> None:
    instance = _pick(instances, "clear_command")
    action = _actions(instance)[0]
    script = [
        tool_call("query_device", {"what": "specs", "did": action["did"]}),
        tool_call("control_device", action),
        text("Done: " + instance.user_query),
    ]

    async def scenario() -> tuple:
        async with OpenAIStandin(script) as server:
            agent = ReactEia(LLMClient(server.base_url, None, "standin", sleep=_no_sleep))
            return await run_eia(instance, agent, Homes(suite_dir)), server.chat_requests

    outcome, requests = asyncio.run(scenario())
    assert outcome.verdict.overall_pass, outcome.verdict
    assert outcome.prediction.tool_calls == 2 and outcome.prediction.tokens["calls"] == 3
    names = {t["function"]["name"] for t in requests[0].body["tools"]}
    assert names == {"query_device", "control_device", "create_automation", "ask_user"}
    assert requests[2].body["messages"][-1]["role"] == "tool"


def test_react_agent_over_budget_is_interaction_efficiency(suite_dir: Path, instances: list[Instance]) -> None:
    instance = _pick(instances, "clear_command")
    script = [tool_call("query_device", {"what": "status"}) for _ in range(4)]

    async def scenario():
        async with OpenAIStandin(script) as server:
            agent = ReactEia(LLMClient(server.base_url, None, "standin", sleep=_no_sleep))
            return await run_eia(instance, agent, Homes(suite_dir), budget=3)

    outcome = asyncio.run(scenario())
    assert outcome.prediction.end_reason == "budget" and outcome.verdict.error_class == "IE"


def test_bench_run_cli_with_the_react_agent(suite_dir: Path, instances: list[Instance], tmp_path: Path) -> None:
    chosen = sorted(i.id for i in instances if i.subcategory == "status_inquiry")
    answers = {i.id: i.goal.answer.text for i in instances if i.subcategory == "status_inquiry"}
    script = [text(answers[i]) for i in chosen]  # one answer per request, in request order: hence --concurrency 1
    with OpenAIStandin(script).in_thread() as server:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "homefabric_cli.main",
                "bench",
                "run",
                "--suite",
                "smh",
                "--episodes",
                str(suite_dir),
                "--setting",
                "eia",
                "--agent",
                "react",
                "--kinds",
                "status_inquiry",
                "--base-url",
                server.base_url,
                "--model",
                "standin",
                "--concurrency",
                "1",
                "--out",
                str(tmp_path / "run"),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert result.returncode == 0, result.stderr
    assert "overall: 3/3 (100.0 %)" in result.stdout
    report = subprocess.run(
        [sys.executable, "-m", "homefabric_cli.main", "bench", "report", str(tmp_path / "run"), "--json", "--no-plots"],
        capture_output=True,
        text=True,
        check=True,
    )
    summary = json.loads(report.stdout)
    assert summary["overall"]["success_rate"] == 100.0 and set(summary["by_tier"]) == {"simple", "medium", "complex"}
    assert summary["by_subcategory"] == {"status_inquiry": {"passed": 3, "total": 3, "success_rate": 100.0}}


def test_bench_run_cli_refuses_bad_input_in_one_line(suite_dir: Path, tmp_path: Path) -> None:
    for args, needle in [
        (["--setting", "xx", "--agent", "oracle"], "Input should be 'dr' or 'eia'"),
        (["--setting", "dr", "--agent", "gpt"], "agent.name"),
        (["--setting", "dr", "--agent", "llm"], "needs a model (base_url, model)"),
        (["--setting", "dr", "--agent", "oracle", "--kinds", "nope"], "unknown subcategories"),
    ]:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "homefabric_cli.main",
                "bench",
                "run",
                "--suite",
                "smh",
                "--episodes",
                str(suite_dir),
                "--out",
                str(tmp_path / "r"),
                *args,
            ],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 2 and needle in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert not (tmp_path / "r").exists()


def test_episodes_generate_cli_smh(tmp_path: Path) -> None:
    ok = subprocess.run(
        [
            sys.executable,
            "-m",
            "homefabric_cli.main",
            "episodes",
            "generate",
            "--suite",
            "smh",
            "--per-subcategory",
            "1,0,0",
            "--seed",
            "3",
            "--out",
            str(tmp_path / "s"),
        ],
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0 and "wrote 22 SMH instances" in ok.stdout, ok.stderr
    for args, needle in [
        (["--suite", "smh", "--per-subcategory", "1,2"], "give three counts"),
        (["--suite", "bogus"], "allowed: simuhome, smh"),
        (["--suite", "smh", "--per-subcategory", "0"], "no instances requested"),
    ]:
        bad = subprocess.run(
            [
                sys.executable,
                "-m",
                "homefabric_cli.main",
                "episodes",
                "generate",
                *args,
                "--out",
                str(tmp_path / "bad"),
            ],
            capture_output=True,
            text=True,
        )
        assert bad.returncode != 0 and needle in bad.stderr and "Traceback" not in bad.stderr, bad.stderr
    assert not (tmp_path / "bad").exists()


def test_llm_user_answers_and_the_transcript_replays(suite_dir: Path, instances: list[Instance]) -> None:
    from benchmark.suites.smh.agents import OracleEia
    from benchmark.suites.smh.user_sim import LlmUser, ReplayUser

    instance = _pick(instances, "slot_missing")
    reply = "Oh, " + instance.goal.clarification.reply

    async def scenario(server: OpenAIStandin) -> Outcome:
        client = LLMClient(server.base_url, None, "standin", sleep=_no_sleep)
        return await run_eia(instance, OracleEia(), Homes(suite_dir), user_factory=lambda i: LlmUser(i, client))

    with OpenAIStandin([text(reply)]).in_thread() as server:
        outcome = asyncio.run(scenario(server))
        prompt = server.chat_requests[0].body["messages"][0]["content"]
    assert outcome.verdict.overall_pass and outcome.prediction.questions[0]["reply"] == reply
    assert instance.goal.clarification.reply in prompt
    replayed = asyncio.run(
        run_eia(
            instance, OracleEia(), Homes(suite_dir), user_factory=lambda i: ReplayUser(i, outcome.prediction.questions)
        )
    )
    assert replayed.prediction.questions == outcome.prediction.questions


def test_llm_judge_decides_query_answers_by_majority(suite_dir: Path, instances: list[Instance]) -> None:
    from benchmark.suites.smh.agents import OracleDr
    from benchmark.suites.smh.judge import SmhAnswerJudge

    instance = _pick(instances, "quantity_query")
    votes = [text('{"verdict": "fail"}'), text('{"verdict": "fail"}'), text("Verdict: pass")]

    async def scenario() -> tuple[Outcome, str]:
        async with OpenAIStandin(votes) as server:
            client = LLMClient(server.base_url, None, "judge", sleep=_no_sleep)
            judge = SmhAnswerJudge([client, client, client])
            outcome = await run_dr(instance, OracleDr(), Homes(suite_dir), judge=judge)
            return outcome, server.chat_requests[0].body["messages"][1]["content"]

    outcome, prompt = asyncio.run(scenario())
    assert instance.goal.answer.text in prompt
    assert not outcome.verdict.overall_pass and outcome.verdict.error_subtype == "llm_judge"
    assert sorted(v["vote"] for v in outcome.verdict.judge["votes"]) == ["fail", "fail", "pass"]


class _AsksThenActs:
    """A DR agent that asks ``question`` first, then executes the gold actions."""

    name = "asks"

    def __init__(self, question: str) -> None:
        self.question = question

    async def reply(self, instance: Instance, messages: list, stage: int, tokens: object) -> str:
        if stage == 1:
            return json.dumps({"mode": "clarify", "response": self.question})
        return json.dumps({"mode": "execute", "response": "Done.", "actions": _actions(instance)})


def test_llm_judge_decides_clarifying_questions_beside_the_rules(suite_dir: Path, instances: list[Instance]) -> None:
    from benchmark.suites.smh.judge import SmhClarificationJudge

    instance = _pick(instances, "slot_missing")
    vague = "Shall I go ahead?"  # names no cue of the missing slot: the rules fail it
    votes = [
        text('{"verdict": "pass"}'),
        text('{"verdict": "pass"}'),
        text('{"verdict": "fail"}'),
        text('{"verdict": "fail"}'),
        text('{"verdict": "fail"}'),
        text('{"verdict": "pass"}'),
    ]

    async def scenario() -> tuple:
        async with OpenAIStandin(votes) as server:
            client = LLMClient(server.base_url, None, "judge", sleep=_no_sleep)
            judge = SmhClarificationJudge([client, client, client])
            homes = Homes(suite_dir)
            rules_only = await run_dr(instance, _AsksThenActs(vague), homes)
            lenient = await run_dr(instance, _AsksThenActs(vague), homes, clarification_judge=judge)
            strict = await run_dr(instance, _AsksThenActs(oracle_question(instance)), homes, clarification_judge=judge)
            return rules_only, lenient, strict, server.chat_requests[0].body["messages"][1]["content"]

    rules_only, lenient, strict, prompt = asyncio.run(scenario())
    assert (rules_only.verdict.error_class, rules_only.verdict.error_subtype) == ("MS", "question_misses_the_slot")
    assert lenient.verdict.overall_pass and lenient.verdict.checks["clarification_rules"] is False
    assert sorted(v["vote"] for v in lenient.verdict.judge["votes"]) == ["fail", "pass", "pass"]
    assert not strict.verdict.overall_pass and strict.verdict.checks["clarification_rules"] is True
    assert strict.verdict.error_subtype == "question_misses_the_slot"
    assert vague in prompt and instance.user_query in prompt and instance.goal.clarification.slot in prompt
