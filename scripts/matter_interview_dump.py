"""Capture a real python-matter-server interview of our bridge, as a test fixture.

``homefabric serve`` serves the home in ``tests/agent_tools/fixtures/matter_interview_home.json``;
python-matter-server (the one in the venv, or ``HF_MATTER_SERVER``) commissions it inside a fresh network
namespace (``tests.matter_bridge.live_env``), interviews it, and its ``get_node`` reply — the node dump the
Matter agent-tool backend discovers devices from — is written to
``tests/agent_tools/fixtures/matter_interview_node.json`` together with the emulator's own endpoint layout.

Needs root and ``ip netns``; run it under the shared lock::

    flock /tmp/homefabric-live.lock .venv/bin/python scripts/matter_interview_dump.py
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FIXTURES = ROOT / "tests" / "agent_tools" / "fixtures"
HOME = FIXTURES / "matter_interview_home.json"
DUMP = FIXTURES / "matter_interview_node.json"


async def capture(work: Path) -> dict[str, Any]:
    from tests.matter_bridge.live_env import LiveBridge, live_skip_reason, manual_code

    reason = live_skip_reason()
    if reason:
        raise SystemExit(f"matter_interview_dump: cannot run the live setup here: {reason}")
    async with LiveBridge(HOME, work, speed=1, namespace_prefix="hfdump") as bridge:
        node = await bridge.matter.call("commission_with_code", code=manual_code(), network_only=True, timeout_s=150)
        dump = await bridge.matter.call("get_node", node_id=node["node_id"], timeout_s=60)
        layout = await bridge.control("endpoints")
    return {
        "source": "python-matter-server get_node after commission_with_code (scripts/matter_interview_dump.py)",
        "emulator_endpoints": layout,
        "node": dump,
    }


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="hfdump-") as work:
        result = asyncio.run(asyncio.wait_for(capture(Path(work)), 300))
    tmp = DUMP.with_suffix(".tmp")
    tmp.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    tmp.replace(DUMP)  # atomic: a failed capture leaves the old fixture
    attributes = result["node"]["attributes"]
    print(
        json.dumps(
            {"written": str(DUMP.relative_to(ROOT)), "attributes": len(attributes), "bytes": DUMP.stat().st_size}
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
