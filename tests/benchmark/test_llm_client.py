"""LLMClient against the scripted stand-in server over real HTTP (no network, no model)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from benchmark.llm.client import (
    LLMClient,
    LLMInfraError,
    LLMRequestError,
    LLMRunawayError,
    parse_completion,
)
from benchmark.llm.endpoint import LLMEndpointSpec
from tests.support.openai_standin import OpenAIStandin, delay, hang, http_error, text, tool_calls

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "lights?"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_rooms",
            "description": "List rooms.",
            "parameters": {"type": "object", "properties": {}},
        },
    }
]


class FakeSleep:
    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def client_for(server: OpenAIStandin, sleep: FakeSleep, **kwargs: Any) -> LLMClient:
    return LLMClient(server.base_url, kwargs.pop("api_key", "sk-test"), "test-model", sleep=sleep, **kwargs)


def test_success_returns_tool_calls_usage_and_forwards_sampling_settings() -> None:
    async def scenario() -> None:
        async with OpenAIStandin(
            [
                tool_calls(
                    [("get_rooms", {}), ("get_room_states", '{"room_id": "kitchen"}')],
                    content="checking",
                    usage=(120, 7),
                )
            ]
        ) as server:
            sleep = FakeSleep()
            async with client_for(server, sleep, temperature=0.3, seed=42) as client:
                response = await client.complete(MESSAGES, tools=TOOLS, tool_choice="auto")
            assert response.content == "checking"
            assert [(c.name, c.arguments_json) for c in response.tool_calls] == [
                ("get_rooms", "{}"),
                ("get_room_states", '{"room_id": "kitchen"}'),
            ]
            assert response.tool_calls[0].id != response.tool_calls[1].id
            assert response.usage == {"prompt_tokens": 120, "completion_tokens": 7}
            assert response.finish_reason == "tool_calls"
            assert response.attempts == 1 and sleep.calls == []
            [request] = server.requests
            assert request.path == "/v1/chat/completions"
            assert request.headers["authorization"] == "Bearer sk-test"
            assert request.body["model"] == "test-model"
            assert request.body["temperature"] == 0.3
            assert request.body["seed"] == 42
            assert request.body["tools"] == TOOLS
            assert request.body["tool_choice"] == "auto"
            assert request.body["messages"] == MESSAGES

    asyncio.run(scenario())


def test_optional_fields_are_left_out_and_no_key_means_no_auth_header() -> None:
    async def scenario() -> None:
        async with OpenAIStandin([text("hello"), text("{}")]) as server:
            async with LLMClient(server.base_url, None, "m", sleep=FakeSleep()) as client:
                assert (await client.complete(MESSAGES, tool_choice="auto")).content == "hello"
                await client.complete(MESSAGES, response_format={"type": "json_object"}, temperature=0.9)
            first, second = (r.body for r in server.requests)
            assert "authorization" not in server.requests[0].headers
            assert "seed" not in first and "tools" not in first and "tool_choice" not in first
            assert "response_format" not in first and first["temperature"] == 0.0
            assert second["response_format"] == {"type": "json_object"} and second["temperature"] == 0.9

    asyncio.run(scenario())


def test_429_is_retried_after_the_servers_retry_after() -> None:
    async def scenario() -> None:
        async with OpenAIStandin([http_error(429, retry_after=7), text("ok")]) as server:
            sleep = FakeSleep()
            async with client_for(server, sleep) as client:
                response = await client.complete(MESSAGES)
            assert response.content == "ok" and response.attempts == 2
            assert sleep.calls == [7.0]
            assert [r.status for r in server.requests] == [429, 200]

    asyncio.run(scenario())


def test_5xx_exhausting_retries_raises_infra_error_with_seeded_exponential_backoff() -> None:
    async def scenario(retry_seed: int) -> list[float]:
        async with OpenAIStandin([http_error(500)] * 3 + [http_error(503)] * 2) as server:
            sleep = FakeSleep()
            async with client_for(
                server, sleep, max_retries=4, backoff_base_s=1.0, backoff_max_s=5.0, retry_seed=retry_seed
            ) as client:
                with pytest.raises(LLMInfraError) as caught:
                    await client.complete(MESSAGES)
            assert caught.value.attempts == 5 and caught.value.status == 503
            assert "503" in str(caught.value)
            assert len(server.requests) == 5
            return sleep.calls

    delays = asyncio.run(scenario(retry_seed=1))
    ceilings = [1.0, 2.0, 4.0, 5.0]  # base × 2**n, capped at backoff_max_s
    assert len(delays) == 4
    assert all(ceiling / 2 <= d <= ceiling for d, ceiling in zip(delays, ceilings, strict=True))
    assert asyncio.run(scenario(retry_seed=1)) == delays  # jitter is reproducible
    assert asyncio.run(scenario(retry_seed=2)) != delays


def test_other_4xx_is_a_request_error_and_is_not_retried() -> None:
    async def scenario() -> None:
        async with OpenAIStandin(
            [http_error(400, message="maximum context length is 8192 tokens"), text("never")]
        ) as server:
            sleep = FakeSleep()
            async with client_for(server, sleep) as client:
                with pytest.raises(LLMRequestError) as caught:
                    await client.complete(MESSAGES)
            assert caught.value.status == 400 and caught.value.context_overflow
            assert len(server.requests) == 1 and sleep.calls == [] and server.remaining == 1

    asyncio.run(scenario())


def test_401_is_a_request_error_without_context_overflow() -> None:
    async def scenario() -> None:
        async with OpenAIStandin([http_error(401, message="bad key")]) as server:
            async with client_for(server, FakeSleep()) as client:
                with pytest.raises(LLMRequestError) as caught:
                    await client.complete(MESSAGES)
            assert caught.value.status == 401 and not caught.value.context_overflow

    asyncio.run(scenario())


def test_a_hung_server_is_retried_then_becomes_an_infra_error() -> None:
    async def scenario() -> None:
        async with OpenAIStandin([hang(5.0)]) as server:
            sleep = FakeSleep()
            async with client_for(server, sleep, timeout_s=0.5, max_retries=1) as client:
                with pytest.raises(LLMInfraError, match="timeout") as caught:
                    await client.complete(MESSAGES)
            assert caught.value.attempts == 2 and len(sleep.calls) == 1

    asyncio.run(scenario())


def test_a_model_generating_past_the_timeout_on_a_live_server_is_runaway_and_not_retried() -> None:
    # issue 16.1: the same greedy request sent again would run away again (it was retried 6 x 60 s)
    async def scenario() -> None:
        async with OpenAIStandin([delay(6.0), text("never asked")]) as server:
            sleep = FakeSleep()
            async with client_for(server, sleep, timeout_s=1.0, max_retries=5) as client:
                with pytest.raises(LLMRunawayError, match="kept generating") as caught:
                    await client.complete(MESSAGES)
            assert caught.value.attempts == 1 and sleep.calls == []
            assert len(server.chat_requests) == 1 and server.remaining == 1
            assert [r.path for r in server.requests] == ["/v1/chat/completions", "/v1/models"]

    asyncio.run(scenario())


@pytest.mark.parametrize(
    "url", ["notaurl", "127.0.0.1:8000/v1", "ftp://host/v1", "http://", "http://127.0.0.1:8000/v1/chat/completions"]
)
def test_a_base_url_that_is_not_an_http_url_is_refused_at_once(url: str) -> None:
    with pytest.raises(ValueError, match="base URL"):
        LLMClient(url, None, "m")
    with pytest.raises(ValidationError, match="base URL"):
        LLMEndpointSpec(base_url=url, model="m")


def test_connection_refused_is_an_infra_error() -> None:
    async def scenario() -> None:
        server = await OpenAIStandin().start()
        url = server.base_url
        await server.stop()
        sleep = FakeSleep()
        async with LLMClient(url, None, "m", max_retries=2, sleep=sleep) as client:
            with pytest.raises(LLMInfraError, match="connection error") as caught:
                await client.complete(MESSAGES)
        assert caught.value.attempts == 3 and len(sleep.calls) == 2

    asyncio.run(scenario())


def test_unreadable_200_bodies_are_retried_and_object_arguments_are_serialised() -> None:
    bodies = [
        b"<html>proxy starting</html>",
        json.dumps(
            {
                "choices": [
                    {
                        "message": {
                            "content": None,
                            "tool_calls": [
                                {"function": {"name": "get_room_states", "arguments": {"room_id": "kitchen"}}}
                            ],
                        }
                    }
                ]
            }
        ).encode(),
    ]
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=bodies[len(seen) - 1])

    async def scenario() -> None:
        sleep = FakeSleep()
        async with LLMClient(
            "http://llm.invalid/v1/", None, "m", sleep=sleep, transport=httpx.MockTransport(handler)
        ) as client:
            response = await client.complete(MESSAGES)
        assert response.attempts == 2 and len(sleep.calls) == 1
        [call] = response.tool_calls
        assert call.id == "call_0" and json.loads(call.arguments_json) == {"room_id": "kitchen"}
        assert response.usage == {"prompt_tokens": 0, "completion_tokens": 0}  # server sent none
        assert str(seen[0].url) == "http://llm.invalid/v1/chat/completions"

    asyncio.run(scenario())


def test_parse_completion_accepts_content_parts_and_legacy_function_call() -> None:
    response = parse_completion(
        {
            "choices": [
                {
                    "message": {
                        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                        "function_call": {"name": "finish", "arguments": '{"answer": "x"}'},
                    }
                }
            ]
        }
    )
    assert response.content == "ab"
    assert [(c.name, c.arguments_json) for c in response.tool_calls] == [("finish", '{"answer": "x"}')]
    with pytest.raises(KeyError):
        parse_completion({"object": "error"})


def test_from_spec_reads_the_key_from_the_named_environment_variable() -> None:
    spec = LLMEndpointSpec(
        base_url="http://127.0.0.1:9/v1",
        model="qwen",
        api_key_env="MY_KEY",
        seed=3,
        temperature=0.2,
        max_retries=1,
        headers={"X-Title": "homefabric"},
    )
    client = LLMClient.from_spec(spec, environ={"MY_KEY": "secret"})
    assert (client.api_key, client.model, client.seed, client.temperature, client.max_retries) == (
        "secret",
        "qwen",
        3,
        0.2,
        1,
    )
    assert client.request_body(MESSAGES)["seed"] == 3
    with pytest.raises(ValueError, match="MY_KEY"):
        LLMClient.from_spec(spec, environ={})
    assert LLMClient.from_spec(spec.model_copy(update={"api_key_env": None}), environ={}).api_key is None


def test_one_client_survives_several_event_loops() -> None:
    async def ask(client: LLMClient) -> str | None:
        return (await client.complete(MESSAGES)).content

    server = OpenAIStandin([text("one"), text("two")])
    with server.in_thread():
        client = LLMClient(server.base_url, None, "m", sleep=FakeSleep())
        assert asyncio.run(ask(client)) == "one"
        assert asyncio.run(ask(client)) == "two"  # outside `async with`, no pool outlives its loop
