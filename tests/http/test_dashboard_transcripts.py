"""Issue #14: the episode viewer shows a run's transcript — the system prompt and every user / assistant / tool turn
the model saw (records of LLM agents keep them in outcome.transcript) — in a real headless Chromium. The run is a
real react run against the local OpenAI-compatible stand-in, stored under the API's runs directory; an oracle
record (no model, no transcript) says so instead."""

from __future__ import annotations

import asyncio
from pathlib import Path

from benchmark.runs.runner import read_records
from tests.benchmark.test_react_runs import bench_run, react_run
from tests.browser import Chromium
from tests.http.live_api import home, running_api
from tests.support.openai_standin import OpenAIStandin, finish, preflight_turns, tool_call


def test_the_viewer_shows_every_turn_of_a_records_transcript(chromium: Chromium, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    script = [*preflight_turns(), tool_call("get_rooms", {}), finish("There are two rooms.")]
    with OpenAIStandin(script).in_thread() as server:
        result = react_run(server, runs / "react-run", "--mode", "native")
        assert result.exit_code == 0, result.output
    assert bench_run(runs / "oracle-run", "--agent", "oracle").exit_code == 0
    [record] = read_records(runs / "react-run" / "records.jsonl")[0]
    transcript = record["outcome"]["transcript"]
    roles = ["system"] + [m["role"] for m in transcript["messages"]]

    async def scenario() -> None:
        errors: list[str] = []
        async with (
            running_api(home(), runs_dir=runs) as api,
            chromium.page(viewport={"width": 1400, "height": 1200}, timeout_ms=15_000, errors=errors) as page,
        ):
            await page.goto(api.url + "/#episodes")
            await page.wait_for_selector("body[data-loaded=true]")
            await page.wait_for_selector("#run-select option[value='react-run']", state="attached")
            await page.select_option("#run-select", "react-run")
            await page.locator("#record-list button.record").first.click()
            await page.wait_for_selector("#transcript .turn")
            shown = await page.eval_on_selector_all("#transcript .turn", "ts => ts.map(t => t.dataset.role)")
            assert shown == roles
            text = await page.inner_text("#transcript")
            assert transcript["system_prompt"][:60] in text  # the system prompt, as sent
            assert record["query"] in text  # the user's request
            assert "get_rooms" in text and "There are two rooms." in text  # the tool call and the answer
            assert transcript["tool_schema_sha256"][:12] in text
            await page.select_option("#run-select", "oracle-run")
            await page.locator("#record-list button.record").first.click()
            await page.wait_for_selector("p#transcript")
            assert "No transcript" in await page.inner_text("#transcript")
            shot = tmp_path / "transcript.png"
            await page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 10_000
        assert errors == []

    asyncio.run(scenario())
