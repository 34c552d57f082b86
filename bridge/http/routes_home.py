"""Rooms, devices, attributes, commands, snapshot and environment history."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request

from bridge.http.context import ApiContext
from bridge.http.device_view import device_view, home_view, room_view
from bridge.http.models import (
    ID_PATTERN,
    MAX_ENDPOINT,
    MAX_ID_LENGTH,
    MAX_NAME_LENGTH,
    NAME_PATTERN,
    DeviceOut,
    HomeOut,
    InvokeBody,
    RoomOut,
    WriteBody,
)

router = APIRouter(prefix="/api", tags=["home"])

DeviceIdPath = Annotated[str, Path(pattern=ID_PATTERN, max_length=MAX_ID_LENGTH, description="e.g. living_room_fan_1")]
RoomIdPath = Annotated[str, Path(pattern=ID_PATTERN, max_length=MAX_ID_LENGTH, description="e.g. living_room")]
EndpointPath = Annotated[int, Path(ge=0, le=MAX_ENDPOINT, description="Matter endpoint, e.g. 1")]
ClusterPath = Annotated[str, Path(pattern=NAME_PATTERN, max_length=MAX_NAME_LENGTH, description="e.g. OnOff")]
AttributePath = Annotated[str, Path(pattern=NAME_PATTERN, max_length=MAX_NAME_LENGTH, description="e.g. CurrentLevel")]
CommandPath = Annotated[str, Path(pattern=NAME_PATTERN, max_length=MAX_NAME_LENGTH, description="e.g. MoveToLevel")]


def ctx(request: Request) -> ApiContext:
    context: ApiContext = request.app.state.ctx
    return context


@router.get("/home", response_model=HomeOut, summary="The whole home for a dashboard: rooms, devices, live state")
async def get_home(request: Request) -> dict[str, Any]:
    return home_view(ctx(request).fabric)


@router.get("/rooms", response_model=list[RoomOut], summary="Rooms with their environment now")
async def list_rooms(request: Request) -> list[dict[str, Any]]:
    fabric = ctx(request).fabric
    return [room_view(fabric, room) for room in fabric.rooms()]


@router.get("/rooms/{room_id}", response_model=RoomOut, summary="One room")
async def get_room(request: Request, room_id: RoomIdPath) -> dict[str, Any]:
    fabric = ctx(request).fabric
    return room_view(fabric, fabric.room(room_id))


@router.get(
    "/rooms/{room_id}/state",
    response_model=dict[str, float],
    summary="A room's temperature (0.01 °C), humidity (0.01 %), illuminance (lux), pm10 (µg/m³)",
)
async def get_room_state(request: Request, room_id: RoomIdPath) -> dict[str, float]:
    return ctx(request).fabric.room_state(room_id)


@router.get("/devices", response_model=list[DeviceOut], summary="Devices (optionally of one room)")
async def list_devices(
    request: Request, room_id: Annotated[str | None, Query(pattern=ID_PATTERN)] = None
) -> list[dict[str, Any]]:
    fabric = ctx(request).fabric
    return [device_view(fabric, d) for d in fabric.devices(room_id)]


@router.get("/devices/{device_id}", response_model=DeviceOut, summary="One device and its live state")
async def get_device(request: Request, device_id: DeviceIdPath) -> dict[str, Any]:
    fabric = ctx(request).fabric
    return device_view(fabric, fabric.device(device_id))


@router.get(
    "/devices/{device_id}/structure",
    summary="Endpoints → clusters → attributes (value, type, writable) and commands with their arguments",
)
async def get_structure(request: Request, device_id: DeviceIdPath) -> dict[str, Any]:
    return ctx(request).fabric.describe_device(device_id)


@router.get("/devices/{device_id}/attributes", summary='Every attribute: "<ep>.<Cluster>.<Attribute>" → value')
async def get_attributes(request: Request, device_id: DeviceIdPath) -> dict[str, Any]:
    return ctx(request).fabric.read_all(device_id)


@router.get("/devices/{device_id}/attributes/{endpoint}/{cluster}/{attribute}", summary="Read one attribute")
async def read_attribute(
    request: Request, device_id: DeviceIdPath, endpoint: EndpointPath, cluster: ClusterPath, attribute: AttributePath
) -> dict[str, Any]:
    fabric = ctx(request).fabric
    value = fabric.read(device_id, endpoint, cluster, attribute)
    return {
        "device_id": device_id,
        "endpoint": endpoint,
        "cluster": cluster,
        "attribute": attribute,
        "value": value,
        "time": fabric.now_text(),
        "tick": fabric.tick,
    }


@router.put(
    "/devices/{device_id}/attributes/{endpoint}/{cluster}/{attribute}",
    summary="Write one attribute (validated by the cluster: type, range, writability, power)",
)
async def write_attribute(
    request: Request,
    device_id: DeviceIdPath,
    endpoint: EndpointPath,
    cluster: ClusterPath,
    attribute: AttributePath,
    body: WriteBody,
) -> dict[str, Any]:
    return ctx(request).fabric.write(device_id, endpoint, cluster, attribute, body.value).to_dict()


@router.post(
    "/devices/{device_id}/commands/{endpoint}/{cluster}/{command}",
    summary="Invoke a cluster command (arguments validated by the cluster)",
)
async def invoke_command(
    request: Request,
    device_id: DeviceIdPath,
    endpoint: EndpointPath,
    cluster: ClusterPath,
    command: CommandPath,
    body: InvokeBody | None = None,
) -> dict[str, Any]:
    args = body.args if body is not None else {}
    return ctx(request).fabric.invoke(device_id, endpoint, cluster, command, args).to_dict()


@router.get("/snapshot", summary="The whole home now as JSON (rooms' state and every device attribute)")
async def get_snapshot(request: Request) -> dict[str, Any]:
    return ctx(request).fabric.snapshot()


@router.get("/history", summary="Room environment samples over virtual time (a bounded ring buffer)")
async def get_history(
    request: Request,
    room_id: Annotated[str | None, Query(pattern=ID_PATTERN)] = None,
    since_tick: Annotated[int | None, Query(ge=0)] = None,
) -> dict[str, Any]:
    context = ctx(request)
    if room_id is not None:
        context.fabric.room(room_id)  # 404 naming the rooms
    return {
        "interval_s": context.history.interval_s,
        "capacity": context.history.capacity,
        "samples": context.history.query(room_id, since_tick),
    }
