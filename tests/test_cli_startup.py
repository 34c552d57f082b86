"""Issue #14, item 3: `homefabric --help`, `--version` and `devices types` start without loading the Matter model
(clusters.chip_model, with every cluster server behind it). Timings live in perf/cli_startup.py; here we check the
cause. Issue #24, item 1: `bench run` of the oracle loads none of the Matter wire, MQTT, HTTP, speech or LLM stack,
and its report's stack only after the episodes, and OpenSSL's TLS layer not at all (memory in perf/memory.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import emulator.catalogue_index as index
from tests.test_cli_exit_codes import EPISODES, HOMEFABRIC

HEAVY = "clusters.chip_model"


def imported_modules(*args: str, cache: Path) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run the console script under -X importtime; the modules it imported."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", HOMEFABRIC, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOMEFABRIC_CACHE_DIR": str(cache), "COLUMNS": "120"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    modules = {
        line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if line.startswith("import time:")
    }
    return result, modules


def test_help_and_version_do_not_load_the_matter_model(tmp_path: Path) -> None:
    _, modules = imported_modules("--help", cache=tmp_path)
    assert HEAVY not in modules and "clusters" not in modules
    result, modules = imported_modules("--version", cache=tmp_path)
    assert result.stdout.strip() == "homefabric 0.1.0" and HEAVY not in modules


def test_devices_types_loads_the_model_once_then_reads_its_index(tmp_path: Path) -> None:
    first, modules = imported_modules("devices", "types", "--json", cache=tmp_path)
    assert HEAVY in modules  # nothing cached yet: built from the catalogue
    second, modules = imported_modules("devices", "types", "--json", cache=tmp_path)
    assert HEAVY not in modules
    assert json.loads(second.stdout) == json.loads(first.stdout) == index.build_rows()


def test_the_index_key_follows_every_source_it_depends_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "src"
    (source / "catalogue").mkdir(parents=True)
    module = source / "catalogue" / "lights.py"
    module.write_text("A = 1\n")
    monkeypatch.setattr(index, "_ROOT", tmp_path)
    monkeypatch.setattr(index, "_SOURCES", (source,))
    before = index.source_key()
    assert index.source_key() == before  # stable
    module.write_text("A = 2\n")
    assert index.source_key() != before  # an edit to a catalogue module: a new index
    module.write_text("A = 1\n")
    (source / "catalogue" / "new.py").write_text("")
    assert index.source_key() != before  # a new module too


def test_a_stale_or_corrupt_index_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOMEFABRIC_CACHE_DIR", str(tmp_path))
    (tmp_path / f"catalogue-{index.source_key()}.json").write_text("{not json")
    assert index.catalogue_rows() == index.build_rows()
    assert json.loads((tmp_path / f"catalogue-{index.source_key()}.json").read_text()) == index.build_rows()


def _mcp(home: Path) -> subprocess.CompletedProcess:
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-03-26",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    return subprocess.run(
        [HOMEFABRIC, "mcp", str(home)],
        input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_mcp_loads_the_home_behind_initialize_and_a_bad_home_is_a_one_line_error(tmp_path: Path) -> None:
    home = tmp_path / "home.json"
    subprocess.run([HOMEFABRIC, "home", "generate", "--out", str(home)], capture_output=True, check=True, timeout=120)
    served = _mcp(home)
    replies = {reply["id"]: reply for reply in map(json.loads, served.stdout.splitlines())}
    assert served.returncode == 0, served.stderr[-2000:]
    assert replies[1]["result"]["serverInfo"]["name"] == "homefabric"
    assert "get_rooms" in [tool["name"] for tool in replies[2]["result"]["tools"]]
    bad = tmp_path / "bad.json"
    bad.write_text('{"rooms": 3}')
    refused = _mcp(bad)
    assert refused.returncode == 2
    assert refused.stderr.startswith(f"error: {bad}: invalid home config") and "Traceback" not in refused.stderr
    missing = _mcp(tmp_path / "nowhere.json")
    assert missing.returncode == 2 and missing.stderr.startswith("error:") and "Traceback" not in missing.stderr


# `bench run`, through the console script's entry, noting the modules loaded when the runner starts its episodes
# and when the process ends.
BENCH_RUN_PROBE = r"""
import json, sys
from homefabric_cli.main import main  # first, as the console script: homefabric_cli starts by deferring TLS
from homefabric_cli.tls_on_demand import has_run
import benchmark.runs.runner as runner
seen = {}
real_run = runner.Runner.run

async def noted_run(self, *args, **kwargs):
    seen["at_run"] = sorted(sys.modules)
    seen["tls_ran_at_run"] = [name for name in ("ssl", "asyncio.sslproto") if has_run(name)]
    return await real_run(self, *args, **kwargs)

