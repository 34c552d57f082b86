"""Settings judged by what they do: an episode's ``homefabric.world_checks`` (a switch made to drive a light, a
hood put on Auto).

A setting leaves no state a final-state assert could tell from a shortcut (turning the light on now is not binding
the switch to it), so each check does the world's acts (emulator.scenarios: flip the switch, switch a cook surface
on at the hob) on a copy of the home where the agent left it, runs it ``after_s`` seconds and checks its goals there.
The live home is not changed; its own final-state goals (the light still off) are checked as usual.
"""

from __future__ import annotations

from typing import Any

from benchmark.scoring.evaluators.checks import final_state_checks
from benchmark.suites.simuhome.episode import Episode, ReplayAct, WorldCheck
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError


def perform_act(home: EmulatedHome, act: ReplayAct) -> None:
    """Do one act of the world on ``home``."""
    # The world's acts load with the first episode that has them (a run of other episodes never needs them).
    from emulator.scenarios import flip_switch, press_button, sense_water, turn_on_cook_surface

    if act.act == "press_button":
        press_button(home, act.device_id)
    elif act.act == "sense_water":
        sense_water(home, act.device_id, True)
    elif act.act == "flip_switch":
        flip_switch(home, act.device_id, act.on)
    else:
        if act.surface is None:
            raise HomeError("INVALID_ARGUMENT", f"turn_on_cook_surface {act.device_id!r}: the act names no surface")
        turn_on_cook_surface(home, act.device_id, act.surface, act.level)


def episode_world_checks(episode: Episode) -> list[WorldCheck]:
    block = episode.homefabric
    return list(block.world_checks) if block is not None else []


def world_check_results(episode: Episode, live: EmulatedHome) -> tuple[bool, list[dict[str, Any]]] | None:
    """(all passed, one check per goal, each naming the acts) — None when the episode has no world checks."""
    world_checks = episode_world_checks(episode)
    if not world_checks:
        return None
    from emulator.automations.equivalence import home_copy  # with the first episode that has world checks

    results: list[dict[str, Any]] = []
    for check in world_checks:
        copy = home_copy(live)
        acts = [act.model_dump(mode="json", exclude_none=True) for act in check.acts]
        for act in check.acts:
            perform_act(copy, act)
        copy.advance(check.after_s)
        _ok, checks = final_state_checks(copy, check.goals)
        results += [{**c, "check": "after_world_acts", "acts": acts, "after_s": check.after_s} for c in checks]
    return bool(results) and all(r["ok"] for r in results), results
