"""Fuzz: thousands of random and mutated IM payloads under every opcode — no exception, no state change.

The subject may only view (a controller without Operate), so even a mutation that happens to form a
valid write or invoke must be refused; every payload goes through the full decode and dispatch path.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time

import pytest
from chip.tlv import uint

from bridge.matter.im import im_messages as im
from bridge.matter.im.data_model import Privilege
from bridge.matter.im.interaction import InteractionModel
from bridge.matter.node.bridge_node import BridgeNode
from bridge.matter.session.context import RequestContext
from tests.emulator.helpers import fabric
from tests.matter_bridge.im_fakes import FakeExchange, FakeSession

P = im.AttributePath
CASES = 5000
TIME_BUDGET_S = 20.0


class ViewOnly:
    def check(self, ctx: RequestContext, endpoint: int, cluster_id: int, privilege: Privilege) -> bool:
        return privilege == "view"


def _seeds(lamp: int) -> list[tuple[int, bytes]]:
    write = im.WriteRequest((im.AttributeData(P(lamp, 8, 0x11), uint(10)), im.AttributeData(P(lamp, 6, 0x4001), 5)))
    invoke = im.InvokeRequest((im.CommandData(im.CommandPath(lamp, 6, 1), {}),))
    level = im.InvokeRequest(
        (im.CommandData(im.CommandPath(lamp, 8, 0), {0: uint(5), 1: None, 2: uint(0), 3: uint(0)}),)
    )
    return [
        (
            im.Opcode.READ_REQUEST,
            im.encode(
                im.ReadRequest(
                    (P(), P(lamp, 6, 0)),
                    (im.EventPath(),),
                    (im.EventFilter(3),),
                    False,
                    (im.DataVersionFilter(lamp, 6, 1),),
                )
            ),
        ),
        (im.Opcode.SUBSCRIBE_REQUEST, im.encode(im.SubscribeRequest(True, 0, 10, (P(lamp),)))),
        (im.Opcode.WRITE_REQUEST, im.encode(write)),
        (im.Opcode.INVOKE_REQUEST, im.encode(invoke)),
        (im.Opcode.INVOKE_REQUEST, im.encode(level)),
        (im.Opcode.TIMED_REQUEST, im.encode(im.TimedRequest(100))),
        (im.Opcode.STATUS_RESPONSE, im.encode(im.StatusResponse(0))),
    ]


def _mutate(rng: random.Random, data: bytes) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        choice = rng.random()
        pos = rng.randrange(len(buf) + 1)
        if choice < 0.4 and buf:
            buf[min(pos, len(buf) - 1)] = rng.randrange(256)
        elif choice < 0.6 and buf:
            del buf[min(pos, len(buf) - 1)]
        elif choice < 0.8:
            buf.insert(pos, rng.randrange(256))
        elif buf:
            buf = buf[:pos]  # truncate
    return bytes(buf)


@pytest.fixture
def quiet_errors(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.ERROR, logger="bridge.matter")
    return caplog


def test_fuzzed_im_payloads_cause_no_exception_and_no_state_change(quiet_errors: pytest.LogCaptureFixture) -> None:
    home = fabric([("lamp", "dimmable_light", "r"), ("thermo", "thermostat", "r"), ("washer", "laundry_washer", "r")])
    node = BridgeNode(home)
    lamp = node.endpoint_of("lamp", 1)
    assert lamp is not None
    before = home.snapshot()

    async def run() -> int:
        model = InteractionModel(node, ViewOnly())
        session = FakeSession()
        rng = random.Random(20260)
        seeds = _seeds(lamp)
        started = time.monotonic()
        done = 0
        while done < CASES:
            done += 1
            if rng.random() < 0.2:
                opcode = rng.choice([*im.Opcode, 0x00, 0x0B, 0xFF])
                payload = rng.randbytes(rng.randrange(64))
            else:
                opcode, seed = rng.choice(seeds)
                payload = _mutate(rng, seed)
                if rng.random() < 0.1:
                    opcode = rng.choice(list(im.Opcode))
            follow_up = [
                (rng.choice([im.Opcode.WRITE_REQUEST, im.Opcode.INVOKE_REQUEST]), _mutate(rng, rng.choice(seeds)[1]))
            ]
            exchange = FakeExchange(session.context, follow_up)
            await model.handle_exchange(exchange, opcode, payload)
            if time.monotonic() - started > TIME_BUDGET_S:
                break
        await model.close()
        return done

    done = asyncio.run(asyncio.wait_for(run(), 60))
    assert done >= 1000
    errors = [r for r in quiet_errors.records if r.levelno >= logging.ERROR]
    assert not errors, errors[0].getMessage()
    after = home.snapshot()
    assert after == before
