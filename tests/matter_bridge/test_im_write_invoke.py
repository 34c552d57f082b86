"""IM Write and Invoke through the bridge: the fabric changes, refusals map to the right IM status."""

from __future__ import annotations

from typing import Any

from chip.tlv import uint

from bridge.matter.im import im_messages as im
from bridge.matter.im.data_model import AllowAll, Privilege
from bridge.matter.im.interaction import InteractionModel
from bridge.matter.node.bridge_node import BridgeNode
from bridge.matter.session.context import RequestContext
from clusters import ClusterServer, Status
from tests.emulator.helpers import fabric
from tests.matter_bridge._async import run_async
from tests.matter_bridge.im_fakes import ImClient

P = im.AttributePath
ON_OFF, LEVEL, THERMOSTAT, FAN, OPSTATE, LOCK, WASHER_MODE, USER_LABEL = (
    0x06,
    0x08,
    0x201,
    0x202,
    0x60,
    0x101,
    0x51,
    0x41,
)


class UserLabelServer(ClusterServer):
    """A writable list attribute on endpoint 0 (list writes with ListIndex null appends)."""

    cluster_name = "UserLabel"
    revision = 1
    defaults = {"LabelList": []}


class ViewOnly:
    def check(self, ctx: RequestContext, endpoint: int, cluster_id: int, privilege: Privilege) -> bool:
        return privilege == "view"


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:  # pragma: no cover - not used by these tests
        self.t += seconds


def _setup(access: Any = None, clock: Any = None) -> tuple[Any, BridgeNode, ImClient]:
    home = fabric(
        [
            ("lamp", "dimmable_light", "r"),
            ("thermo", "thermostat", "r"),
            ("fan", "fan", "r"),
            ("washer", "laundry_washer", "r"),
            ("lock", "door_lock", "r"),
        ]
    )
    node = BridgeNode(home, [UserLabelServer()])
    return home, node, ImClient(InteractionModel(node, access or AllowAll(), clock=clock))


def _ep(node: BridgeNode, device: str) -> int:
    number = node.endpoint_of(device, 1)
    assert number is not None
    return number


@run_async
async def test_on_off_and_level_control_commands_change_the_fabric() -> None:
    home, node, client = _setup()
    lamp = _ep(node, "lamp")
    response = await client.invoke(lamp, ON_OFF, 1)  # On
    assert response == im.CommandStatus(im.CommandPath(lamp, ON_OFF, 1), Status.SUCCESS)
    assert home.read("lamp", 1, "OnOff", "OnOff") is True
    await client.invoke(lamp, ON_OFF, 2)  # Toggle
    assert home.read("lamp", 1, "OnOff", "OnOff") is False
    await client.invoke(lamp, ON_OFF, 1)
    response = await client.invoke(lamp, LEVEL, 0, {0: uint(128), 1: uint(0), 2: uint(0), 3: uint(0)})
    assert isinstance(response, im.CommandStatus) and response.status == Status.SUCCESS
    home.advance(5)
    assert home.read("lamp", 1, "LevelControl", "CurrentLevel") == 128


@run_async
async def test_thermostat_setpoint_and_fan_writes() -> None:
    home, node, client = _setup()
    thermo, fan = _ep(node, "thermo"), _ep(node, "fan")
    statuses = await client.write([im.AttributeData(P(thermo, THERMOSTAT, 0x12), 2150)])
    assert statuses == [im.AttributeStatus(P(thermo, THERMOSTAT, 0x12), Status.SUCCESS)]
    assert home.read("thermo", 1, "Thermostat", "OccupiedHeatingSetpoint") == 2150
    statuses = await client.write([im.AttributeData(P(thermo, THERMOSTAT, 0x12), 9000)])
    assert statuses[0].status == Status.CONSTRAINT_ERROR
    assert home.read("thermo", 1, "Thermostat", "OccupiedHeatingSetpoint") == 2150
    # The fan is off: its power rule refuses the write, as the device would.
    statuses = await client.write([im.AttributeData(P(fan, FAN, 0), uint(3))])
    assert statuses[0].status == Status.INVALID_IN_STATE
    await client.invoke(fan, ON_OFF, 1)
    statuses = await client.write([im.AttributeData(P(fan, FAN, 0), uint(3)), im.AttributeData(P(fan, FAN, 2), None)])
    assert statuses[0].status == Status.SUCCESS
    assert home.read("fan", 1, "FanControl", "FanMode") == 3


