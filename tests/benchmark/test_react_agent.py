"""The ReAct agent end to end: scripted model turns over real HTTP → LLMClient → agent → ToolBox → EmulatedHome."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import pytest

from agent_tools import ToolBox
from benchmark.agents.base import AgentOutcome, AgentTask
from benchmark.agents.react import ReactAgent, ReplyFormatError, first_json_object, parse_react_reply
from benchmark.llm.client import LLMClient
from emulator.emulated_home import EmulatedHome
from tests.emulator.helpers import fabric as build_fabric
from tests.support.openai_standin import (
    OpenAIStandin,
    Turn,
    finish,
    hang,
    http_error,
    oracle_script,
    react,
    text,
    tool_call,
    tool_calls,
)

LIGHT = "living_room_on_off_light_1"
FAN = "kitchen_fan_1"
TASK = AgentTask(
    query="Turn on the living room light, please.",
    user_location="living_room",
    current_time="2025-08-23 09:00:00",
    episode_id="qt3_feasible_seed_1",
)
GET_DEVICES = ("get_room_devices", {"room_id": "living_room"})
TURN_ON = (
    "execute_command",
    {"device_id": LIGHT, "endpoint_id": 1, "cluster_id": "OnOff", "command_id": "On", "args": {}},
)
READ_LIGHT = ("get_attribute", {"device_id": LIGHT, "endpoint_id": 1, "cluster_id": "OnOff", "attribute_id": "OnOff"})


def light_is_on(fabric: EmulatedHome) -> bool:
    return bool(fabric.read(LIGHT, 1, "OnOff", "OnOff"))


@dataclass
class Run:
    outcome: AgentOutcome
    server: OpenAIStandin
    fabric: EmulatedHome
    toolbox: Any
    client: LLMClient

    def request(self, index: int) -> dict[str, Any]:
        return self.server.chat_requests[index].body

    def tool_messages(self, index: int) -> list[dict[str, Any]]:
        return [m for m in self.request(index)["messages"] if m["role"] == "tool"]


def run_agent(
    script: list[Turn], *, task: AgentTask = TASK, client_options: dict[str, Any] | None = None, **agent_options: Any
) -> Run:
    fabric = build_fabric([(LIGHT, "on_off_light", "living_room"), (FAN, "fan", "kitchen")])
    toolbox = ToolBox(fabric)
    sleeps: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    async def scenario() -> Run:
        async with OpenAIStandin(script) as server:
            client = LLMClient(server.base_url, None, "standin", sleep=fake_sleep, **(client_options or {}))
            async with client:
                outcome = await ReactAgent(client, **agent_options).run(task, toolbox)
            return Run(outcome, server, fabric, toolbox, client)

    return asyncio.run(scenario())


# --- native tool calling ---------------------------------------------------------------------------


def test_a_scripted_run_turns_the_light_on_and_finishes() -> None:
    run = run_agent(
        oracle_script([("get_rooms", {}), GET_DEVICES, TURN_ON], answer="The light is on now."),
        temperature=0.25,
        client_options={"seed": 42},
    )
    assert light_is_on(run.fabric)
    assert run.outcome.end_reason == "finished" and run.outcome.final_answer == "The light is on now."
    assert run.outcome.error is None
    assert [s.tool for s in run.outcome.steps] == ["get_rooms", "get_room_devices", "execute_command", "finish"]
    assert run.outcome.steps[2].arguments == TURN_ON[1]
    assert run.outcome.steps[2].observation["status"]["code"] == 200
    assert run.outcome.steps[2].virtual_time == "2025-08-23 09:00:00"  # no virtual time passed while thinking
    assert [s.index for s in run.outcome.steps] == [0, 1, 2, 3]
    # every request offered the toolbox's schemas, the agent's temperature and the client's seed
    for request in run.server.chat_requests:
        assert request.body["tools"] == run.toolbox.schemas()
        assert request.body["tool_choice"] == "auto"
        assert request.body["temperature"] == 0.25 and request.body["seed"] == 42
    first = run.request(0)["messages"]
    assert [m["role"] for m in first] == ["system", "user"]
    assert "hundredths of a degree" in first[0]["content"] and "CountdownTime" in first[0]["content"]
    assert all(part in first[1]["content"] for part in (TASK.query, "living_room", "2025-08-23 09:00:00"))
    # the observation of each call went back as a tool message answering that call's id
    last = run.request(3)["messages"]
    calls = [c for m in last if m["role"] == "assistant" for c in m["tool_calls"]]
    answers = run.tool_messages(3)
    assert [c["id"] for c in calls] == [a["tool_call_id"] for a in answers]
    assert LIGHT in json.loads(answers[1]["content"])["data"]  # get_room_devices listed the light
    # tokens: one recorded call per model turn, summed from the server's usage
    usage = run.outcome.tokens
    assert usage.calls == 4 == len(run.server.chat_requests)
    assert usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert run.outcome.steps[0].raw["usage"]["prompt_tokens"] > 0
    assert [record["tool"] for record in run.toolbox.invocations][:3] == [
        "get_rooms",
        "get_room_devices",
        "execute_command",
    ]


def test_malformed_tool_call_json_is_an_error_observation_and_the_run_goes_on() -> None:
    run = run_agent(
        [
            tool_call("execute_command", '{"device_id": "living_room_on_off_light_1", "endpoint_id": 1,'),
            tool_call(*TURN_ON),
            finish("Done."),
        ]
    )
    bad = run.outcome.steps[0]
    assert bad.tool == "execute_command" and bad.arguments is None
    assert bad.observation["status"]["code"] != 200 and bad.observation["error"]
    sent_back = json.loads(run.tool_messages(1)[0]["content"])
    assert sent_back == bad.observation
    assert run.outcome.end_reason == "finished" and light_is_on(run.fabric)
    assert run.toolbox.invocations[0]["ok"] is False


def test_an_unknown_tool_gets_the_toolbox_error_envelope_back() -> None:
    run = run_agent([tool_call("teleport_user", {"to": "kitchen"}), finish("I cannot do that.")])
    observation = run.outcome.steps[0].observation
    assert observation["status"]["code"] != 200 and "teleport_user" in json.dumps(observation)
    assert json.loads(run.tool_messages(1)[0]["content"]) == observation
    assert run.outcome.end_reason == "finished"
    assert not light_is_on(run.fabric)


def test_bad_arguments_are_refused_without_touching_the_home() -> None:
    missing = {k: v for k, v in TURN_ON[1].items() if k != "command_id"}
    run = run_agent(
        [
            tool_call("execute_command", missing),
            tool_call("execute_command", {**TURN_ON[1], "endpoint_id": "one"}),
            tool_call("get_room_devices", {"room": "living_room"}),
            finish("Sorry."),
        ]
    )
    for step in run.outcome.steps[:3]:
        assert step.observation["status"]["code"] == 400, step.observation
        assert step.observation["error"]["detail"]
    assert not light_is_on(run.fabric)
    assert run.outcome.end_reason == "finished"  # argument errors are observations, not protocol failures
    assert [record["ok"] for record in run.toolbox.invocations[:3]] == [False, False, False]


def test_consecutive_unusable_calls_abort_the_episode() -> None:
    run = run_agent(
        [tool_call("nope", {}), tool_call("get_rooms", "{oops"), tool_call("finish", {}), finish("never reached")],
        max_consecutive_failures=3,
    )
    assert run.outcome.end_reason == "aborted" and run.outcome.final_answer is None
    assert "3 unusable" in (run.outcome.error or "")
    assert run.server.remaining == 1


def test_a_valid_call_resets_the_failure_count() -> None:
    run = run_agent(
        [
            tool_call("nope", {}),
            tool_call("nope", {}),
            tool_call("get_rooms", {}),
            tool_call("nope", {}),
            tool_call("nope", {}),
            finish("ok"),
        ],
        max_consecutive_failures=3,
    )
    assert run.outcome.end_reason == "finished"


def test_parallel_tool_calls_run_in_order_and_each_is_answered() -> None:
    run = run_agent([tool_calls([GET_DEVICES, TURN_ON, READ_LIGHT], content="Looking and acting."), finish("Done.")])
    assert [s.tool for s in run.outcome.steps] == ["get_room_devices", "execute_command", "get_attribute", "finish"]
    assert run.outcome.steps[0].thought == "Looking and acting."
    assert run.outcome.steps[2].observation["data"] is True  # the read saw the earlier command's effect
    answers = run.tool_messages(1)
    assert len(answers) == 3 and len({a["tool_call_id"] for a in answers}) == 3
    assert run.outcome.tokens.calls == 2


def test_finish_in_the_middle_of_a_turn_stops_the_rest() -> None:
    run = run_agent([tool_calls([("finish", {"answer": "early"}), TURN_ON])])
    assert run.outcome.final_answer == "early" and not light_is_on(run.fabric)
    assert run.outcome.steps[-1].raw["skipped_after_finish"][0]["function"]["name"] == "execute_command"


def test_a_429_mid_run_is_retried_after_retry_after() -> None:
    run = run_agent([tool_call(*GET_DEVICES), http_error(429, retry_after=2), tool_call(*TURN_ON), finish("Light on.")])
    assert run.outcome.end_reason == "finished" and light_is_on(run.fabric)
    assert run.client.sleeps == [2.0]
    assert [r.status for r in run.server.requests] == [200, 429, 200, 200]
    assert run.server.requests[1].body == run.server.requests[2].body  # the same request was re-sent
    assert run.outcome.tokens.calls == 3


def test_a_hung_endpoint_ends_in_infra_error() -> None:
    run = run_agent([tool_call(*TURN_ON), hang(3.0)], client_options={"timeout_s": 0.5, "max_retries": 1})
    assert run.outcome.end_reason == "infra_error" and run.outcome.final_answer is None
    assert "timeout" in (run.outcome.error or "")
    assert len(run.outcome.steps) == 1 and light_is_on(run.fabric)  # what was done before stays recorded


def test_a_refused_request_aborts_with_the_reason() -> None:
    run = run_agent([http_error(400, message="This model's maximum context length is 4096 tokens")])
    assert run.outcome.end_reason == "aborted" and (run.outcome.error or "").startswith("context_overflow")


def test_running_out_of_steps_gives_no_answer() -> None:
    run = run_agent([tool_call("get_rooms", {})] * 3 + [finish("too late")], max_steps=3)
    assert run.outcome.end_reason == "max_steps" and run.outcome.final_answer is None
    assert len(run.server.chat_requests) == 3 and run.server.remaining == 1
    assert len(run.outcome.steps) == 3


def test_a_plain_text_reply_finishes_by_default() -> None:
    run = run_agent([tool_call(*TURN_ON), text("I switched the living room light on.")])
    assert run.outcome.end_reason == "finished"
    assert run.outcome.final_answer == "I switched the living room light on."
    assert run.outcome.steps[-1].tool == "finish" and run.outcome.steps[-1].raw["implicit_finish"]
    assert run.toolbox.final_answer == "I switched the living room light on."


def test_a_plain_text_reply_is_nudged_when_finish_must_be_explicit() -> None:
    run = run_agent([text("Let me think."), finish("Done.")], plain_answer_finishes=False)
    assert run.outcome.final_answer == "Done."
    second = run.request(1)["messages"]
    assert second[-2] == {"role": "assistant", "content": "Let me think."}
    assert second[-1]["role"] == "user" and "finish" in second[-1]["content"]
    assert run.outcome.steps[0].tool is None


def test_dialogue_history_and_memory_are_rendered() -> None:
    task = AgentTask(
        query="And the kitchen?",
        user_location="kitchen",
        current_time="2025-08-23 09:00:00",
        dialogue_history=(
            {"role": "user", "content": "How warm is the living room?"},
            {"role": "assistant", "content": "It is 28 °C."},
            {"turn": 0, "actions": ["get_room_states"]},
        ),
        memory={"preferred_temperature": "22 °C"},
    )
    run = run_agent([finish("Also 28 °C.")], task=task)
    messages = run.request(0)["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2]["content"] == "It is 28 °C."
    assert "preferred_temperature: 22 °C" in messages[3]["content"]
    assert "get_room_states" in messages[3]["content"]


# --- text ReAct fallback ---------------------------------------------------------------------------


def test_text_mode_with_a_fenced_json_reply_turns_the_light_on() -> None:
    run = run_agent(
        [
            react(
                "get_room_devices",
                {"room_id": "living_room"},
                thought="Find the light.",
                fenced=True,
                prose="Sure, let me look.",
            ),
            react("execute_command", TURN_ON[1], thought="Switch it on.", input_as_string=False),
            react("finish", {"answer": "The light is on."}, fenced=True),
        ],
        mode="text",
    )
    assert light_is_on(run.fabric)
    assert run.outcome.end_reason == "finished" and run.outcome.final_answer == "The light is on."
    assert [s.thought for s in run.outcome.steps] == ["Find the light.", "Switch it on.", ""]
    for request in run.server.chat_requests:
        assert "tools" not in request.body and request.body["temperature"] == 0.0
    system = run.request(0)["messages"][0]["content"]
    assert all(f"- {name}(" in system for name in run.toolbox.names())
    assert "    room_id: string — " in system and '"action_input"' in system  # argument help and the format
    observation = run.request(1)["messages"][-1]
    assert observation["role"] == "user" and observation["content"].startswith("Observation: ")
    assert LIGHT in observation["content"]


def test_text_mode_corrects_unreadable_replies_and_aborts_after_too_many() -> None:
    run = run_agent(
        [
            text("I will now turn on the light."),
            react("execute_command", TURN_ON[1]),
            react("finish", "The light is on."),
        ],
        mode="text",
    )
    assert run.outcome.final_answer == "The light is on." and light_is_on(run.fabric)
    correction = run.request(1)["messages"][-1]["content"]
    assert correction.startswith("Observation: your reply could not be used: no JSON object")

    aborted = run_agent([text("hmm")] * 3, mode="text", max_consecutive_failures=3)
    assert aborted.outcome.end_reason == "aborted" and not light_is_on(aborted.fabric)


def test_text_mode_unknown_action_is_passed_to_the_toolbox_and_counts_as_a_failure() -> None:
    run = run_agent(
        [react("dance", {})] * 2 + [react("finish", {"answer": "ok"})], mode="text", max_consecutive_failures=2
    )
    assert run.outcome.end_reason == "aborted"
    assert "dance" in json.dumps(run.outcome.steps[0].observation)


# --- parsing ---------------------------------------------------------------------------------------


def test_parse_react_reply_is_tolerant_of_the_usual_variations() -> None:
    reply = parse_react_reply(
        'Plan {not json}. ```json\n{"Thought": "x {y}", "Action": "get_room_states", '
        '"Action Input": "{\\"room_id\\": \\"office\\"}"}\n```'
    )
    assert (reply.thought, reply.action, reply.action_input) == ("x {y}", "get_room_states", {"room_id": "office"})
    assert parse_react_reply('{"action": "get_rooms"}').action_input == {}
    assert parse_react_reply('{"action": "Finish", "action_input": "It is 23 °C."}').action_input == {
        "answer": "It is 23 °C."
    }
    assert parse_react_reply('{"final_answer": "done"}').action == "finish"
    for bad, why in [
        ("", "empty"),
        ("no braces", "no JSON object"),
        ('{"thought": "t"}', "action"),
        ('{"action": "get_attribute", "action_input": "{broken"}', "not valid JSON"),
        ('{"action": "x", "action_input": [1]}', "must be a JSON object"),
    ]:
        with pytest.raises(ReplyFormatError, match=why):
            parse_react_reply(bad)
    assert first_json_object('a "}" {"k": "}{"} {"other": 1}') == {"k": "}{"}


def test_the_agent_refuses_an_unknown_mode() -> None:
    with pytest.raises(ValueError, match="'native', 'text' or 'auto'"):
        ReactAgent(LLMClient("http://127.0.0.1:9/v1"), mode="xml")  # type: ignore[arg-type]
