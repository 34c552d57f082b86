"""Agent tools over the Fabric: SimuHome's 16 agent tools (+4 admin), argument models and schemas.

``ToolBox(fabric, profile="simuhome"|"paper13"|"simuhome_ext", admin=False, call_cost_s=0.0, realtime=False,
compat_transport=False)`` is the ``ToolCaller`` agents get; the envelope helpers build SimuHome's
``{status:{code,message}, data, error}`` responses.
"""

from agent_tools.envelope import compat_error, fail, from_fabric_error, http_status, is_ok, ok
from agent_tools.toolbox import ADMIN_TOOLS, PAPER13_TOOLS, SIMUHOME_TOOLS, TOOL_PROFILES, ToolBox

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
