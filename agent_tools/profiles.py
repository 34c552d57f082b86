"""Every tool profile by name, and the one place a ``--profile`` is turned into a toolbox (MCP, bench).

ToolBox's profiles (``TOOL_PROFILES``: SimuHome's tools and their variants) share one tool registry; a
profile whose tools have other names and arguments over another view of the home registers its own
toolbox class here — ``smh`` (SMH-Bench's tools over the HomeEnv view, ``agent_tools.smh.tools``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_tools.smh.home_env import HomeEnv
from agent_tools.smh.tools import SmhToolBox
from agent_tools.toolbox import TOOL_PROFILES, ToolBox


def _smh(fabric: Any, *, admin: bool = False, realtime: bool = False, **options: Any) -> SmhToolBox:
    if admin or realtime:
        raise ValueError("the smh profile has no admin tools and no real-time pacing")
    return SmhToolBox(HomeEnv(fabric), **options)


# Profiles served by their own toolbox class: name → factory(fabric, admin=…, realtime=…, **options).
OWN_TOOLBOXES: dict[str, Callable[..., Any]] = {"smh": _smh}
if set(OWN_TOOLBOXES) & set(TOOL_PROFILES):  # checked at import: a name means one profile
    raise TypeError(f"profiles {sorted(set(OWN_TOOLBOXES) & set(TOOL_PROFILES))} are registered twice")
PROFILES: tuple[str, ...] = (*TOOL_PROFILES, *OWN_TOOLBOXES)


def make_toolbox(fabric: Any, profile: str, *, admin: bool = False, realtime: bool = False, **options: Any) -> Any:
    """The toolbox of ``profile`` over ``fabric``; ValueError names an unknown profile and the known ones."""
    if profile in OWN_TOOLBOXES:
        return OWN_TOOLBOXES[profile](fabric, admin=admin, realtime=realtime, **options)
    if profile not in TOOL_PROFILES:
        raise ValueError(f"unknown tool profile {profile!r}; known: {', '.join(PROFILES)}")
    return ToolBox(fabric, profile=profile, admin=admin, realtime=realtime, **options)
