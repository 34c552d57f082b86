"""The faults a real model server showed (issue 16), each played by the scripted stand-in over real HTTP:
runaway output, a chat template that drops `tools`, replies cut off at the token limit, the reply-format
placeholder copied back."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from benchmark.agents.react import ReactAgent, ReplyFormatError, parse_react_reply
from benchmark.llm.client import LLMClient
from benchmark.llm.preflight import PreflightError
from tests.benchmark.test_react_agent import LIGHT, TURN_ON, light_is_on, run_agent
from tests.support.openai_standin import (
    OpenAIStandin,
    cut_off,
    delay,
    echo_placeholder,
    finish,
    preflight_turns,
    react,
    runaway,
    text,
    tool_call,
)

# --- 1. runaway output is the model's failure ----------------------------------------------------------------


def test_a_model_generating_past_the_timeout_aborts_as_runaway_without_retries() -> None:
    run = run_agent([tool_call(*TURN_ON), delay(6.0)], client_options={"timeout_s": 1.0, "max_retries": 5})
    assert run.outcome.end_reason == "aborted" and run.outcome.failure == "runaway_output"
    assert (run.outcome.error or "").startswith("runaway_output:")
    assert run.client.sleeps == [] and len(run.server.chat_requests) == 2  # the same request was not re-sent
    assert light_is_on(run.fabric) and len(run.outcome.steps) == 1


def test_a_model_running_to_the_token_cap_every_turn_aborts_as_runaway() -> None:
    run = run_agent([runaway()] * 3, mode="text", client_options={"max_tokens": 50})
    assert run.outcome.end_reason == "aborted" and run.outcome.failure == "runaway_output"
    assert "cut off at the token limit" in (run.outcome.error or "")
    assert all(step.raw["truncated"] and step.raw["finish_reason"] == "length" for step in run.outcome.steps)
    assert run.outcome.tokens.completion_tokens == 150


def test_other_unusable_replies_are_not_called_runaway() -> None:
    run = run_agent([runaway(), text("hmm"), text("hmm")], mode="text", client_options={"max_tokens": 50})
    assert run.outcome.failure == "unusable_output"


# --- 4. a reply cut off at the token limit --------------------------------------------------------------------

CUT = '{"thought": "Switch on the light.", "action": "execute_command", "action_input": {"device_id": "liv'


def test_a_cut_off_text_reply_is_reported_as_truncation_and_the_model_is_told() -> None:
    run = run_agent(
        [cut_off(CUT), react("execute_command", TURN_ON[1]), react("finish", {"answer": "On."})], mode="text"
    )
    assert run.outcome.final_answer == "On." and light_is_on(run.fabric)
    first = run.outcome.steps[0]
    assert first.tool is None and first.raw["truncated"] and first.raw["finish_reason"] == "length"
    assert "cut off at the token limit" in first.observation["error"]
    told = run.request(1)["messages"][-1]
    assert told["role"] == "user" and "cut off at the token limit" in told["content"]


def test_an_inner_object_of_a_cut_off_reply_is_never_taken_for_the_reply() -> None:
    # the reply below was once parsed as {"action_input": {}} -> a finish with an empty answer
    cut = '{"thought": "done", "action": "finish", "action_input": {"answer": "The light is'
    with pytest.raises(ReplyFormatError, match="never closed"):
        parse_react_reply(cut + ' {"action_input": {}}')
    run = run_agent(
        [cut_off(cut + ' {"action": "finish", "action_input": {}}'), react("finish", {"answer": "On."})], mode="text"
    )
    assert run.outcome.final_answer == "On." and run.outcome.steps[0].tool is None


def test_a_whole_reply_followed_by_rambling_to_the_cap_is_used_and_marked() -> None:
    whole = json.dumps({"thought": "t", "action": "execute_command", "action_input": TURN_ON[1]})
    run = run_agent(
        [cut_off(whole + "\nObservation: the light is on. Now I will"), react("finish", {"answer": "On."})], mode="text"
    )
    assert light_is_on(run.fabric) and run.outcome.final_answer == "On."
    assert run.outcome.steps[0].tool == "execute_command" and run.outcome.steps[0].raw["finish_reason"] == "length"


def test_a_cut_off_native_reply_is_not_a_final_answer() -> None:
    run = run_agent([cut_off("The light in the living room is now swit"), tool_call(*TURN_ON), finish("On.")])
    assert run.outcome.final_answer == "On." and light_is_on(run.fabric)
    assert run.outcome.steps[0].tool is None and run.outcome.steps[0].raw["truncated"]
    assert run.toolbox.final_answer == "On."
    messages = run.request(1)["messages"]
    assert messages[-1]["role"] == "user" and "cut off" in messages[-1]["content"]


def test_max_tokens_reaches_the_server_and_a_longer_reply_is_cut_there() -> None:
    long_answer = "The living room light is on now, as you asked, at full brightness. " * 3
    run = run_agent(
        [react("finish", {"answer": long_answer}), react("finish", {"answer": "On."})],
        mode="text",
        client_options={"max_tokens": 30},
    )
    assert run.request(0)["max_tokens"] == 30
    assert run.outcome.steps[0].raw["truncated"] and run.outcome.final_answer == "On."


# --- 5. the reply-format placeholder copied back --------------------------------------------------------------


def test_the_placeholder_copied_back_is_refused_in_text_mode() -> None:
    run = run_agent([echo_placeholder(), react("finish", {"answer": "There is one light; it is off."})], mode="text")
    first = run.outcome.steps[0]
    assert first.arguments == {"answer": "<your answer for the user>"}
    assert first.observation["status"]["code"] == 400 and "placeholder" in first.observation["error"]["detail"]
    assert run.outcome.final_answer == "There is one light; it is off."
    assert run.toolbox.final_answer == "There is one light; it is off."


def test_only_placeholders_end_in_an_aborted_run_without_an_answer() -> None:
    run = run_agent([echo_placeholder()] * 3, mode="text")
    assert run.outcome.end_reason == "aborted" and run.outcome.final_answer is None
    assert run.toolbox.final_answer is None  # never reached the toolbox's finish


def test_a_placeholder_plain_reply_in_native_mode_is_refused() -> None:
    run = run_agent([text("<your answer for the user>"), finish("Done.")])
    assert run.outcome.final_answer == "Done." and run.outcome.steps[0].observation["status"]["code"] == 400


# --- 2. tools dropped by the chat template: preflight -----------------------------------------------------------


def preflight(
    script: list[Any], mode: str = "native", **server: Any
) -> tuple[dict[str, Any], ReactAgent, OpenAIStandin]:
    async def scenario() -> tuple[dict[str, Any], ReactAgent, OpenAIStandin]:
        async with OpenAIStandin(script, **server) as standin:
            agent = ReactAgent(LLMClient(standin.base_url, None, "standin", max_retries=0), mode=mode)  # type: ignore[arg-type]
            return await agent.preflight(), agent, standin

    return asyncio.run(scenario())


def test_preflight_detects_a_template_that_drops_tools_and_auto_switches_to_text() -> None:
    result, agent, server = preflight(preflight_turns(calls_tools=False), mode="auto", drop_tools=True)
    probe = result["tool_calling"]
    assert probe["verdict"] == "tools_dropped"
    assert probe["prompt_tokens_with_tools"] == probe["prompt_tokens_without_tools"]
    assert agent.mode == "text" and result["mode"] == "text" and "text-ReAct" in result["warning"]
    first, second = server.chat_requests
    assert first.body["max_tokens"] == 1 and "tools" not in first.body
    assert second.body["tools"][0]["function"]["name"] == "get_probe_value"


def test_preflight_warns_but_keeps_native_when_native_was_asked_for() -> None:
    result, agent, _ = preflight(preflight_turns(calls_tools=False), drop_tools=True)
    assert agent.mode == "native" and "--mode auto" in result["warning"]


def test_preflight_keeps_native_when_the_probe_comes_back_with_a_tool_call() -> None:
    result, agent, _ = preflight(preflight_turns(calls_tools=True), mode="auto")
    assert result["tool_calling"]["verdict"] == "tool_call" and agent.mode == "native" and "warning" not in result


def test_preflight_sees_a_model_that_ignores_tools_it_was_shown() -> None:
    result, agent, _ = preflight(preflight_turns(calls_tools=False), mode="auto")
    assert result["tool_calling"]["verdict"] == "no_tool_call" and agent.mode == "text"


def test_text_mode_preflight_only_probes_the_endpoint() -> None:
    result, _, server = preflight([text("ok")], mode="text")
    assert "tool_calling" not in result and len(server.chat_requests) == 1


def test_preflight_of_a_dead_endpoint_is_one_line() -> None:
    async def scenario() -> str:
        standin = await OpenAIStandin().start()
        url = standin.base_url
        await standin.stop()
        agent = ReactAgent(LLMClient(url, None, "m", sleep=_no_sleep))
        with pytest.raises(PreflightError) as caught:
            await agent.preflight()
        return str(caught.value)

    message = asyncio.run(scenario())
    assert "\n" not in message and "cannot be used" in message and "connection" in message


async def _no_sleep(_: float) -> None:
    return None


def test_the_outcome_names_the_mode_that_ran() -> None:
    run = run_agent([react("finish", {"answer": "ok"})], mode="text")
    assert run.outcome.mode == "text" and json.loads(json.dumps(run.outcome.to_dict()))["mode"] == "text"
    run = run_agent([finish("ok")], mode="auto")  # without a preflight, auto means native
    assert run.outcome.mode == "native"
    assert LIGHT not in json.dumps(run.outcome.to_dict()["steps"])
