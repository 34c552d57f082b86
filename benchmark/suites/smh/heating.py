"""The water heater's target quantity in the final-state check.

``start_heating``'s ``target_water_quantity`` becomes a Boost whose targetPercentage Matter keeps in no
attribute: the tank only reaches it as virtual time passes (``agent_tools.smh.products.BOOST_DURATION_S``). So
once an episode is over (never during it), a home whose heaters are heating is run on to the end of the heating
run, and each such heater's tank level then is recorded as ``target_water_quantity`` beside its final state.
The generator does the same on the reference, so the critic compares the quantity asked for with the quantity
set. It is exact when the target lies above the tank's level at the start (the generator only asks for such
targets): a run to a lower target leaves the tank as it was.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agent_tools.smh.home_env import HomeEnv
from agent_tools.smh.products import BOOST_DURATION_S

TARGET_PATH = "target_water_quantity"


def heating(state: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The devices whose heating run (boost) is on."""
    return [did for did, attributes in state.items() if attributes.get("heating_state") == "heating"]


def run_heating_to_the_end(env: HomeEnv, dids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Advance ``env``'s virtual time to the end of the heating runs; {did: {TARGET_PATH: tank level}}.
    Only for a home whose episode is over: everything in it moves on by the run's length."""
    dids = list(dids)
    if not dids:
        return {}
    env.fabric.advance(BOOST_DURATION_S)
    return {did: {TARGET_PATH: env.read(did, "water_quantity")} for did in dids}


def with_heating_results(
    env: HomeEnv, h0_state: Mapping[str, Mapping[str, Any]], final: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """The final state plus each heating heater's ``target_water_quantity`` (nothing is advanced when the agent
    changed nothing: the home then still serves as H0 for the automation comparison)."""
    out = {did: dict(attributes) for did, attributes in final.items()}
    if final == h0_state:
        return out
    for did, extra in run_heating_to_the_end(env, heating(final)).items():
        out[did].update(extra)
    return out