runner.Runner.run = noted_run
sys.argv = ["homefabric", *sys.argv[1:]]
try:
    main()
finally:
    seen["at_end"] = sorted(sys.modules)
    print(json.dumps(seen), file=sys.stderr)
"""
# What an oracle run on the in-process fabric never uses: the Matter wire and a live home's Matter-server client,
# MQTT, HTTP (client, servers, the stdlib's reason phrases), the speech stack, an LLM (client checks, ReAct agent,
# judge), YAML (no spec file), the SMH tools, Ray.
NEVER_IN_AN_ORACLE_RUN = (
    "bridge",
    "agent_tools.matter_backend",
    "benchmark.runs.live_home",
    "aiomqtt",
    "http",
    "httpx",
    "uvicorn",
    "fastapi",
    "benchmark.http",
    "benchmark.suites.voice.voice_runner",
    "benchmark.suites.voice.episode_input",
    "benchmark.suites.voice.tts",
    "scipy",
    "benchmark.llm.preflight",
    "benchmark.agents.react",
    "benchmark.scoring.judges.llm",
    "yaml",
    "agent_tools.smh.tools",
    "ray",
)
# What only the report after the episodes uses: its plots, and rich (a --quiet run prints nothing before it).
NOT_BEFORE_THE_EPISODES = ("benchmark.reports", "matplotlib", "numpy", "rich")
# What loads on first use, not when the runner starts (issue #24: RSS after imports): other commands' modules
# (homefabric_cli.main mounts only the group that runs), the LLM client, agents other than the oracle, the
# world's acts and the automation equivalence check (with the first episode that has them), the cluster docs
# (with the first search), SimuHome's eval-spec migration (with a spec file).
NOT_AT_RUN = (
    "homefabric_cli.mcp_cmd",
    "homefabric_cli.mqtt_cmd",
    "homefabric_cli.commission",
    "homefabric_cli.matter_cmd",
    "benchmark.suites.voice.cli",
    "benchmark.training",
    "benchmark.llm.client",
    "benchmark.agents.null",
    "benchmark.agents.replay",
    "emulator.scenarios",
    "emulator.automations.equivalence",
    "agent_tools.cluster_docs",
    "benchmark.runs.simuhome_spec",
)


def _loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == name or m.startswith(name + ".") for name in names)]


def test_an_oracle_bench_run_loads_no_wire_http_speech_or_llm_stack(tmp_path: Path) -> None:
    episodes = tmp_path / "episodes"
    episodes.mkdir()
    for name in ("qt1_feasible_seed_1.json", "qt2_feasible_seed_3.json"):
        shutil.copy(EPISODES / name, episodes / name)
    command = ["bench", "run", "--agent", "oracle", "--episodes", str(episodes), "--out", str(tmp_path / "run")]
    run = subprocess.run(
        [sys.executable, "-c", BENCH_RUN_PROBE, *command, "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "120"},
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "overall" in run.stdout  # the report: the run really happened
    seen = json.loads(run.stderr.strip().splitlines()[-1])
    assert "emulator.emulated_home" in seen["at_run"] and "benchmark.agents.oracle" in seen["at_run"]
    assert _loaded(seen["at_end"], NEVER_IN_AN_ORACLE_RUN) == []
    assert _loaded(seen["at_run"], NOT_BEFORE_THE_EPISODES) == []
    assert _loaded(seen["at_run"], NOT_AT_RUN) == []
    assert seen["tls_ran_at_run"] == []  # asyncio imported ssl and sslproto, whose code waits for a TLS connection
    assert "benchmark.reports.report" in seen["at_end"]  # the pin above is of a real import, made after the run


@pytest.mark.parametrize(
    "args",
    [
        ["bench"],
        ["bench", "run", "--help"],
        ["bench", "run", "--bogus"],
        ["bench", "nope"],
        ["bench", "run", "--agent", "nobody", "--episodes", "x"],
        ["episodes", "import", "/nowhere"],
    ],
)
def test_a_group_run_alone_answers_as_the_whole_app(args: list[str]) -> None:
    """The console script builds only the chosen group's commands (main.app_for): same output and exit code."""
    from typer.main import get_command
    from typer.testing import CliRunner

    from homefabric_cli.main import app, app_for

    alone = app_for(["homefabric", *args])
    assert alone is not app and [group.name for group in alone.registered_groups] == [args[0]]
    answers = [CliRunner().invoke(whole, args, prog_name="homefabric") for whole in (app, alone)]
    assert answers[0].exit_code == answers[1].exit_code == (0 if args[-1] == "--help" else 2)
    assert answers[0].output == answers[1].output
    assert len(get_command(alone).commands) == 1  # type: ignore[attr-defined]  # a click Group: one sub-group
    assert app_for(["homefabric", "serve"]) is app and app_for(["homefabric", "--help"]) is app
