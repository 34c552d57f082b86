"""An episode's home, built exactly as the runner builds it: SimuHome's ``initial_home_config`` → our home
config (normalising SimuHome's value shapes) → a EmulatedHome at tick 0.

``homefabric episodes import``, the runner and the evaluators' no-agent replay all call :func:`build_home`, so
an episode the importer accepts is an episode the runner can run. When the fabric refuses the home,
:func:`home_build_problems` names every failing attribute by its JSON path in the episode file.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emulator.device_readings import BuiltReadings
from emulator.emulated_home import EmulatedHome, prepared_home
from emulator.errors import HomeError
from emulator.home_check import attribute_problems
from emulator.home_config import HomeConfig, HomeConfigError
from emulator.simuhome.import_home import from_simuhome
from emulator.simuhome.origin import SimuHomeOrigin
from emulator.simuhome.paths import simuhome_path

EPISODE_SOURCE = "<episode>"  # what refusals of an episode's home name as its source


def build_home(
    initial_home_config: Mapping[str, Any], source: str = EPISODE_SOURCE
) -> tuple[EmulatedHome, SimuHomeOrigin]:
    """The episode's fabric and the origin record of the import; HomeConfigError (with JSON paths relative
    to ``initial_home_config``) when the home cannot be built."""
    config, origin = from_simuhome(initial_home_config, source=source)
    return home_from_config(config, initial_home_config, source), origin


def home_from_config(
    config: HomeConfig, initial_home_config: Mapping[str, Any], source: str, built_readings: BuiltReadings | None = None
) -> EmulatedHome:
    """The fabric of an imported ``config`` (``from_simuhome`` of ``initial_home_config``), refusals named as
    :func:`build_home` names them (``built_readings``: as ``emulated_home.prepared_home`` takes them)."""
    try:
        return EmulatedHome(config) if built_readings is None else prepared_home(config, built_readings)
    except HomeError as error:
        raise HomeConfigError(
            source, home_build_problems(config, initial_home_config) or [("", error.message)]
        ) from None


def home_build_problems(config: HomeConfig, initial_home_config: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every attribute a fresh device of its type refuses to restore, as (JSON path, message)."""
    where: dict[str, str] = {}
    for room_id, room in (initial_home_config.get("rooms") or {}).items():
        for index, device in enumerate(room.get("devices") or []):
            where[str(device.get("device_id"))] = f"rooms.{room_id}.devices[{index}]"
    problems: list[tuple[str, str]] = []
    for problem in attribute_problems(config):
        base = where.get(problem.device_id, f"devices.{problem.device_id}")
        if problem.attribute_path is None:
            problems.append((f"{base}.device_type", problem.message))
        else:
            problems.append((f'{base}.attributes["{simuhome_path(problem.attribute_path)}"]', problem.message))
    return problems
