"""Home-systems episodes that ask for a setting (a wall switch bound to a light, the hood on Auto, the car's charge
shifted to a later start): each is scored on state — the live home's goals, and for a setting that only shows when
the world acts (benchmark.scoring.world_checks) the goals on a copy after the act — so doing it the right way
passes and each shortcut (the light on now, the hood on High, charging now) fails."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmark.generation.generate import generate_episodes, write_episodes
from benchmark.scoring.evaluators.checks import final_state_checks
from benchmark.scoring.evaluators.state_comparison import fresh_fabric
from benchmark.scoring.world_checks import world_check_results
from benchmark.suites.simuhome.episode import Episode, load_episode
from emulator.emulated_home import EmulatedHome

PER_TEMPLATE = 4


@pytest.fixture(scope="module")
def episode_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hs_settings")
    for template in ("switch_light", "hood_auto", "ev_delay_start"):
        write_episodes(generate_episodes(f"hs_{template}", PER_TEMPLATE, seed=5), out)
    return out


def _outcome(episode: Episode, act: Callable[[EmulatedHome], Any]) -> tuple[bool, bool | None]:
    """(the live goals hold, the world checks pass — None without any) after ``act`` on the episode's home."""
    home = fresh_fabric(episode.initial_home_config)
    act(home)
    home.advance(2)
    live, _ = final_state_checks(home, episode.goals)
    replayed = world_check_results(episode, home)
    return live, None if replayed is None else replayed[0]


def _episodes(episode_dir: Path, template: str) -> list[Episode]:
    episodes = [load_episode(p) for p in sorted(episode_dir.glob(f"hs_{template}_*"))]
    assert len(episodes) == PER_TEMPLATE
    return episodes


def test_a_switch_bound_to_the_light_turns_it_on_and_turning_it_on_now_is_not_binding(episode_dir: Path) -> None:
    for episode in _episodes(episode_dir, "switch_light"):
        _check_switch_light(episode)


def _check_switch_light(episode: Episode) -> None:
    assert episode.homefabric is not None
    check = episode.homefabric.world_checks[0]
    switch, light = check.acts[0].device_id, check.goals[0].device_id
    also = (episode.meta.model_extra or {})["binding"] == "also"

    def bind(home: EmulatedHome, to: str) -> None:
        kept = home.read_path(switch, "1.Binding.Binding") if also else []
        home.write(switch, 1, "Binding", "Binding", [*kept, {"node": home.node_id(to), "endpoint": 1}])

    assert _outcome(episode, lambda home: None) == (True, False)
    assert _outcome(episode, lambda home: home.invoke(light, 1, "OnOff", "On", {})) == (False, True)
    assert _outcome(episode, lambda home: bind(home, light)) == (True, True)  # any cluster: OnOff too
    other = next(d.device_id for d in fresh_fabric(episode.initial_home_config).devices() if d.device_id != light)
    assert _outcome(episode, lambda home: bind(home, other))[1] is False


def test_the_light_s_node_id_is_in_the_extended_profile_only() -> None:
    from agent_tools import ToolBox
    from benchmark.generation.homes import home_config

    home = EmulatedHome(home_config(5, "medium"))
    light = next(d.device_id for d in home.devices() if d.device_type == "on_off_light")
    extended = ToolBox(home, profile="simuhome_ext").call("get_device_structure", {"device_id": light})["data"]
    assert extended["node_id"] == home.node_id(light)
    assert "node_id" not in ToolBox(home).call("get_device_structure", {"device_id": light})["data"]


def test_the_hood_on_auto_follows_the_hob_and_high_now_is_not_auto(episode_dir: Path) -> None:
    for episode in _episodes(episode_dir, "hood_auto"):
        _check_hood_auto(episode)


def _check_hood_auto(episode: Episode) -> None:
    hood = episode.goals[0].device_id
    assert _outcome(episode, lambda home: None) == (False, False)
    assert _outcome(episode, lambda home: home.write(hood, 1, "FanControl", "FanMode", 3))[0] is False
    assert _outcome(episode, lambda home: home.write(hood, 1, "FanControl", "FanMode", 5)) == (True, True)


def test_the_charge_starts_at_the_asked_hour_only_when_the_charger_is_asked_to_shift_it(episode_dir: Path) -> None:
    for episode in _episodes(episode_dir, "ev_delay_start"):
        _check_delay_start(episode)


def _check_delay_start(episode: Episode) -> None:
    from emulator.errors import HomeError

    goal = episode.goals[0]
    wanted = goal.asserts[0].value
    evse = goal.device_id

    def shift(to: int) -> Callable[[EmulatedHome], Any]:
        args = {"RequestedStartTime": to, "Cause": 0}
        return lambda home: home.invoke(evse, 1, "DeviceEnergyManagement", "StartTimeAdjustRequest", args)

    enable = {"chargingEnabledUntil": None, "minimumChargeCurrent": 6000, "maximumChargeCurrent": 16000}
    assert _outcome(episode, lambda home: None) == (False, None)
    assert _outcome(episode, lambda home: home.invoke(evse, 1, "EnergyEvse", "EnableCharging", enable))[0] is False
    assert _outcome(episode, shift(wanted - 3600))[0] is False
    assert _outcome(episode, shift(wanted))[0] is True
    with pytest.raises(HomeError, match="outside the window"):  # two days on: past the forecast's LatestEndTime
        _outcome(episode, shift(wanted + 2 * 86400))
