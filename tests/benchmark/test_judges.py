"""The LLM judge over a local OpenAI-compatible stand-in: 3 votes, majority, robust verdict parsing,
unusable votes → a judge infrastructure error; prompts carry the trajectory compactly."""

from __future__ import annotations

import asyncio

from agent_tools import ToolBox
from benchmark.llm.client import LLMClient
from benchmark.scoring.evaluators.evaluate import EvaluationInput, evaluate_episode
from benchmark.scoring.evaluators.judging import JudgeRequest
from benchmark.scoring.evaluators.state_comparison import fresh_fabric
from benchmark.scoring.judges.llm import LLMJudge, judge_messages, parse_verdict
from benchmark.scoring.verdicts import JudgeRecord, Verdict
from benchmark.suites.simuhome.episode import parse_episode
from tests.benchmark.fixture_episodes import build_all
from tests.support.openai_standin import OpenAIStandin, http_error, text


def test_parse_verdict_reads_structure_not_the_first_character():
    assert parse_verdict('{"verdict": "pass", "reason": "ok"}') is True
    assert parse_verdict('Sure.\n```json\n{"verdict": "FAIL", "reason": "wrong room"}\n```') is False
    assert parse_verdict("A careful reading shows the answer is wrong. Verdict: fail") is False
    assert parse_verdict("Both checks hold, so: PASS") is True
    assert parse_verdict('{"reason": "has { brace", "verdict": "pass"}') is True
    assert parse_verdict("I am not sure.") is None
    assert parse_verdict("") is None


def _request(answer: str) -> JudgeRequest:
    name = "qt3_infeasible_seed_9"
    episode = parse_episode(build_all()[name], name, episode_id=name)
    fabric = fresh_fabric(episode.initial_home_config)
    tools = ToolBox(fabric)
    observation = tools.call("get_room_devices", {"room_id": "utility_room"})
    steps = [
        {
            "index": 0,
            "thought": "look",
            "tool": "get_room_devices",
            "arguments": {"room_id": "utility_room"},
            "observation": observation,
        }
    ]
    snapshot = fabric.snapshot()
    return JudgeRequest(episode, answer, steps, tools.invocations, snapshot, fabric, [])


def _judge(server: OpenAIStandin, retries: int = 0) -> LLMJudge:
    async def no_sleep(_: float) -> None:
        return None

    return LLMJudge(
        [
            LLMClient(server.base_url, None, "judge", seed=seed, max_retries=retries, sleep=no_sleep)
            for seed in (42, 43, 44)
        ]
    )


def test_majority_of_three_votes_over_http():
    async def scenario() -> tuple[JudgeRecord, list]:
        script = [
            text('{"verdict": "pass", "reason": "says it is missing"}'),
            text("Verdict: FAIL"),
            text('```json\n{"verdict": "pass"}\n```'),
        ]
        async with OpenAIStandin(script) as server:
            result = await _judge(server).judge(_request("There is no dryer 2 in the utility room."))
            return result, server.chat_requests

    result, requests = asyncio.run(scenario())
    assert result.passed is True and [v.vote for v in result.votes] == ["pass", "fail", "pass"]
    assert sorted(r.body["seed"] for r in requests) == [42, 43, 44]
    user = requests[0].body["messages"][1]["content"]
    assert "get_room_devices" in user and "There is no dryer 2" in user and "utility_room" in user
    assert '"verdict"' in requests[0].body["messages"][0]["content"]


def test_too_few_usable_votes_is_a_judge_infra_error():
    async def scenario() -> Verdict:
        script = [http_error(500), http_error(503), text("no idea")]
        async with OpenAIStandin(script, strict=False) as server:
            name = "qt3_infeasible_seed_9"
            episode = parse_episode(build_all()[name], name, episode_id=name)
            fabric = fresh_fabric(episode.initial_home_config)
            tools = ToolBox(fabric)
            tools.call("get_room_devices", {"room_id": "utility_room"})
            snapshot = fabric.snapshot()
            data = EvaluationInput(episode, fabric, snapshot, snapshot, tools.invocations, "No such dryer.")
            return await evaluate_episode(data, _judge(server))

    verdict = asyncio.run(scenario())
    assert verdict.passed is False and verdict.infra_error.startswith("judge:")
    assert verdict.judge.passed is None
    assert sorted(v.vote for v in verdict.judge.votes) == ["error", "error", "unreadable"]


def test_long_observations_are_truncated_in_the_prompt():
    request = _request("none")
    request.steps[0]["observation"] = {"data": "x" * 5000}
    content = judge_messages(request)[1]["content"]
    assert "more characters" in content and len(content) < 4000
