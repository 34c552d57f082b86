"""The scripted OpenAI-compatible stand-in: what it answers, what it records, what it refuses."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from tests.support.openai_standin import (
    OpenAIStandin,
    Turn,
    conversation_problem,
    delay,
    dynamic,
    finish,
    http_error,
    oracle_script,
    react,
    text,
    tool_call,
)

USER = [{"role": "user", "content": "hi"}]


def chat(messages: list[dict[str, Any]] | None = None, /, **extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": messages or USER, **extra}


def test_plays_the_script_in_order_and_records_each_request() -> None:
    async def scenario() -> None:
        script = [
            tool_call("get_attribute", '{"device_id": "lamp", ', call_id="c1"),  # malformed JSON, verbatim
            tool_call("teleport", {"where": "mars"}),
            http_error(429, retry_after=2),
            text("plain words"),
        ]
        async with OpenAIStandin(script) as server, httpx.AsyncClient(base_url=server.base_url) as http:
            first = (await http.post("/chat/completions", json=chat(temperature=0.1, seed=5))).json()
            second = (await http.post("/chat/completions", json=chat())).json()
            limited = await http.post("/chat/completions", json=chat())
            last = (await http.post("/chat/completions", json=chat())).json()
            exhausted = await http.post("/chat/completions", json=chat())
        call = first["choices"][0]["message"]["tool_calls"][0]
        assert call == {
            "id": "c1",
            "type": "function",
            "function": {"name": "get_attribute", "arguments": '{"device_id": "lamp", '},
        }
        assert first["choices"][0]["finish_reason"] == "tool_calls"
        assert first["usage"]["prompt_tokens"] > 0 and first["usage"]["completion_tokens"] > 0
        assert second["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "teleport"
        assert limited.status_code == 429 and limited.headers["retry-after"] == "2"
        assert last["choices"][0]["message"] == {"role": "assistant", "content": "plain words"}
        assert last["choices"][0]["finish_reason"] == "stop"
        assert exhausted.status_code == 400 and "exhausted" in exhausted.json()["error"]["message"]
        assert [r.turn_index for r in server.requests] == [0, 1, 2, 3, None]
        assert server.requests[0].body["temperature"] == 0.1 and server.requests[0].body["seed"] == 5
        assert server.remaining == 0

    asyncio.run(scenario())


def test_both_routes_and_models_listing_unknown_routes_are_404() -> None:
    async def scenario() -> None:
        async with OpenAIStandin([text("a"), text("b")], model="tiny") as server:
            root = server.base_url.removesuffix("/v1")
            async with httpx.AsyncClient() as http:
                assert (await http.post(f"{root}/v1/chat/completions", json=chat())).status_code == 200
                assert (await http.post(f"{root}/chat/completions", json=chat())).status_code == 200
                models = (await http.get(f"{root}/v1/models")).json()
                missing = await http.post(f"{root}/v1/completions", json=chat())
        assert models["data"][0]["id"] == "tiny"
        assert missing.status_code == 404

    asyncio.run(scenario())


def test_strict_mode_refuses_what_a_real_server_refuses_without_consuming_a_turn() -> None:
    unanswered: list[dict[str, Any]] = [
        *USER,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "x", "type": "function", "function": {"name": "get_rooms", "arguments": "{}"}}],
        },
        {"role": "user", "content": "and?"},
    ]

    async def scenario() -> None:
        async with OpenAIStandin([text("fine")]) as server, httpx.AsyncClient(base_url=server.base_url) as http:
            bad = await http.post("/chat/completions", json=chat(unanswered))
            no_model = await http.post("/chat/completions", json={"messages": USER})
            streamed = await http.post("/chat/completions", json=chat(stream=True))
            good = await http.post("/chat/completions", json=chat())
        assert bad.status_code == 400 and "not answered" in bad.json()["error"]["message"]
        assert no_model.status_code == 400 and streamed.status_code == 400
        assert good.json()["choices"][0]["message"]["content"] == "fine"

    asyncio.run(scenario())
    answered = [*unanswered[:2], {"role": "tool", "tool_call_id": "x", "content": "{}"}, unanswered[2]]
    assert conversation_problem(answered) is None
    problem = conversation_problem([*USER, {"role": "tool", "tool_call_id": "y", "content": "{}"}])
    assert problem is not None and "answers no pending" in problem


def test_delay_turns_outlast_a_client_timeout_and_stop_does_not_hang() -> None:
    async def scenario() -> str:
        server = OpenAIStandin([delay(30.0), text("next")])
        async with server, httpx.AsyncClient(base_url=server.base_url, timeout=0.1) as http:
            with pytest.raises(httpx.ReadTimeout):
                await http.post("/chat/completions", json=chat())
            reply = (await http.post("/chat/completions", json=chat())).json()
        # leaving the block stopped the server although the first answer was still 30 s away
        return reply["choices"][0]["message"]["content"]

    assert asyncio.run(asyncio.wait_for(scenario(), timeout=5)) == "next"


def test_dynamic_turns_see_the_request() -> None:
    def echo_last_tool_result(body: dict[str, Any]) -> Turn:
        return finish(f"saw {body['messages'][-1]['content']}")

    async def scenario() -> None:
        server = OpenAIStandin([dynamic(echo_last_tool_result)])
        async with server, httpx.AsyncClient(base_url=server.base_url) as http:
            reply = (await http.post("/chat/completions", json=chat())).json()
        arguments = reply["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
        assert json.loads(arguments) == {"answer": "saw hi"}

    asyncio.run(scenario())


def test_oracle_script_and_react_builders() -> None:
    native = oracle_script(
        [{"tool": "get_room_devices", "params": {"room_id": "kitchen"}}, ("execute_command", {"device_id": "lamp"})],
        answer="All set.",
    )
    assert [t.calls[0].name for t in native] == ["get_room_devices", "execute_command", "finish"]
    assert json.loads(native[-1].calls[0].arguments) == {"answer": "All set."}
    textual = oracle_script([("get_rooms", {})], mode="text")
    assert [json.loads(t.content or "")["action"] for t in textual] == ["get_rooms", "finish"]
    fenced = react("get_room_states", {"room_id": "office"}, thought="look", fenced=True, prose="Sure.")
    assert fenced.content is not None and fenced.content.startswith("Sure.\n```json\n")
    body = json.loads(fenced.content.split("```json\n", 1)[1].rsplit("```", 1)[0])
    assert body["action_input"] == '{"room_id": "office"}'  # a JSON string by default


def test_in_thread_serves_synchronous_callers() -> None:
    server = OpenAIStandin([text("from a thread")])
    with server.in_thread():
        reply = httpx.post(server.base_url + "/chat/completions", json=chat(), timeout=5).json()
    assert reply["choices"][0]["message"]["content"] == "from a thread"
    assert len(server.requests) == 1


def test_max_tokens_cuts_a_reply_off_and_a_runaway_fills_the_cap() -> None:
    from tests.support.openai_standin import cut_off, runaway

    async def scenario() -> list[dict[str, Any]]:
        script = [text("x" * 100), runaway("la "), runaway(), cut_off('{"action": ')]
        async with OpenAIStandin(script, token_cap=64) as server, httpx.AsyncClient(base_url=server.base_url) as http:
            return [
                (await http.post("/chat/completions", json=chat(**extra))).json()
                for extra in ({"max_tokens": 10}, {"max_tokens": 5}, {}, {})
            ]

    capped, runaway_5, runaway_cap, cut = asyncio.run(scenario())
    assert capped["choices"][0]["message"]["content"] == "x" * 40
    assert capped["choices"][0]["finish_reason"] == "length" and capped["usage"]["completion_tokens"] == 10
    assert runaway_5["choices"][0]["message"]["content"] == "la la la la la la la"  # 5 tokens = 20 chars
    assert len(runaway_cap["choices"][0]["message"]["content"]) == 64 * 4
    assert runaway_cap["choices"][0]["finish_reason"] == "length"
    assert cut["choices"][0]["finish_reason"] == "length"


def test_tools_count_in_prompt_tokens_unless_the_template_drops_them() -> None:
    tools = [{"type": "function", "function": {"name": "get_rooms", "parameters": {"type": "object"}}}]

    async def prompt_tokens(drop: bool) -> tuple[int, int]:
        async with (
            OpenAIStandin([text("a"), text("b")], drop_tools=drop) as server,
            httpx.AsyncClient(base_url=server.base_url) as http,
        ):
            without = (await http.post("/chat/completions", json=chat())).json()["usage"]["prompt_tokens"]
            with_tools = (await http.post("/chat/completions", json=chat(tools=tools))).json()["usage"]["prompt_tokens"]
            return without, with_tools

    without, with_tools = asyncio.run(prompt_tokens(False))
    assert with_tools > without
    assert asyncio.run(prompt_tokens(True))[0] == asyncio.run(prompt_tokens(True))[1]


def test_a_hang_stalls_every_route_while_a_delay_leaves_the_server_answering() -> None:
    from tests.support.openai_standin import hang

    async def models_answer_during(turn: Turn) -> bool:
        async with OpenAIStandin([turn]) as server, httpx.AsyncClient(base_url=server.base_url, timeout=0.3) as http:
            slow = asyncio.create_task(http.post("/chat/completions", json=chat(), timeout=5))
            await asyncio.sleep(0.1)
            try:
                await http.get("/models")
            except httpx.ReadTimeout:
                return False
            finally:
                slow.cancel()
            return True

    assert asyncio.run(models_answer_during(delay(2.0))) is True
    assert asyncio.run(models_answer_during(hang(2.0))) is False


def test_echo_placeholder_copies_the_answer_slot_of_the_system_prompt() -> None:
    from tests.support.openai_standin import echo_placeholder

    system = {
        "role": "system",
        "content": 'Reply format: {"thought": "<why>", "action_input": {"answer": "<the reply>"}}',
    }

    async def scenario() -> dict[str, Any]:
        async with OpenAIStandin([echo_placeholder()]) as server, httpx.AsyncClient(base_url=server.base_url) as http:
            return (await http.post("/chat/completions", json=chat([system, *USER]))).json()

    content = json.loads(asyncio.run(scenario())["choices"][0]["message"]["content"])
    assert content["action"] == "finish" and content["action_input"] == {"answer": "<the reply>"}
