"""Home-systems episodes (a button that turns on a light or closes the main valve, a leak that closes the main
valve, the solar panels' output now and their energy since noon or today, charging the car to 80 % by 7 am using
solar first): generated from the medium tier, the oracle passes every instance, the null agent none, an agent that
acts now instead of creating the rule fails, the rules judge takes the panels' power in mW, W or kW and their energy
in mWh, Wh or kWh, and ``--qt all`` stays the 12 SimuHome kinds."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from benchmark.generation.generate import GeneratorInputError, generate_episodes, parse_kinds, write_episodes
from benchmark.runs.runner import Runner, read_records
from benchmark.runs.spec import parse_spec
from benchmark.suites.simuhome.episode import load_episode

PER_TEMPLATE = 3


@pytest.fixture(scope="module")
def episode_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hs_episodes")
    write_episodes(generate_episodes("home-systems", PER_TEMPLATE, seed=4), out)
    return out


def run(agent: str, episodes: Path, out: Path) -> list[dict]:
    spec = parse_spec(
        {
            "episodes": {"path": str(episodes)},
            "agent": {"name": agent},
            "tools": {"profile": "simuhome_ext"},
            "concurrency": 2,
        }
    )
    asyncio.run(Runner(spec, out, resume=False, progress=False).run())
    return read_records(out / "records.jsonl")[0]


def test_files_templates_and_gold_rules(episode_dir: Path) -> None:
    names = sorted(p.name for p in episode_dir.iterdir())
    templates = (
        "button_light",
        "button_valve",
        "ev_delay_start",
        "ev_solar_charge",
        "hood_auto",
        "leak_valve",
        "solar_energy",
        "solar_power",
        "switch_light",
    )
    assert names == [f"hs_{t}_seed_{4000 + n}.json" for t in templates for n in (1, 2, 3)]
    for path in [*episode_dir.glob("hs_button_*"), *episode_dir.glob("hs_leak_*")]:
        episode = load_episode(path)
        assert episode.kind == "qt3_feasible" and episode.homefabric is not None
        assert len(episode.homefabric.automations) == 1 and len(episode.homefabric.replay) == 1
        act = episode.homefabric.replay[0]
        trigger = episode.homefabric.automations[0].trigger
        assert trigger.kind == "state" and trigger.condition.device_id == act.device_id


def test_oracle_solves_every_instance_and_null_none(episode_dir: Path, tmp_path: Path) -> None:
    oracle = run("oracle", episode_dir, tmp_path / "oracle")
    null = run("null", episode_dir, tmp_path / "null")
    assert len(oracle) == len(null) == 9 * PER_TEMPLATE
    assert [r["status"] for r in oracle] == ["passed"] * len(oracle), [r["verdict"] for r in oracle]
    assert {r["status"] for r in null} == {"failed"}
    assert {r["verdict"]["error_type"] for r in null} == {"Required Actions Failure"}
    automated = [r for r in oracle if "automations" in r["verdict"]]
    assert len(automated) == 3 * PER_TEMPLATE and all(
        r["verdict"]["automations"]["rules"][0]["passed"] for r in automated
    )
    charged = [r for r in oracle if r["verdict"]["method"] == "charging"]
    assert len(charged) == PER_TEMPLATE and all(c["ok"] for r in charged for c in r["verdict"]["checks"])
    answered = [r for r in oracle if r["query_type"] == "qt1"]
    assert len(answered) == 2 * PER_TEMPLATE and all(r["verdict"]["method"] == "judge" for r in answered)


def test_acting_now_instead_of_automating_fails(episode_dir: Path) -> None:
    """The replay finds no rule (or a wrong one) when an agent does the action now: the final-state goal fails."""
    from benchmark.scoring.automation_scoring import score_automations
    from benchmark.scoring.evaluators.checks import final_state_checks
    from benchmark.scoring.evaluators.state_comparison import fresh_fabric
    from emulator.workflows import WorkflowStep

    for path in sorted([*episode_dir.glob("hs_button_*"), *episode_dir.glob("hs_leak_*")]):
        episode = load_episode(path)
        home = fresh_fabric(episode.initial_home_config)
        assert episode.homefabric is not None
        step = episode.homefabric.automations[0].actions[0]
        home.apply(WorkflowStep.invoke(step.device_id, step.endpoint, step.cluster, step.command or "", {}))
        home.advance(10)
        ok, _checks = final_state_checks(home, episode.goals)
        assert not ok
        scored = score_automations(episode, home)
        assert scored is not None and not scored["passed"]


def test_rules_judge_reads_the_panels_power_in_any_unit(episode_dir: Path) -> None:
    from benchmark.scoring.evaluators.judging import JudgeRequest
    from benchmark.scoring.evaluators.state_comparison import fresh_fabric
    from benchmark.scoring.judges.rules import RulesJudge

    episode = load_episode(sorted(episode_dir.glob("hs_solar_power_*"))[0])
    home = fresh_fabric(episode.initial_home_config)
    goal = episode.goals[0]
    produced_mW = home.snapshot()["devices"][goal.device_id]["attributes"][goal.attribute]
    assert produced_mW < -50_000  # negative: fed into the home; asked only in daylight

    def passed(answer: str) -> bool:
        after = home.snapshot()
        request = JudgeRequest(episode, answer, [], [], after, home, [], [])
        return bool(RulesJudge().judge_now(request).passed)

    watts = -produced_mW / 1000
    assert passed(f"The panels are producing {watts:.1f} W.")
    assert passed(f"About {watts / 1000:.3f} kW right now.")
    assert passed(f"ActivePower = {produced_mW}")
    assert not passed(f"The panels are producing {watts * 1.5:.0f} W.")
    assert not passed("I could not tell.")


def test_energy_since_noon_is_the_played_history_and_the_judge_takes_it_in_any_unit(episode_dir: Path) -> None:
    """The home starts at noon (or midnight) and runs to the episode's moment: the meter's exported total is the
    integral of the panels' 15-minute staircase over that span, to within the augmentation's settle."""
    from datetime import datetime, timedelta

    from benchmark.scoring.evaluators.judging import JudgeRequest
    from benchmark.scoring.evaluators.state_comparison import fresh_fabric, read_assert_path
    from benchmark.scoring.judges.rules import RulesJudge
    from emulator.daylight import DEFAULT_LATITUDE_DEG, KNOT_S, sun_sine
    from emulator.home_power import home_power
    from emulator.role_behaviour import SOLAR_PEAK_MW, SOLAR_PERFORMANCE_RATIO

    episodes = [load_episode(p) for p in sorted(episode_dir.glob("hs_solar_energy_*"))]
    assert {e.meta.model_extra["energy_since"] for e in episodes} <= {"noon", "midnight"}
    for episode in episodes:
        home = fresh_fabric(episode.initial_home_config)
        goal = episode.goals[0]
        produced_mWh = read_assert_path(home, goal.device_id, goal.attribute)
        now = datetime.fromisoformat(episode.initial_home_config["base_time"])
        start = now.replace(hour=12 if episode.meta.model_extra["energy_since"] == "noon" else 0, minute=0, second=0)
        knots = [start + timedelta(seconds=KNOT_S * k) for k in range(int((now - start).total_seconds() // KNOT_S))]
        staircase_mWh = sum(
            SOLAR_PEAK_MW
            * SOLAR_PERFORMANCE_RATIO
            * sun_sine(k + timedelta(seconds=KNOT_S / 2), DEFAULT_LATITUDE_DEG)
            * KNOT_S
            / 3600
            for k in knots
        )
        assert produced_mWh == pytest.approx(staircase_mWh, rel=0.001)  # whole knots up to the last change
        meter = next(m for m in home_power(home).meters if m.device_id == goal.device_id)
        assert meter.exported_mWh == produced_mWh

        def passed(answer: str, episode=episode, home=home) -> bool:
            request = JudgeRequest(episode, answer, [], [], home.snapshot(), home, [], [])
            return bool(RulesJudge().judge_now(request).passed)

        kwh = produced_mWh / 1e6
        assert passed(f"The panels have produced {kwh:.2f} kWh.")
        assert passed(f"{produced_mWh / 1000:.0f} Wh so far.")
        assert not passed(f"About {kwh * 1.05:.2f} kWh.")
        assert not passed("I could not tell.")


def _charging_outcome(path: Path, *steps: tuple[str, dict]) -> dict[str, bool]:
    """The charging checks after ``steps`` on the charger, done now or at a time ("HH:MM" in the key)."""
    from benchmark.scoring.charging_scoring import charging_checks
    from benchmark.scoring.evaluators.state_comparison import fresh_fabric
    from emulator.automations.model import AutomationSpec

    episode = load_episode(path)
    assert episode.homefabric is not None and episode.homefabric.charging is not None
    charger = episode.homefabric.charging.evse_device_id
    home = fresh_fabric(episode.initial_home_config)
    for at, args in steps:
        command = "EnableCharging" if args else "Disable"
        action = {"kind": "invoke", "device_id": charger, "endpoint": 1, "cluster": "EnergyEvse", "command": command}
        hour, minute = (int(x) for x in at.split(":"))
        when = home.now().replace(hour=hour, minute=minute, second=0)
        cron = f"0 {when.minute} {when.hour} {when.day} {when.month} ? {when.year}"
        home.add_automation(
            AutomationSpec.model_validate(
                {
                    "name": f"{command} {at}",
                    "trigger": {"kind": "time", "cron": cron},
                    "actions": [{**action, "args": args}],
                }
            )
        )
    _ok, checks = charging_checks(episode, home)
    return {c["check"]: c["ok"] for c in checks}


def test_charging_is_scored_at_the_deadline_on_solar_first(episode_dir: Path) -> None:
    """Full power at once draws from the grid while the sun shines; waiting for the night never uses the sun; a
    small solar-sized current all afternoon leaves the car short unless the night tops it up."""
    full = {"chargingEnabledUntil": None, "minimumChargeCurrent": 6000, "maximumChargeCurrent": 32000}
    six = {**full, "maximumChargeCurrent": 6000}
    for path in sorted(episode_dir.glob("hs_ev_solar_charge_*")):
        assert _charging_outcome(path) == {
            "enough_by_deadline": False,
            "no_grid_while_sunny": True,
            "solar_first": False,
        }
        at_once = _charging_outcome(path, ("15:30", full))
        assert at_once["enough_by_deadline"] and not at_once["no_grid_while_sunny"]
        at_night = _charging_outcome(path, ("21:00", full))
        assert at_night["enough_by_deadline"] and at_night["no_grid_while_sunny"] and not at_night["solar_first"]
        assert _charging_outcome(path, ("15:30", six), ("16:15", {}))["no_grid_while_sunny"]


def test_kinds_of_the_family_and_all_unchanged() -> None:
    assert parse_kinds("home-systems") == [
        ("hs", "button_light"),
        ("hs", "leak_valve"),
        ("hs", "solar_power"),
        ("hs", "solar_energy"),
        ("hs", "ev_solar_charge"),
        ("hs", "button_valve"),
        ("hs", "switch_light"),
        ("hs", "hood_auto"),
        ("hs", "ev_delay_start"),
    ]
    assert parse_kinds("hs_leak_valve") == [("hs", "leak_valve")]
    assert ("hs", "button_light") not in parse_kinds("all") and len(parse_kinds("all")) == 12
    with pytest.raises(GeneratorInputError, match="home-systems"):
        parse_kinds("hs_nothing")


def test_cli_generates_and_runs_the_family(tmp_path: Path) -> None:
    """``episodes generate --qt hs_leak_valve`` then ``bench run``: refused (one line, nothing written) without a
    tool profile that has create_automation, 100 % for the oracle with ``--tools simuhome_ext``."""
    from typer.testing import CliRunner

    from homefabric_cli.main import app

    cli, episodes = CliRunner(), tmp_path / "episodes"
    made = cli.invoke(app, ["episodes", "generate", "--qt", "hs_leak_valve", "--per-type", "1", "--out", str(episodes)])
    assert made.exit_code == 0, made.output
    assert [p.name for p in episodes.iterdir()] == ["hs_leak_valve_seed_1001.json"]
    run = ["bench", "run", "--agent", "oracle", "--episodes", str(episodes), "--quiet"]
    refused = cli.invoke(app, [*run, "--out", str(tmp_path / "refused")])
    assert refused.exit_code != 0 and "--tools simuhome_ext" in refused.output
    assert "Traceback" not in refused.output and not (tmp_path / "refused").exists()
    ran = cli.invoke(app, [*run, "--out", str(tmp_path / "ran"), "--tools", "simuhome_ext"])
    assert ran.exit_code == 0, ran.output
    assert [r["status"] for r in read_records(tmp_path / "ran" / "records.jsonl")[0]] == ["passed"]


def test_a_pinned_home_is_used_and_one_without_the_devices_is_refused() -> None:
    from benchmark.generation.generate import GenerationExhausted
    from benchmark.generation.homes import pinned_home
    from emulator.home_generation.generator import generate_home

    medium = generate_home("medium", 3)
    with pinned_home(medium):
        episode = generate_episodes("hs_leak_valve", 1, seed=1)[0]
    homes_devices = {d["device_id"] for r in episode["initial_home_config"]["rooms"].values() for d in r["devices"]}
    assert homes_devices == {device.id for device in medium.devices}
    with pinned_home(generate_home("simuhome", 1)), pytest.raises(GenerationExhausted, match="a button and a light"):
        generate_episodes("hs_button_light", 1, seed=1)
