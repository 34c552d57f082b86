"""Issue #21 items A, B, C and newcomer item 4: `homefabric mcp HOME` over stdio, fed what a broken or hostile
client may send. Every line gets a JSON-RPC 2.0 answer (an error object where it is not a message the server can
take), the server goes on serving, and a missing home fails the command."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.test_cli_exit_codes import HOMEFABRIC

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mcp") / "home.json"
    subprocess.run([HOMEFABRIC, "home", "generate", "--out", str(path)], capture_output=True, check=True, timeout=120)
    return path


def _serve(home: Path, lines: list[str]) -> tuple[subprocess.CompletedProcess, list[dict]]:
    result = subprocess.run(
        [HOMEFABRIC, "mcp", str(home)],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=90,
    )
    return result, [json.loads(line) for line in result.stdout.splitlines()]


def test_bad_lines_get_json_rpc_error_objects_and_the_server_goes_on(home: Path) -> None:
    deep_arguments = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "tools/call",
            "params": {"name": "get_rooms", "arguments": {"x": json.loads(_nested(250))}},
        }
    )
    lines = [
        json.dumps(INITIALIZE),
        "garbage",
        '[{"jsonrpc":"2.0","id":5,"method":"ping"}]',  # a batch
        '{"jsonrpc":"2.0","id":7}',  # no method, no result
        '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}',  # item A: an object id
        _nested(100_000),  # item B: deeper than the recursion limit
        deep_arguments,  # item C: tool arguments nested 250 deep
        '{"jsonrpc":"2.0","id":true,"method":"ping"}',
        '{"jsonrpc":"2.0","id":10,"method":"ping"}',
    ]
    result, replies = _serve(home, lines)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    errors = [(reply["id"], reply["error"]["code"]) for reply in replies if "error" in reply]
    assert errors == [
        (None, -32700),
        (None, -32600),
        (7, -32600),
        (None, -32600),
        (None, -32700),
        (9, -32602),
        (None, -32600),
    ]
    deep = next(reply for reply in replies if reply["id"] == 9)
    assert "nested more than" in deep["error"]["message"]
    answered = {reply["id"]: reply for reply in replies if "result" in reply}
    assert answered[1]["result"]["serverInfo"]["name"] == "homefabric" and answered[10]["result"] == {}


def test_tool_arguments_over_the_tool_limit_get_the_tool_refusal(home: Path) -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "get_rooms", "arguments": {"x": json.loads(_nested(40))}},
    }
    _, replies = _serve(home, [json.dumps(INITIALIZE), json.dumps(call)])
    reply = next(reply for reply in replies if reply["id"] == 2)
    assert reply["result"]["isError"] is True
    assert "nested more than 32 levels" in reply["result"]["structuredContent"]["error"]["detail"]


def test_a_missing_home_fails_even_after_the_handshake(tmp_path: Path) -> None:
    result, _ = _serve(tmp_path / "nosuch.json", [json.dumps(INITIALIZE)])
    assert result.returncode == 2 and result.stderr.startswith("error:") and "nosuch.json" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bad_home_fails_when_input_ends_before_it_is_loaded(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"rooms": 3}')
    result, _ = _serve(bad, [])
    assert result.returncode == 2 and result.stderr.startswith(f"error: {bad}: invalid home config")
