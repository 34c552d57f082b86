"""The HTTP API against a real uvicorn server started by each test: status codes, errors naming fields,
the fabric's codes, token enforcement, clock controls, workflows, episodes and runs, OpenAPI."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import httpx

from benchmark.http import EpisodeApi
from bridge.http import HttpApi
from bridge.http.app import STATIC_DIR
from tests.http.live_api import DIMMER, DISHWASHER, LIGHT, home, running_api, write_some_episodes


def test_home_rooms_devices_and_attributes() -> None:
    async def scenario() -> None:
        fabric = home()
        async with running_api(fabric) as api, httpx.AsyncClient(base_url=api.url, timeout=10) as client:
            assert api.url.startswith("http://127.0.0.1:")
            body = (await client.get("/api/home")).json()
            assert {r["room_id"] for r in body["rooms"]} == {r.room_id for r in fabric.rooms()}
            assert {d["device_id"] for d in body["devices"]} == {d.device_id for d in fabric.devices()}
            balcony = next(r for r in body["rooms"] if r["room_id"] == "balcony")
            assert balcony["parent"] == "bedroom" and balcony["floor"] == 1
            assert (await client.get("/api/rooms/kitchen/state")).json() == fabric.room_state("kitchen")

            path = f"/api/devices/{LIGHT}/attributes/1/OnOff/OnOff"
            assert (await client.get(path)).json()["value"] is False
            response = await client.post(f"/api/devices/{LIGHT}/commands/1/OnOff/Toggle")
            assert response.status_code == 200
            assert fabric.read(LIGHT, 1, "OnOff", "OnOff") is True
            assert (await client.get(f"/api/devices/{LIGHT}")).json()["state"]["1.OnOff.OnOff"] is True

            response = await client.post(
                f"/api/devices/{DIMMER}/commands/1/LevelControl/MoveToLevel", json={"args": {"Level": 40}}
            )
            assert response.status_code == 200 and fabric.read(DIMMER, 1, "LevelControl", "CurrentLevel") == 40
            response = await client.put(
                "/api/devices/bathroom_air_purifier_1/attributes/1/FanControl/PercentSetting", json={"value": 60}
            )
            assert response.status_code == 200 and response.json()["new_value"] == 60
            structure = (await client.get(f"/api/devices/{DIMMER}/structure")).json()
            assert "MoveToLevel" in structure["endpoints"]["1"]["clusters"]["LevelControl"]["commands"]
            snapshot = (await client.get("/api/snapshot")).json()
            assert snapshot["devices"][LIGHT]["attributes"]["1.OnOff.OnOff"] is True

    asyncio.run(scenario())


def test_fabric_errors_keep_their_code_and_allowed_values() -> None:
    async def scenario() -> None:
        fabric = home()
        before = fabric.snapshot()
        async with running_api(fabric) as api, httpx.AsyncClient(base_url=api.url, timeout=10) as client:
            response = await client.get("/api/devices/bedroom_on_off_lite_1")
            assert response.status_code == 404
            assert response.json()["code"] == "DEVICE_NOT_FOUND" and LIGHT in response.json()["allowed"]
            response = await client.get(f"/api/devices/{LIGHT}/attributes/1/OnOff/Brightness")
            assert response.status_code == 404 and response.json()["code"] == "ATTRIBUTE_NOT_FOUND"
            response = await client.post(
                f"/api/devices/{DIMMER}/commands/1/LevelControl/MoveToLevel", json={"args": {"Level": 999}}
            )
            assert response.status_code == 400
            assert response.json()["code"] == "CONSTRAINT_ERROR"
            assert response.json()["allowed"] == {"min": 0, "max": 254}
            response = await client.post(f"/api/devices/{DISHWASHER}/commands/1/OperationalState/Start")
            assert response.status_code == 409 and response.json()["code"] == "DEPENDENCY_VIOLATION"
            response = await client.put(f"/api/devices/{LIGHT}/attributes/1/OnOff/OnOff", json={"value": True})
            assert response.status_code == 400 and response.json()["code"] == "READ_ONLY"
            assert (await client.get("/api/rooms/attic")).status_code == 404
        assert device_changes(before, fabric.snapshot()) == []

    asyncio.run(scenario())


def device_changes(before: dict, after: dict) -> list:
    from emulator.emulated_home import EmulatedHome

    return [c for c in EmulatedHome.diff(before, after) if c["kind"] != "room"]


def test_request_validation_names_the_field() -> None:
    async def scenario() -> None:
        async with running_api(home()) as api, httpx.AsyncClient(base_url=api.url, timeout=10) as client:
            response = await client.post("/api/clock/fast-forward", json={"seconds": "soon"})
            assert response.status_code == 422
            body = response.json()
            assert body["code"] == "VALIDATION_ERROR" and body["errors"][0]["field"] == "body.seconds"
            response = await client.post("/api/clock/fast-forward", json={"seconds": -5})
            assert response.json()["errors"][0]["field"] == "body.seconds"
            response = await client.post("/api/clock/fast-forward", json={"seconds": 10, "extra": 1})
            assert [e["field"] for e in response.json()["errors"]] == ["body.extra"]
            response = await client.get(f"/api/devices/{LIGHT}/attributes/one/OnOff/OnOff")
            assert response.status_code == 422 and response.json()["errors"][0]["field"] == "path.endpoint"
            response = await client.post(f"/api/devices/{LIGHT}/commands/1/OnOff/On", json={"args": [1, 2]})
            assert response.status_code == 422 and response.json()["errors"][0]["field"] == "body.args"
            response = await client.get("/api/devices/../../etc")
            assert response.status_code in (404, 422)
            response = await client.post("/api/workflows", json={"start_time": "tomorrow", "steps": []})
            fields = {e["field"] for e in response.json()["errors"]}
            assert {"body.start_time", "body.steps"} <= fields

    asyncio.run(scenario())


def test_token_is_required_everywhere_but_the_static_shell() -> None:
    async def scenario() -> None:
        import websockets

        async with (
            running_api(home(), token="s3cret") as api,
            httpx.AsyncClient(base_url=api.url, timeout=10) as client,
        ):
            for path in ("/api/home", "/api/clock", "/openapi.json", "/api/runs"):
                response = await client.get(path)
                assert response.status_code == 401, path
                assert response.json()["code"] == "UNAUTHORIZED"
            assert (await client.get("/api/home", headers={"Authorization": "Bearer wrong"})).status_code == 401
            good = {"Authorization": "Bearer s3cret"}
            assert (await client.get("/api/home", headers=good)).status_code == 200
            document = (await client.get("/openapi.json", headers=good)).json()
            assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
            assert (await client.get("/")).status_code == 200  # the page itself asks for the token
            rejected = False
            try:
                async with websockets.connect(api.ws_url + "/ws/events", open_timeout=5) as ws:
                    await asyncio.wait_for(ws.recv(), 5)
            except websockets.exceptions.InvalidStatus as error:
                rejected = error.response.status_code == 403
            assert rejected
            async with websockets.connect(api.ws_url + "/ws/events?token=s3cret", open_timeout=5) as ws:
                assert '"hello"' in await asyncio.wait_for(ws.recv(), 5)

    asyncio.run(scenario())


def test_openapi_lists_the_routes_and_docs_work_offline() -> None:
    async def scenario() -> None:
        async with running_api(home()) as api, httpx.AsyncClient(base_url=api.url, timeout=10) as client:
            document = (await client.get("/openapi.json")).json()
            paths = document["paths"]
            for path in (
                "/api/rooms",
                "/api/devices/{device_id}/attributes/{endpoint}/{cluster}/{attribute}",
                "/api/devices/{device_id}/commands/{endpoint}/{cluster}/{command}",
                "/api/clock/pause",
                "/api/clock/fast-forward",
                "/api/clock/speed",
                "/api/workflows",
                "/api/episodes",
                "/api/runs",
                "/api/runs/{run_id}/records/{index}",
                "/api/history",
                "/api/snapshot",
            ):
                assert path in paths, path
            assert "put" in paths["/api/devices/{device_id}/attributes/{endpoint}/{cluster}/{attribute}"]
            assert "ErrorBody" in document["components"]["schemas"]
            docs = await client.get("/docs")
            assert docs.status_code == 200 and "docs.js" in docs.text
        for file in STATIC_DIR.iterdir():  # no CDN: every asset is served by us
            text = file.read_text(encoding="utf-8")
            assert not re.search(r"""(src|href)=["']https?://""", text), file
            assert not re.search(r"""from\s+["']https?://""", text), file

    asyncio.run(scenario())


