"""Agent tools over the EmulatedHome: SimuHome's 16 agent tools (+4 admin), argument models and schemas.

``ToolBox(fabric, profile="simuhome"|"paper13"|"simuhome_ext", admin=False, call_cost_s=0.0, realtime=False,
compat_transport=False)`` is the ``ToolCaller`` agents get; the envelope helpers build SimuHome's
``{status:{code,message}, data, error}`` responses.

The names are imported on first use (PEP 562): they pull in the cluster servers and the home engine, and
``homefabric mcp`` must be able to import ``agent_tools.mcp_server`` and answer ``initialize`` without it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_tools.envelope import compat_error, fail, from_fabric_error, http_status, is_ok, ok
    from agent_tools.toolbox import ADMIN_TOOLS, PAPER13_TOOLS, SIMUHOME_TOOLS, TOOL_PROFILES, ToolBox

_HOMES = {
    "compat_error": "envelope",
    "fail": "envelope",
    "from_fabric_error": "envelope",
    "http_status": "envelope",
    "is_ok": "envelope",
    "ok": "envelope",
    "ADMIN_TOOLS": "toolbox",
    "PAPER13_TOOLS": "toolbox",
    "SIMUHOME_TOOLS": "toolbox",
    "TOOL_PROFILES": "toolbox",
    "ToolBox": "toolbox",
}

__all__ = [
    "ADMIN_TOOLS",
    "PAPER13_TOOLS",
    "SIMUHOME_TOOLS",
    "TOOL_PROFILES",
    "ToolBox",
    "compat_error",
    "fail",
    "from_fabric_error",
    "http_status",
    "is_ok",
    "ok",
]


def __getattr__(name: str) -> Any:
    module = _HOMES.get(name)
    if module is None:
        raise AttributeError(f"module 'agent_tools' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"agent_tools.{module}"), name)
    globals()[name] = value
    return value
