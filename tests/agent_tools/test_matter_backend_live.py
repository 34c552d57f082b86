"""Live: the agent tools over real Matter give the oracle the same verdicts as the in-process fabric.

One generated home (3 SimuHome-tier rooms, plus an air-quality and a light sensor per room so room
states can be read over Matter) is served by ``homefabric serve`` and commissioned into python-matter-
server 7.0.1 inside a network namespace (``tests.matter_bridge.live_setup``). qt1 and qt3 feasible episodes
are generated on exactly that home (the generators' home and augmentation are pinned to it), run once
in process (ToolBox over a fresh EmulatedHome) and once through ``ToolBox(MatterHome)`` against the served home,
with the oracle agent and the rules judge. The live run is scored on the served fabric's own values,
read through the emulator's control socket (not through Matter), so the backend does not grade itself.

Episodes share the one served home, so qt1 (read-only) runs first and the qt3 episodes are chosen with
disjoint target devices: each starts from its initial state as far as its goals are concerned.
Skipped when not root / no ``ip netns`` / no matter-server.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from tests.matter_bridge.live_env import inside_namespace, manual_code
from tests.matter_bridge.live_setup import LiveSetup, live_setup
from tests.requirements import LIVE_CONTROLLER

pytestmark = pytest.mark.requires(*LIVE_CONTROLLER)

SPEED = 1  # real time: room states and sensors move little during the run
QT1_COUNT, QT3_CANDIDATES, QT3_COUNT = 4, 12, 4


def shared_home() -> Any:
    from emulator.home_config import HomeConfig
    from emulator.home_generation.generator import generate_home

    data = generate_home("simuhome", 11).model_dump(mode="json")
    keep = [r["id"] for r in data["rooms"]][:3]
    data["rooms"] = [r for r in data["rooms"] if r["id"] in keep]
    data["devices"] = [d for d in data["devices"] if d["room"] in keep]
    for room in keep:
        data["devices"] += [
            {"id": f"{room}_air_quality_sensor_1", "type": "air_quality_sensor", "room": room},
            {"id": f"{room}_light_sensor_1", "type": "light_sensor", "room": room},
        ]
    return HomeConfig.model_validate(data)


def shared_episodes() -> list[Any]:
    """qt1 then qt3 feasible episodes whose initial_home_config is one and the same home."""
    from benchmark.generation import homes, qt1, qt3
    from benchmark.generation.generate import generate_episode
    from benchmark.suites.simuhome.episode import parse_episode

    home = shared_home()
    pinned = lambda seed: home.model_copy(deep=True)  # noqa: E731
    with (
        mock.patch.object(qt1, "home_config", pinned),
        mock.patch.object(qt3, "home_config", pinned),
        mock.patch.object(homes, "augment", lambda *args, **kwargs: None),
    ):
        raw = [generate_episode("qt1", "feasible", 5000 + i) for i in range(QT1_COUNT)]
        candidates = [generate_episode("qt3", "feasible", 6000 + i) for i in range(QT3_CANDIDATES)]
    used: set[str] = set()
    for episode in candidates:
        targets = {g["device_id"] for g in episode["eval"]["goals"]}
        if len([e for e in raw if e["meta"].get("query_type") == "qt3"]) < QT3_COUNT and not targets & used:
            raw.append(episode)
            used |= targets
    homes_seen = {json.dumps(e["initial_home_config"], sort_keys=True) for e in raw}
    assert len(homes_seen) == 1, "the episodes must share one home"
    return [parse_episode(e, check_home=False) for e in raw]


# ---------------------------------------------------------------------------------- scoring
class ServedView:
    """What the evaluators read of a home, from values read out of the served fabric."""

    def __init__(self, metadata: Any, snapshot: dict[str, Any]) -> None:
        self._metadata = metadata  # a fresh fabric of the same home: enum names only
        self._snapshot = snapshot

    def read_path(self, device_id: str, path: str) -> Any:
        from emulator.errors import HomeError

        attributes = self._snapshot["devices"].get(device_id, {}).get("attributes", {})
        if path not in attributes:
            raise HomeError("ATTRIBUTE_NOT_FOUND", f"{device_id} {path}")
        return attributes[path]

    def describe_device(self, device_id: str) -> dict[str, Any]:
        return self._metadata.describe_device(device_id)

    def workflows(self, status: str | None = None) -> list[Any]:
        return []


async def served_snapshot(control: Any, initial: dict[str, Any]) -> dict[str, Any]:
    """The fabric snapshot shape with every device attribute and room state read over the control socket."""
    import copy

    snapshot = copy.deepcopy(initial)
    for device_id, device in snapshot["devices"].items():
        for path in list(device["attributes"]):
            endpoint, cluster, attribute = path.split(".")
            device["attributes"][path] = await control(
                "read", device=device_id, endpoint=int(endpoint), cluster=cluster, attribute=attribute
            )
    for room_id, room in snapshot["rooms"].items():
        room["state"] = await control("room_state", room=room_id)
    return snapshot


async def run_and_score(
    episode: Any, tools: Any, fabric: Any, before: dict[str, Any], current_time: str, after_of: Any
) -> dict[str, Any]:
    from benchmark.agents.base import AgentTask
    from benchmark.agents.oracle import OracleAgent
    from benchmark.scoring.evaluators.evaluate import EvaluationInput, evaluate_episode
    from benchmark.scoring.judges.rules import RulesJudge

    task = AgentTask(
        query=episode.query,
        user_location=episode.user_location,
        current_time=current_time,
        episode_id=episode.episode_id,
        extras={"episode": episode},
    )
    outcome = await OracleAgent().run(task, tools)
    after = await after_of()
    view = fabric(after) if callable(fabric) else fabric
    data = EvaluationInput(
        episode,
        view,
        before,
        after,
        tools.invocations,
        outcome.final_answer,
        [s.to_dict() for s in outcome.steps],
        outcome.end_reason,
    )
    verdict = await evaluate_episode(data, RulesJudge())
    return {
        "passed": verdict.passed,
        "method": verdict.method,
        "answer": outcome.final_answer,
        "checks": [c.get("ok") for c in verdict.checks],
        "tools": [i["tool"] for i in tools.invocations],
        "errors": [i for i in tools.invocations if not i["ok"]],
    }


async def in_process(episode: Any) -> dict[str, Any]:
    from agent_tools import ToolBox
    from benchmark.scoring.evaluators.state_comparison import fresh_fabric

    fabric = fresh_fabric(episode.initial_home_config)
    before = fabric.snapshot()

    async def after() -> dict[str, Any]:
        return fabric.snapshot()

    return await run_and_score(episode, ToolBox(fabric), fabric, before, fabric.now_text(), after)


def mapping_for(layout: dict[str, Any], home: Any, node_id: int) -> Any:
    from agent_tools.matter_backend import HomeMapping

    devices = {d.id: d for d in home.devices}
    return HomeMapping.model_validate(
        {
            "rooms": [{"room_id": r.id, "display_name": r.name} for r in home.rooms],
            "devices": [
                {
                    "node_id": node_id,
                    "endpoint": entry["endpoints"][min(entry["endpoints"], key=int)],
                    "device_id": device_id,
                    "room_id": devices[device_id].room,
                    "device_type": devices[device_id].type,
                    "endpoints": entry["endpoints"],
                }
                for device_id, entry in layout.items()
            ],
        }
    )


def test_oracle_verdicts_over_matter_equal_the_in_process_run() -> None:
    from agent_tools import ToolBox
    from agent_tools.matter_backend import MatterHome, discover
    from benchmark.scoring.evaluators.state_comparison import fresh_fabric
    from emulator.home_config import dump_home
    from emulator.simuhome.import_home import from_simuhome

    episodes = shared_episodes()
    assert {e.query_type for e in episodes} == {"qt1", "qt3"}
    expected = {e.episode_id: asyncio.run(in_process(e)) for e in episodes}

    config, _ = from_simuhome(episodes[0].initial_home_config)
    results: dict[str, Any] = {}
    matter_home: MatterHome | None = None

    def make(work: Path) -> LiveSetup:
        home_path = work / "home.json"
        home_path.write_text(dump_home(config))
        return LiveSetup(work, speed=SPEED, namespace_prefix="hfb", home=home_path)

    with live_setup(make, work_prefix="hf-mb-", report="matter_backend_timings") as live:
        bridge = live.bridge

        async def scenario() -> None:
            nonlocal matter_home
            started = time.monotonic()
            node = await bridge.matter.call(
                "commission_with_code", code=manual_code(), network_only=True, timeout_s=150
            )
            live.timings["commission_s"] = time.monotonic() - started
            layout = await bridge.control("endpoints")
            url = f"http://127.0.0.1:{bridge.ws_port}/ws"
            matter_home = await asyncio.to_thread(
                MatterHome.connect,
                url,
                mapping=mapping_for(layout, config, node["node_id"]),
                connect_context=lambda: inside_namespace(bridge.namespace),
            )
            # Without a mapping, discovery finds the same devices (our bridge's SerialNumber is the device id, up
            # to 32 characters; the device id discovery gives is the opaque UniqueID), rooms and types.
            by_labels = {d.serial_number: d for d in discover([node])}
            for device in config.devices:
                if len(device.id) <= 32:
                    found = by_labels[device.id]
                    assert (found.room_id, found.device_type) == (device.room, device.type), device.id
                    assert found.endpoints == {int(k): v for k, v in layout[device.id]["endpoints"].items()}
            for episode in episodes:
                initial = fresh_fabric(episode.initial_home_config)
                before = await served_snapshot(bridge.control, initial.snapshot())
                tools = ToolBox(matter_home)

                async def after(initial: Any = initial) -> dict[str, Any]:
                    return await served_snapshot(bridge.control, initial.snapshot())

                results[episode.episode_id] = await run_and_score(
                    episode,
                    tools,
                    lambda snap, initial=initial: ServedView(initial, snap),
                    before,
                    matter_home.now_text(),
                    after,
                )

        try:
            live.run(scenario(), 420)
        finally:
            if matter_home is not None:  # before the bridge stops
                matter_home.close()

    summary = {
        e.episode_id: {
            "kind": e.kind,
            "in_process": expected[e.episode_id]["passed"],
            "matter": results[e.episode_id]["passed"],
            "calls": len(results[e.episode_id]["tools"]),
            "answer": results[e.episode_id]["answer"],
        }
        for e in episodes
    }
    print(json.dumps(summary, indent=1))
    assert all(expected[e]["passed"] for e in expected), expected  # the oracle solves every episode in process
    for episode_id, want in expected.items():
        got = results[episode_id]
        assert got["passed"] == want["passed"], (episode_id, want, got)
        assert got["checks"] == want["checks"], (episode_id, want, got)
        assert got["tools"] == want["tools"], (episode_id, want["tools"], got["tools"])  # the same trajectory
        assert got["errors"] == [] == want["errors"], (episode_id, got["errors"])