@run_async
async def test_operational_state_start_needs_power_and_answers_with_its_response() -> None:
    home, node, client = _setup()
    washer = _ep(node, "washer")
    # Start while off: refused in band (errorStateID 1 UnableToStartOrResume) with IM status SUCCESS.
    refused = await client.invoke(washer, OPSTATE, 2)
    assert refused == im.CommandData(im.CommandPath(washer, OPSTATE, 4), {0: {0: 1}})
    assert home.read("washer", 1, "OperationalState", "OperationalState") == 0
    await client.invoke(washer, ON_OFF, 1)
    started = await client.invoke(washer, OPSTATE, 2)
    assert started == im.CommandData(im.CommandPath(washer, OPSTATE, 4), {0: {0: 0}})  # OperationalCommandResponse
    assert home.read("washer", 1, "OperationalState", "OperationalState") == 1  # Running


@run_async
async def test_in_band_failures_are_successful_responses_with_the_error_payload() -> None:
    _, node, client = _setup()
    washer = _ep(node, "washer")
    await client.invoke(washer, ON_OFF, 1)
    paused = await client.invoke(washer, OPSTATE, 0)  # Pause with nothing running: errorStateID 3
    assert paused == im.CommandData(im.CommandPath(washer, OPSTATE, 4), {0: {0: 3}})
    mode = await client.invoke(washer, WASHER_MODE, 0, {0: uint(99)})  # ChangeToMode to a missing mode
    assert isinstance(mode, im.CommandData) and mode.path.command == 1 and mode.fields[0] == 1


@run_async
async def test_refusals_map_to_im_statuses() -> None:
    home, node, client = _setup()
    lamp = _ep(node, "lamp")
    assert (await client.invoke(999, ON_OFF, 1)).status == Status.UNSUPPORTED_ENDPOINT
    assert (await client.invoke(lamp, 0x0300, 1)).status == Status.UNSUPPORTED_CLUSTER
    assert (await client.invoke(lamp, ON_OFF, 0x77)).status == Status.UNSUPPORTED_COMMAND
    bad_fields = await client.invoke(lamp, LEVEL, 0, {0: "high", 2: uint(0), 3: uint(0)})
    assert bad_fields.status == Status.INVALID_COMMAND
    missing = await client.invoke(lamp, LEVEL, 0, {})
    assert missing.status == Status.INVALID_COMMAND
    not_struct = await client.invoke(lamp, ON_OFF, 1, [uint(1)])
    assert not_struct.status == Status.INVALID_COMMAND
    statuses = await client.write(
        [
            im.AttributeData(P(lamp, ON_OFF, 0), True),  # read-only
            im.AttributeData(P(lamp, ON_OFF, 0x7777), True),
            im.AttributeData(P(lamp, LEVEL, 0x11), "bright"),  # OnLevel with a string
            im.AttributeData(P(lamp, LEVEL, 0x11), uint(10), data_version=1234),
            im.AttributeData(P(lamp, ON_OFF), True),
        ]
    )
    assert [s.status for s in statuses] == [
        Status.UNSUPPORTED_WRITE,
        Status.UNSUPPORTED_ATTRIBUTE,
        Status.INVALID_DATA_TYPE,
        Status.DATA_VERSION_MISMATCH,
        Status.INVALID_ACTION,
    ]
    assert home.read("lamp", 1, "OnOff", "OnOff") is False


@run_async
async def test_acl_denies_operate_everywhere() -> None:
    home, node, client = _setup(ViewOnly())
    lamp, thermo = _ep(node, "lamp"), _ep(node, "thermo")
    assert (await client.invoke(lamp, ON_OFF, 1)).status == Status.UNSUPPORTED_ACCESS
    statuses = await client.write([im.AttributeData(P(thermo, THERMOSTAT, 0x12), 2150)])
    assert statuses[0].status == Status.UNSUPPORTED_ACCESS
    assert home.read("lamp", 1, "OnOff", "OnOff") is False
    assert home.read("thermo", 1, "Thermostat", "OccupiedHeatingSetpoint") == 2000


@run_async
async def test_timed_invoke_required_and_honoured() -> None:
    home, node, client = _setup()
    lock = _ep(node, "lock")
    untimed = await client.invoke(lock, LOCK, 0, {})
    assert untimed.status == Status.NEEDS_TIMED_INTERACTION
    timed = await client.invoke(lock, LOCK, 0, {}, timed=True)
    assert timed == im.CommandStatus(im.CommandPath(lock, LOCK, 0), Status.SUCCESS)
    assert home.read("lock", 1, "DoorLock", "LockState") == 1  # Locked


