"""A generated SimuHome-tier home (seed 3) and a fresh fabric + toolbox per test."""

from __future__ import annotations

import functools

import pytest

from agent_tools import ToolBox
from emulator.emulated_home import EmulatedHome
from emulator.home_config import HomeConfig
from emulator.home_generation.generator import generate_home


@functools.cache
def home_config() -> HomeConfig:
    return generate_home("simuhome", 3)


@pytest.fixture
def fabric() -> EmulatedHome:
    return EmulatedHome(home_config().model_copy(deep=True))


@pytest.fixture
def tools(fabric: EmulatedHome) -> ToolBox:
    return ToolBox(fabric)


def device_of(fabric: EmulatedHome, device_type: str) -> str:
    """The first device of a type in the home (ids sorted)."""
    return next(d.device_id for d in fabric.devices() if d.device_type == device_type)


def command(device_id: str, cluster: str, name: str, args: dict | None = None, endpoint: int = 1) -> dict:
    return {
        "device_id": device_id,
        "endpoint_id": endpoint,
        "cluster_id": cluster,
        "command_id": name,
        "args": args or {},
    }


def write(device_id: str, cluster: str, attribute: str, value: object, endpoint: int = 1) -> dict:
    return {
        "device_id": device_id,
        "endpoint_id": endpoint,
        "cluster_id": cluster,
        "attribute_id": attribute,
        "value": value,
    }
