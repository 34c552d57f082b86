"""Report plots (issue 16.6): "no data" is not 0 %, an all-zero run is not an empty frame, titles name the
run/agent/model, the tokens plot has integer ticks and episode names."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from benchmark.agents.react import ReactAgent
from benchmark.llm.client import LLMClient
from benchmark.reports.plots import success_figure, tokens_figure
from benchmark.reports.report import build_report, write_report
from benchmark.runs.runner import Runner, read_records, record_line
from benchmark.runs.store import RECORDS
from tests.benchmark.test_runner import spec_for
from tests.support.openai_standin import OpenAIStandin, tool_call

KINDS = ["qt1_feasible", "qt3_feasible"]


def texts(figure) -> list[str]:
    return [t.get_text() for t in figure.axes[0].texts]


def null_run(tmp_path: Path) -> Path:
    out = tmp_path / "null"
    asyncio.run(Runner(spec_for("null", episodes={"kinds": KINDS}, run_id="null-run"), out, progress=False).run())
    return out


def test_an_all_zero_run_labels_every_bar_and_names_the_run(tmp_path: Path) -> None:
    report = build_report(null_run(tmp_path))
    figure = success_figure(report)
    assert report["by_kind"]["qt3_feasible"]["success_rate"] == 0.0
    labels = texts(figure)
    assert len(labels) == len(report["by_kind"]) and all(label.startswith("0 %\nn=") for label in labels)
    title = figure.axes[0].get_title()
    assert "run null-run" in title and "agent null" in title


def test_a_kind_with_only_infrastructure_errors_is_no_data_not_zero(tmp_path: Path) -> None:
    out = null_run(tmp_path)
    records, _ = read_records(out / RECORDS)
    for record in records:  # the endpoint was down for every qt1 episode
        if record["kind"] == "qt1_feasible":
            record.update(status="infra_error", error="llm_infra_error: connection refused", verdict=None)
    (out / RECORDS).write_text("".join(record_line(r) for r in records), encoding="utf-8")
    report = build_report(out)
    assert report["by_kind"]["qt1_feasible"]["success_rate"] is None
    labels = texts(success_figure(report))
    assert labels[0].startswith("no data") and labels[1].startswith("0 %")
    bars = [patch for patch in success_figure(report).axes[0].patches]
    assert bars[0].get_hatch() == "//" and bars[0].get_height() == 100


def test_the_tokens_plot_names_episodes_and_has_integer_ticks(tmp_path: Path) -> None:
    out = tmp_path / "react"

    async def scenario() -> None:
        script = [tool_call("finish", {"answer": "Done."}, usage=(1, 1 + n)) for n in range(3)]
        async with OpenAIStandin(script) as server:
            agent = ReactAgent(LLMClient(server.base_url, None, "tiny-model"), preflight=False)
            spec = spec_for(
                "react",
                episodes={"kinds": ["qt1_feasible", "qt1_infeasible"]},
                run_id="react-run",
                concurrency=1,
                agent={"model": {"base_url": server.base_url, "model": "tiny-model"}},
            )
            await Runner(spec, out, progress=False, agent=agent).run()

    asyncio.run(scenario())
    report, _ = write_report(out)
    records, _ = read_records(out / RECORDS)
    figure = tokens_figure(report, records)
    axis = figure.axes[0]
    names = [label.get_text() for label in axis.get_xticklabels()]
    assert names == sorted(r["episode_id"] for r in records)
    assert all(float(tick).is_integer() for tick in axis.get_yticks())
    assert "model tiny-model" in axis.get_title() and "run react-run" in axis.get_title()
    assert report["plots"] == ["success_by_kind.png", "tokens_per_episode.png"]
    assert json.loads((out / "report.json").read_text())["model"] == "tiny-model"