@run_async
async def test_timed_flag_mismatch_and_timeout() -> None:
    clock = FakeClock()
    home, node, client = _setup(clock=clock)
    lamp = _ep(node, "lamp")
    flagged = im.encode(im.InvokeRequest((im.CommandData(im.CommandPath(lamp, ON_OFF, 1), {}),), timed_request=True))
    exchange = await client.request(im.Opcode.INVOKE_REQUEST, flagged)  # TimedRequest flag without a TimedRequest
    assert [m.status for m in exchange.messages(im.Opcode.STATUS_RESPONSE)] == [Status.TIMED_REQUEST_MISMATCH]
    unflagged = im.encode(im.InvokeRequest((im.CommandData(im.CommandPath(lamp, ON_OFF, 1), {}),)))
    exchange = await client.request(
        im.Opcode.TIMED_REQUEST, im.encode(im.TimedRequest(500)), [(im.Opcode.INVOKE_REQUEST, unflagged)]
    )
    assert [m.status for m in exchange.messages(im.Opcode.STATUS_RESPONSE)] == [0, Status.TIMED_REQUEST_MISMATCH]

    class LateExchange(type(exchange)):  # type: ignore[misc]
        async def send(self, opcode: int, payload: bytes, *, expect_reply: bool) -> Any:
            reply = await super().send(opcode, payload, expect_reply=expect_reply)
            clock.t += 1.0  # the write arrives 1 s after a 500 ms window
            return reply

    late = LateExchange(client.session.context, [(im.Opcode.INVOKE_REQUEST, flagged)])
    await client.model.handle_exchange(late, im.Opcode.TIMED_REQUEST, im.encode(im.TimedRequest(500)))
    assert [m.status for m in late.messages(im.Opcode.STATUS_RESPONSE)] == [0, Status.TIMEOUT]
    assert home.read("lamp", 1, "OnOff", "OnOff") is False


@run_async
async def test_timed_write() -> None:
    home, node, client = _setup()
    thermo = _ep(node, "thermo")
    write = im.encode(im.WriteRequest((im.AttributeData(P(thermo, THERMOSTAT, 0x12), 1900),), timed_request=True))
    exchange = await client.request(
        im.Opcode.TIMED_REQUEST, im.encode(im.TimedRequest(1000)), [(im.Opcode.WRITE_REQUEST, write)]
    )
    (response,) = exchange.messages(im.Opcode.WRITE_RESPONSE)
    assert response.statuses[0].status == Status.SUCCESS
    assert home.read("thermo", 1, "Thermostat", "OccupiedHeatingSetpoint") == 1900


@run_async
async def test_list_writes_with_null_list_index_appends_across_chunks() -> None:
    _, node, client = _setup()
    path = P(0, USER_LABEL, 0)
    first = im.encode(
        im.WriteRequest(
            (
                im.AttributeData(path, []),
                im.AttributeData(im.AttributePath(0, USER_LABEL, 0, list_append=True), {0: "room", 1: "kitchen"}),
            ),
            more_chunked=True,
        )
    )
    second = im.encode(
        im.WriteRequest((im.AttributeData(im.AttributePath(0, USER_LABEL, 0, list_append=True), {0: "floor", 1: "1"}),))
    )
    exchange = await client.request(im.Opcode.WRITE_REQUEST, first, [(im.Opcode.WRITE_REQUEST, second)])
    responses = exchange.messages(im.Opcode.WRITE_RESPONSE)
    assert len(responses) == 2
    assert all(s.status == Status.SUCCESS for r in responses for s in r.statuses)
    assert node.read(0, USER_LABEL, "LabelList") == [
        {"label": "room", "value": "kitchen"},
        {"label": "floor", "value": "1"},
    ]


@run_async
async def test_suppressed_invoke_response_and_multi_command_refusal() -> None:
    home, node, client = _setup()
    lamp = _ep(node, "lamp")
    quiet = im.encode(im.InvokeRequest((im.CommandData(im.CommandPath(lamp, ON_OFF, 1), {}),), suppress_response=True))
    exchange = await client.request(im.Opcode.INVOKE_REQUEST, quiet)
    assert not exchange.sent and home.read("lamp", 1, "OnOff", "OnOff") is True
    two = im.encode(
        im.InvokeRequest(
            (im.CommandData(im.CommandPath(lamp, ON_OFF, 0), {}), im.CommandData(im.CommandPath(lamp, ON_OFF, 0), {}))
        )
    )
    exchange = await client.request(im.Opcode.INVOKE_REQUEST, two)
    assert [m.status for m in exchange.messages(im.Opcode.STATUS_RESPONSE)] == [Status.INVALID_ACTION]
    assert home.read("lamp", 1, "OnOff", "OnOff") is True
