"""Write episode files whose homes are built from SimuHome's published-shape inventory.

Every (device type, attribute path, value shape) that SimuHome's 600 published homes contain occurs in these
homes (``emulator.simuhome.samples``), so ``homefabric episodes import`` on them shows what the importer makes of
SimuHome's real shapes (files, runnable, normalisations) without SimuHome's files::

    python scripts/simuhome_inventory_homes.py --out /tmp/inventory-episodes
    homefabric episodes import /tmp/inventory-episodes
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from emulator.simuhome.samples import inventory_homes


def inventory_episodes() -> list[dict[str, Any]]:
    """One qt1 episode (a room-state question) per inventory-built home."""
    episodes = []
    for seed, home in enumerate(inventory_homes(), start=1):
        room_id = next(iter(home["rooms"]))
        episodes.append(
            {
                "meta": {
                    "seed": seed,
                    "query_type": "qt1",
                    "case": "feasible",
                    "num_rooms": len(home["rooms"]),
                    "num_devices": sum(len(room["devices"]) for room in home["rooms"].values()),
                    "num_target_device_attributes": 0,
                    "num_target_room_states": 1,
                },
                "query": f"how warm is the {room_id.replace('_', ' ')} right now",
                "user_location": room_id,
                "eval": {
                    "required_actions": [{"tool": "get_room_states", "params": {"room_id": room_id}}],
                    "goals": [
                        {
                            "variant": "room_state",
                            "room_id": room_id,
                            "room_state": "temperature",
                            "current_value": round(home["rooms"][room_id]["state"]["temperature"] / 100, 2),
                            "unit": "°C",
                        }
                    ],
                },
                "initial_home_config": home,
            }
        )
    return episodes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="directory to write the episode files to")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    episodes = inventory_episodes()
    for episode in episodes:
        path = args.out / f"qt1_feasible_seed_{episode['meta']['seed']}.json"
        path.write_text(json.dumps(episode, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(episodes)} episodes to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