def test_the_home_app_serves_the_home_only_and_the_composition_mounts_episodes(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with HttpApi(home(), port=0) as bare, httpx.AsyncClient(base_url=bare.url, timeout=10) as client:
            paths = (await client.get("/openapi.json")).json()["paths"]
            assert "/api/rooms" in paths and not any(p.startswith(("/api/episodes", "/api/runs")) for p in paths)
            assert (await client.get("/api/episodes")).status_code == 404
        runs_dir = tmp_path / "runs"
        async with (
            running_api(home(), runs_dir=runs_dir) as api,
            httpx.AsyncClient(base_url=api.url, timeout=10) as client,
        ):
            assert (await client.get("/api/episodes")).json() == []
            assert (await client.get("/api/runs")).json() == []
        episodes = EpisodeApi()  # no runs dir: a temporary one, removed by the routers' lifespan
        async with (
            HttpApi(home(), port=0, routers=episodes.routers) as api,
            httpx.AsyncClient(base_url=api.url, timeout=10) as client,
        ):
            assert (await client.get("/api/runs")).json() == []
            assert episodes.runs.runs_dir.is_dir()
        assert not episodes.runs.runs_dir.exists()

    asyncio.run(scenario())


def test_clock_controls_with_a_pacer() -> None:
    async def scenario() -> None:
        fabric = home()
        async with running_api(fabric, speed=50) as api, httpx.AsyncClient(base_url=api.url, timeout=10) as client:
            clock = (await client.get("/api/clock")).json()
            assert clock["paced"] and clock["running"] and clock["speed"] == 50
            paused = (await client.post("/api/clock/pause")).json()
            assert paused["running"] is False
            tick = fabric.tick
            await asyncio.sleep(0.3)
            assert fabric.tick == tick
            assert (await client.put("/api/clock/speed", json={"speed": 200})).json()["speed"] == 200
            assert (await client.put("/api/clock/speed", json={"speed": 0})).status_code == 422
            assert (await client.post("/api/clock/resume")).json()["running"] is True
            await asyncio.sleep(0.3)
            assert fabric.tick > tick
            before = fabric.tick
            response = (await client.post("/api/clock/fast-forward", json={"seconds": 3600})).json()
            assert response["clock"]["tick"] >= before + 36000

    asyncio.run(scenario())


def test_clock_without_a_pacer_only_fast_forwards() -> None:
    async def scenario() -> None:
        fabric = home()
        async with running_api(fabric) as api, httpx.AsyncClient(base_url=api.url, timeout=10) as client:
            response = await client.post("/api/clock/pause")
            assert response.status_code == 409 and response.json()["code"] == "NO_PACER"
            assert (await client.put("/api/clock/speed", json={"speed": 2})).status_code == 409
            response = (await client.post("/api/clock/fast-forward", json={"seconds": 90})).json()
            assert response["clock"]["tick"] == 900 == fabric.tick

    asyncio.run(scenario())


def test_workflows_schedule_run_and_cancel() -> None:
    async def scenario() -> None:
        fabric = home()
        async with running_api(fabric) as api, httpx.AsyncClient(base_url=api.url, timeout=10) as client:
            start = "2025-08-23 12:40:00"
            body: dict[str, Any] = {
                "start_time": start,
                "description": "lights on",
                "steps": [
                    {"kind": "invoke", "device_id": LIGHT, "endpoint": 1, "cluster": "OnOff", "command": "On"},
                    {
                        "kind": "write",
                        "device_id": "bathroom_air_purifier_1",
                        "endpoint": 1,
                        "cluster": "FanControl",
                        "attribute": "PercentSetting",
                        "value": 30,
                    },
                ],
            }
            created = await client.post("/api/workflows", json=body)
            assert created.status_code == 201
            workflow_id = created.json()["workflow_id"]
            bad = dict(body, steps=[{**body["steps"][0], "command": "Explode"}])
            refused = await client.post("/api/workflows", json=bad)
            assert refused.status_code == 404 and refused.json()["code"] == "COMMAND_NOT_FOUND"
            pending = (await client.get("/api/workflows?status=pending")).json()
            assert [w["workflow_id"] for w in pending] == [workflow_id]
            second = (await client.post("/api/workflows", json=body)).json()["workflow_id"]
            assert (await client.delete(f"/api/workflows/{second}")).json()["status"] == "cancelled"
            await client.post("/api/clock/fast-forward", json={"seconds": 300})
            done = (await client.get(f"/api/workflows/{workflow_id}")).json()
            assert done["status"] == "completed" and fabric.read(LIGHT, 1, "OnOff", "OnOff") is True
            response = await client.delete(f"/api/workflows/{workflow_id}")
            assert response.status_code == 409 and response.json()["code"] == "INVALID_STATE"
            assert (await client.get("/api/workflows?status=sleeping")).status_code == 400

    asyncio.run(scenario())


def test_episodes_load_upload_and_an_oracle_run(tmp_path: Path) -> None:
    async def scenario() -> None:
        episodes = tmp_path / "episodes"
        ids = write_some_episodes(episodes)
        runs_dir = tmp_path / "runs"
        served = home()
        before = served.snapshot()
        async with (
            running_api(served, runs_dir=runs_dir, episodes_root=tmp_path) as api,
            httpx.AsyncClient(base_url=api.url, timeout=10) as client,
        ):
            loaded = (await client.post("/api/episodes/load", json={"path": str(episodes)})).json()
            assert loaded["loaded"] == ids and loaded["problems"] == []
            missing = await client.post("/api/episodes/load", json={"path": str(tmp_path / "nope")})
            assert missing.status_code == 404
            bad = await client.post("/api/episodes", json={"meta": {"query_type": "qt9", "case": "feasible"}})
            assert bad.status_code == 400 and "meta.query_type" in bad.json()["message"]
            response = await client.post("/api/runs", json={"episode_ids": ids, "agent": {"name": "oracle"}})
            assert response.status_code == 202
            run_id = response.json()["run_id"]
            for _ in range(100):
                run = (await client.get(f"/api/runs/{run_id}")).json()
                if run["status"] != "running":
                    break
                await asyncio.sleep(0.05)
            assert run["status"] == "finished" and run["statuses"] == {"passed": 2}
            events = (await client.get(f"/api/runs/{run_id}/events")).json()["events"]
            kinds = [e["type"] for e in events]
            assert kinds[0] == "run_started" and kinds[-1] == "run_finished" and kinds.count("record") == 2
            steps = [e for e in events if e["type"] == "step"]
            assert steps and all("observation" in s and "state_diff" in s for s in steps)
            assert any(s["state_diff"] for s in steps)  # the qt3 oracle changes a device
            records = (await client.get(f"/api/runs/{run_id}/records")).json()
            assert {r["episode_id"] for r in records} == set(ids) and all(r["passed"] for r in records)
            full = (await client.get(f"/api/runs/{run_id}/records/0")).json()
            assert full["outcome"]["steps"] and "state_diff" in full
            assert (await client.get(f"/api/runs/{run_id}/records/9")).status_code == 404
            assert (await client.get("/api/runs/..")).status_code in (400, 404, 422)
        assert (runs_dir / run_id / "records.jsonl").is_file()
        assert served.snapshot() == before  # runs use fresh fabrics, never the served home

        async with (
            running_api(home(), runs_dir=runs_dir) as api,
            httpx.AsyncClient(base_url=api.url, timeout=10) as client,
        ):
            stored = (await client.get("/api/runs")).json()
            assert [(r["run_id"], r["status"], r["records"]) for r in stored] == [(run_id, "stored", 2)]

    asyncio.run(scenario())
