"""The EV charger's Device Energy Management Forecast and StartTimeAdjustRequest over the Matter bridge (issue 22):
a controller reads the forecast as its TLV struct, shifts the pending start with an IM Invoke, and a start outside
the window comes back as CONSTRAINT_ERROR."""

from __future__ import annotations

from bridge.matter.im import im_messages as im
from bridge.matter.im.data_model import AllowAll
from bridge.matter.im.interaction import InteractionModel
from bridge.matter.node.bridge_node import BridgeNode
from clusters import Status
from emulator.scenarios import plug_in_vehicle
from tests.emulator.helpers import fabric
from tests.matter_bridge._async import run_async
from tests.matter_bridge.im_fakes import ImClient

DEM, FORECAST, START_TIME_ADJUST = 0x98, 6, 2
START, END, LATEST_END, REASON = 2, 3, 5, 8  # ForecastStruct tags


@run_async
async def test_forecast_reads_and_start_time_adjust_shifts_over_the_bridge() -> None:
    home = fabric([("car", "evse", "garage")])
    plug_in_vehicle(home, "car", demand_kWh=10)
    node = BridgeNode(home, [])
    client = ImClient(InteractionModel(node, AllowAll()))
    car = node.endpoint_of("car", 1)
    assert car is not None
    result, _ = await client.read([im.AttributePath(car, DEM, FORECAST)])
    forecast = result.values[(car, DEM, FORECAST)]
    assert forecast[1] is None and forecast[END] - forecast[START] == 4892  # pending; 10 kWh at 7.36 kW

    status = await client.invoke(car, DEM, START_TIME_ADJUST, {0: forecast[START] + 600, 1: 1})
    assert isinstance(status, im.CommandStatus) and status.status == Status.SUCCESS
    result, _ = await client.read([im.AttributePath(car, DEM, FORECAST)])
    shifted = result.values[(car, DEM, FORECAST)]
    assert shifted[START] == forecast[START] + 600 and shifted[REASON] == 2  # GridOptimization

    refused = await client.invoke(car, DEM, START_TIME_ADJUST, {0: forecast[LATEST_END], 1: 1})
    assert isinstance(refused, im.CommandStatus) and refused.status == Status.CONSTRAINT_ERROR
