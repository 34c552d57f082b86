"""`homefabric serve` — the fabric in real-time pacing, served as a commissionable Matter bridge.

A thin composition: Fabric (emulator) + RealtimePacer (emulator) + MatterNode/BridgeNode (bridge).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path
from typing import Any


async def serve(home_path: Path, state_dir: Path, *, speed: float, port: int, discriminator: int, passcode: int,
                interfaces: list[str] | None, echo: Any, ready: asyncio.Event | None = None,
                stop: asyncio.Event | None = None) -> None:
    from bridge.matter.bridge_node import BridgeNode
    from bridge.matter.node import MatterNode
    from bridge.matter.persistence import StateStore
    from emulator.fabric import Fabric
    from emulator.pacing import RealtimePacer

    fabric = Fabric.from_file(str(home_path))
    state_dir.mkdir(parents=True, exist_ok=True)
    store = StateStore(state_dir)
    node = MatterNode(lambda root: BridgeNode(fabric, root, store=store), state_dir, port=port,
                      discriminator=discriminator, passcode=passcode, interfaces=interfaces)
    paa_dir = node.export_paa(state_dir / "paa")
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread (tests)
            loop.add_signal_handler(sig, stop.set)
    async with RealtimePacer(fabric, speed=speed):
        await node.start()
        try:
            echo(f"serving {fabric.name}: {len(fabric.devices())} devices in {len(fabric.rooms())} rooms on UDP "
                 f"port {port}, virtual time ×{speed:g} from {fabric.now_text()}")
            echo(f"controllers must trust the test PAA in {paa_dir} (e.g. matter-server --paa-root-cert-dir)")
            echo(node.pairing_text(with_qr=True))
            if ready is not None:
                ready.set()
            await stop.wait()
        finally:
            await node.stop()
