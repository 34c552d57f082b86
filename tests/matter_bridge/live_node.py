"""Run a MatterNode serving a one-light home as a bridge (for the live controller test).

``python -m tests.matter_bridge.live_node STATE_DIR [INTERFACE]``; stops on SIGTERM.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from bridge.matter.node.node import MatterNode

if TYPE_CHECKING:
    from bridge.matter.codec.persistence import StateStore
    from bridge.matter.node.bridge_node import BridgeNode
    from clusters import ClusterServer


def _data_model(state: StateStore) -> Callable[[Sequence[ClusterServer]], BridgeNode]:
    from bridge.matter.node.bridge_node import BridgeNode
    from emulator.emulated_home import EmulatedHome
    from emulator.home_config import HomeConfig

    home = HomeConfig.model_validate(
        {
            "name": "live test",
            "base_time": "2025-08-23 09:00:00",
            "extensions": {},
            "rooms": [
                {
                    "id": "living_room",
                    "name": "living_room",
                    "type": "living_room",
                    "environment": {"temperature": 2200, "humidity": 5000, "illuminance": 300, "pm10": 20},
                }
            ],
            "devices": [{"id": "light", "type": "dimmable_light", "room": "living_room", "attributes": {}}],
        }
    )
    fabric = EmulatedHome(home)
    return lambda root: BridgeNode(fabric, root, store=state)


async def main(state_dir: str, interface: str | None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    from bridge.matter.codec.persistence import StateStore

    node = MatterNode(_data_model(StateStore(state_dir)), state_dir, interfaces=[interface] if interface else None)
    await node.start()
    print(node.pairing_text(with_qr=False), flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    await stop.wait()
    await node.stop()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
