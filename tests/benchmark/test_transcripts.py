"""Issue 14: full transcripts in run records — the react agent's system prompt, every message and the hash of
the tool schema it offered, checked against what the model server actually received; `bench report` counts
them and still reads records written before transcripts existed."""

from __future__ import annotations

import json
from pathlib import Path

from benchmark.agents.base import tool_schema_sha256
from benchmark.reports.report import build_report, render_tables
from benchmark.runs.runner import read_records, record_line
from tests.benchmark.test_react_runs import bench_run, react_run
from tests.support.openai_standin import OpenAIStandin, finish, preflight_turns, tool_call


def test_a_react_record_holds_the_conversation_the_model_saw(tmp_path: Path) -> None:
    out = tmp_path / "run"
    script = [*preflight_turns(), tool_call("get_rooms", {}), finish("There are two rooms.")]
    with OpenAIStandin(script).in_thread() as server:
        result = react_run(server, out, "--mode", "native")
        assert result.exit_code == 0, result.output
        last = server.chat_requests[-1].body
    [record] = read_records(out / "records.jsonl")[0]
    transcript = record["outcome"]["transcript"]
    sent = last["messages"]
    assert sent[0]["role"] == "system" and transcript["system_prompt"] == sent[0]["content"]
    # every message the model was sent, in order, then its final reply (the finish call)
    assert transcript["messages"][: len(sent) - 1] == sent[1:]
    assert [m["role"] for m in transcript["messages"]] == ["user", "assistant", "tool", "assistant"]
    assert transcript["messages"][-1]["tool_calls"][0]["function"]["name"] == "finish"
    assert transcript["tool_schema_sha256"] == tool_schema_sha256(last["tools"])
    assert transcript["tool_names"] == [t["function"]["name"] for t in last["tools"]]
    report = json.loads((out / "report.json").read_text())
    assert report["transcripts"] == {"records": 1, "of": 1, "tool_schema_sha256": [transcript["tool_schema_sha256"]]}
    assert "full transcripts: 1 of 1 records" in (out / "report.txt").read_text()


def test_the_schema_hash_ignores_key_order_but_not_content() -> None:
    tools = [{"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}}]
    reordered = [{"function": {"parameters": {"type": "object"}, "name": "a"}, "type": "function"}]
    assert tool_schema_sha256(tools) == tool_schema_sha256(reordered)
    assert tool_schema_sha256(tools) != tool_schema_sha256([{**tools[0], "function": {"name": "b"}}])


def test_agents_without_a_model_add_no_transcript_field(tmp_path: Path) -> None:
    result = bench_run(tmp_path / "run", "--agent", "oracle")
    assert result.exit_code == 0, result.output
    [record] = read_records(tmp_path / "run" / "records.jsonl")[0]
    assert "transcript" not in record["outcome"]


def test_report_reads_records_from_before_transcripts(tmp_path: Path) -> None:
    out = tmp_path / "run"
    script = [*preflight_turns(), finish("There are two rooms.")]
    with OpenAIStandin(script).in_thread() as server:
        assert react_run(server, out, "--mode", "native").exit_code == 0
    records = out / "records.jsonl"
    [record] = read_records(records)[0]
    del record["outcome"]["transcript"]  # as an older version wrote it
    records.write_text(record_line(record))
    report = build_report(out)
    assert report["transcripts"] == {"records": 0, "of": 1, "tool_schema_sha256": []}
    assert report["overall"]["evaluated"] == 1
    assert "full transcripts" not in render_tables(report)
