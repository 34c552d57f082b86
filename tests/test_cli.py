"""The `homefabric` command line, run as a user would (typer's runner, real files)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from homefabric_cli.durations import parse_duration
from homefabric_cli.main import app

runner = CliRunner()


def test_devices_types_json_lists_the_catalogue_with_official_ids() -> None:
    result = runner.invoke(app, ["devices", "types", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert len(rows) >= 30
    by_name = {r["name"]: r for r in rows}
    assert by_name["air_conditioner"]["device_type_id"] == 114
    assert by_name["heat_pump"]["device_type_id"] == 777
    assert by_name["water_heater"]["device_type_id"] == 1295
    assert by_name["on_off_light"]["device_type_id"] == 256
    assert [e["endpoint"] for e in by_name["heat_pump"]["endpoints"]] == [1, 2, 3, 4]
    assert "Thermostat" in by_name["heat_pump"]["endpoints"][3]["clusters"]


def test_home_generate_is_deterministic_and_show_reads_it(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for out in (first, second):
        result = runner.invoke(app, ["home", "generate", "--tier", "complex", "--seed", "7", "--out", str(out)])
        assert result.exit_code == 0, result.output
    assert first.read_bytes() == second.read_bytes()
    home = json.loads(first.read_text())
    systems = home["extensions"]["generator"]["home_systems"]  # solar, battery, charger, valve, … on top
    assert len(home["rooms"]) == 31 and len(home["devices"]) == 135 + len(systems) == 149
    shown = runner.invoke(app, ["home", "show", str(first), "--json"])
    assert shown.exit_code == 0
    assert len(json.loads(shown.stdout)["devices"]) == 149


def test_sim_run_advances_virtual_time_and_reports_figures(tmp_path: Path) -> None:
    home = tmp_path / "home.json"
    runner.invoke(app, ["home", "generate", "--tier", "simple", "--seed", "2", "--out", str(home)])
    result = runner.invoke(app, ["sim", "run", str(home), "--for", "24h", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["simulated_s"] == 86400 and report["wall_s"] >= 0
    start = json.loads(home.read_text())["base_time"]
    assert report["time"][:10] == "2025-08-24" and report["time"][11:] == start[11:]
    assert set(next(iter(report["rooms"].values()))) == {"temperature", "humidity", "illuminance", "pm10"}


def test_corrupt_home_file_is_reported_with_its_json_path(tmp_path: Path) -> None:
    home = tmp_path / "home.json"
    runner.invoke(app, ["home", "generate", "--tier", "simple", "--seed", "2", "--out", str(home)])
    data = json.loads(home.read_text())
    data["rooms"][1]["environment"]["humidity"] = 20000
    home.write_text(json.dumps(data))
    result = runner.invoke(app, ["sim", "run", str(home), "--for", "1h"])
    assert result.exit_code == 2
    assert "rooms[1].environment.humidity" in result.output and "0..10000" in result.output
    assert "Traceback" not in result.output
    data["rooms"][1]["environment"]["humidity"] = 5000
    data["devices"][3]["room"] = "atlantis"
    home.write_text(json.dumps(data))
    result = runner.invoke(app, ["sim", "run", str(home), "--for", "1h"])
    assert result.exit_code == 2 and "devices[3].room" in result.output and "atlantis" in result.output
    home.write_text("{ not json")
    result = runner.invoke(app, ["home", "show", str(home)])
    assert result.exit_code == 2 and "line 1" in result.output


def test_unknown_device_type_and_bad_duration_are_clear_errors(tmp_path: Path) -> None:
    home = tmp_path / "home.json"
    runner.invoke(app, ["home", "generate", "--tier", "simple", "--seed", "2", "--out", str(home)])
    data = json.loads(home.read_text())
    data["devices"][0]["type"] = "teleporter"
    home.write_text(json.dumps(data))
    result = runner.invoke(app, ["home", "show", str(home)])
    assert result.exit_code == 2 and "teleporter" in result.output and "on_off_light" in result.output
    result = runner.invoke(app, ["sim", "run", str(home), "--for", "soon"])
    assert result.exit_code == 2 and "24h" in result.output


def test_parse_duration() -> None:
    assert parse_duration("24h") == 86400
    assert parse_duration("1h30m") == 5400
    assert parse_duration("90") == 90
    assert parse_duration("2d") == 172800


def test_sim_run_reports_progress_on_stderr_as_plain_lines_in_a_log(tmp_path: Path) -> None:
    home = tmp_path / "home.json"
    runner.invoke(app, ["home", "generate", "--tier", "simple", "--seed", "2", "--out", str(home)])
    result = runner.invoke(app, ["sim", "run", str(home), "--for", "2h30m"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("simulating")]
    assert lines[0].startswith("simulating (virtual hours) 0/3 ")
    assert lines[-1].startswith("simulating (virtual hours) 3/3 9000/9000 s ")
    assert "simulating" not in result.stdout  # the result stays clean for a pipe
    quiet = runner.invoke(app, ["sim", "run", str(home), "--for", "1h", "--json"])
    assert quiet.exit_code == 0 and "simulating" not in quiet.stderr
