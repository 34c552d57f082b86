"""``homefabric episodes import`` builds each home exactly as the runner does: loaded means runnable.

The homes are built from SimuHome's published-shape inventory (scripts/simuhome_inventory_homes.py), so the
import summary shows the normalisations SimuHome's real shapes need.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner

from benchmark.cli import episodes_app
from benchmark.scoring.evaluators.state_comparison import fresh_fabric
from benchmark.suites.simuhome.episode import load_episodes
from emulator.simuhome.values import NORMALISATIONS
from scripts.simuhome_inventory_homes import inventory_episodes


def _cli() -> typer.Typer:
    app = typer.Typer()
    app.add_typer(episodes_app, name="episodes")
    return app


def _write(directory: Path, episodes: list[dict]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for episode in episodes:
        (directory / f"qt1_feasible_seed_{episode['meta']['seed']}.json").write_text(
            json.dumps(episode), encoding="utf-8"
        )


def _import(directory: Path) -> tuple[int, dict]:
    result = CliRunner().invoke(_cli(), ["episodes", "import", str(directory), "--json"])
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip().startswith("{") else {}


def test_inventory_homes_import_as_runnable_with_their_normalisations_counted(tmp_path: Path):
    episodes = inventory_episodes()
    _write(tmp_path, episodes)
    code, summary = _import(tmp_path)
    assert code == 0
    assert (summary["files"], summary["runnable"], summary["not_runnable"], summary["problems"]) == (
        len(episodes),
        len(episodes),
        0,
        [],
    )
    counts = summary["normalisations"]
    assert set(counts) <= set(NORMALISATIONS)
    # Each inventory home holds one heat pump (4 tag lists, two Accuracy structs with null Fixed* fields, a null
    # Tolerance on each humidity device), one washer (spin speeds and current speed), 7 devices with Descriptors.
    homes = len(episodes)
    assert counts["tag-names"] == 6 * homes and counts["null-optional-field"] == 2 * homes
    assert counts["spin-speed-ids"] == 2 * homes and counts["null-optional-attribute"] == 2 * homes
    assert counts["descriptor-structure-kept"] == 28 * homes and counts["mode-tag-ints"] == 6 * homes


def test_a_home_the_fabric_refuses_is_not_runnable_and_named_by_json_path(tmp_path: Path):
    episodes = inventory_episodes()[:2]
    air_conditioner = episodes[1]["initial_home_config"]["rooms"]["living_room"]["devices"][5]
    assert air_conditioner["device_type"] == "air_conditioner"
    air_conditioner["attributes"]["1.Thermostat.SystemMode"] = 2  # not a Matter SystemModeEnum value
    air_conditioner["attributes"]["1.FanControl.PercentSetting"] = "high"
    _write(tmp_path, episodes)
    code, summary = _import(tmp_path)
    assert code == 1
    assert (summary["files"], summary["runnable"], summary["not_runnable"]) == (2, 1, 1)
    where = {(Path(p["file"]).name, p["json_path"]) for p in summary["problems"]}
    base = "initial_home_config.rooms.living_room.devices[5].attributes"
    assert where == {
        ("qt1_feasible_seed_2.json", f'{base}["1.Thermostat.SystemMode"]'),
        ("qt1_feasible_seed_2.json", f'{base}["1.FanControl.PercentSetting"]'),
    }


def test_a_value_without_matter_meaning_is_a_problem_not_a_silent_drop(tmp_path: Path):
    episode = inventory_episodes()[0]
    washer = episode["initial_home_config"]["rooms"]["bathroom"]["devices"][3]
    washer["attributes"]["1.LaundryWasherControls.SpinSpeeds"] = [0, 12]
    _write(tmp_path, [episode])
    code, summary = _import(tmp_path)
    assert code == 1 and summary["runnable"] == 0
    assert [p["json_path"] for p in summary["problems"]] == [
        'initial_home_config.rooms.bathroom.devices[3].attributes["1.LaundryWasherControls.SpinSpeeds"][1]'
    ]


def test_an_empty_directory_is_an_error(tmp_path: Path):
    result = CliRunner().invoke(_cli(), ["episodes", "import", str(tmp_path)])
    assert result.exit_code == 1 and "no episode files" in result.output


def test_what_the_importer_loads_the_runner_builds(tmp_path: Path):
    _write(tmp_path, inventory_episodes())
    episodes, problems = load_episodes(tmp_path)
    assert problems == [] and episodes
    for episode in episodes:
        fabric = fresh_fabric(episode.initial_home_config)
        assert len(fabric.devices()) == episode.meta.num_devices
        assert episode.normalisations["tag-names"] == 6
