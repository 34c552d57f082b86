"""Golden bytes of the session layer's wire: PASE and CASE handshakes (full and resumed) and the datagrams two
session managers exchange, all from fixed randoms, keys and deterministic ECDSA signatures.

Every payload of the pure state machines (:mod:`bridge.matter.session.pase`, :mod:`bridge.matter.session.case`)
and every datagram the session layer puts on the wire (message counters, exchange ids, acks — piggybacked and
standalone — encryption) is compared with ``wire_golden.json``: a refactoring of the session layer or of the
handshake messages' codec must leave all of them byte-identical. Regenerate (only for an intended wire change)
with ``python -m tests.matter_protocol.test_wire_golden``.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from bridge.matter.codec import tlv
from bridge.matter.codec.message import ProtocolId
from bridge.matter.codec.persistence import StateStore
from bridge.matter.crypto import certificates as certs
from bridge.matter.crypto.certificates import DNAttribute, IssueRequest
from bridge.matter.crypto.crypto import der_to_raw_signature, load_private_key, public_key_bytes
from bridge.matter.crypto.fabric_keys import compressed_fabric_id, operational_group_key
from bridge.matter.crypto.spake2p import compute_verifier
from bridge.matter.session import case
from bridge.matter.session.case import CaseFabric, CaseInitiator, CaseResponder, ResumptionRecord
from bridge.matter.session.handshake import HandshakeServer, PaseVerifier
from bridge.matter.session.pase import PaseInitiator, PaseResponder
from bridge.matter.session.resumption_store import ResumptionStore
from bridge.matter.session.secure_channel import Opcode, SessionParameters
from bridge.matter.session.sessions import SecureSession, SecureSessionKeys, SessionManager
from tests.matter_bridge.stepped_clock import SteppedClock, settle

GOLDEN = Path(__file__).with_name("wire_golden.json")
PASSCODE, SALT, ITERATIONS = 20202021, bytes(range(16, 48)), 1000
FABRIC_ID, DEVICE_NODE, CONTROLLER_NODE = 0x2906C908D115D362, 0x55, 0x1
DEVICE_ADDRESS, CONTROLLER_ADDRESS = ("fd00::55", 5540, 0, 0), ("fd00::1", 5541, 0, 0)
PARAMETERS = SessionParameters(
    idle_interval_ms=500,
    active_interval_ms=300,
    active_threshold_ms=4000,
    data_model_revision=17,
    interaction_model_revision=11,
    specification_version=0x01030000,
    max_paths_per_invoke=1,
)


def _key(n: int) -> Any:
    return load_private_key((0x1000 + n).to_bytes(32, "big"))


@contextmanager
def _deterministic(seed: int) -> Iterator[None]:
    """Every random the session layer draws comes from one seeded PRNG; certificates and CASE sign per RFC 6979."""
    rng = random.Random(seed)

    def token_bytes(n: int = 32) -> bytes:
        return rng.randbytes(n)

    def generate_private_key(curve: ec.EllipticCurve, backend: Any = None) -> ec.EllipticCurvePrivateKey:
        return ec.derive_private_key(rng.randrange(1, 2**255), curve)

    stand_ins: list[tuple[object, str, Callable[..., Any]]] = [
        (secrets, "randbits", rng.getrandbits),
        (secrets, "token_bytes", token_bytes),
        (secrets, "randbelow", rng.randrange),
        (ec, "generate_private_key", generate_private_key),
        (certs, "sign", _sign_rfc6979),
        (case, "sign", _sign_rfc6979),
    ]
    with ExitStack() as patches:
        for module, name, stand_in in stand_ins:
            patches.enter_context(mock.patch.object(module, name, stand_in))
        yield


def _sign_rfc6979(key: Any, message: bytes) -> bytes:
    """:func:`bridge.matter.crypto.crypto.sign` with deterministic nonces."""
    return der_to_raw_signature(key.sign(message, ec.ECDSA(hashes.SHA256(), deterministic_signing=True)))


def _fabric(root: Any, ipk: bytes, rcac: bytes, node_id: int, key: Any, serial: int) -> CaseFabric:
    root_dn = certs.decode_tlv(rcac).subject
    noc = certs.issue(
        IssueRequest(
            [(DNAttribute.NODE_ID, node_id), (DNAttribute.FABRIC_ID, FABRIC_ID)],
            public_key_bytes(key),
            root_dn,
            root,
            is_ca=False,
            serial=bytes([serial] * 8),
        )
    )
    return CaseFabric(FABRIC_ID, node_id, public_key_bytes(root), rcac, certs.encode_tlv(noc), None, key, ipk)


def _fabrics() -> tuple[CaseFabric, CaseFabric]:
    """(device member, controller member) of one fabric with fixed keys and serials."""
    root = _key(1)
    dn = [(DNAttribute.RCAC_ID, 1), (DNAttribute.FABRIC_ID, FABRIC_ID)]
    rcac = certs.encode_tlv(
        certs.issue(IssueRequest(dn, public_key_bytes(root), dn, root, is_ca=True, serial=bytes([1] * 8)))
    )
    ipk = operational_group_key(b"temporary ipk 01", compressed_fabric_id(public_key_bytes(root), FABRIC_ID))
    return (_fabric(root, ipk, rcac, DEVICE_NODE, _key(2), 2), _fabric(root, ipk, rcac, CONTROLLER_NODE, _key(3), 3))


# ------------------------------------------------------------------------------ the pure state machines
def _pase_messages() -> dict[str, str]:
    w0, L = compute_verifier(PASSCODE, SALT, ITERATIONS)
    responder = PaseResponder(
        w0=w0,
        L=L,
        salt=SALT,
        iterations=ITERATIONS,
        local_session_id=0x2222,
        local_parameters=PARAMETERS,
        responder_random=bytes([0xB0] * 32),
        spake_y=0x1234567,
    )
    initiator = PaseInitiator(
        passcode=PASSCODE, local_session_id=0x1111, initiator_random=bytes([0xA0] * 32), spake_x=0x7654321
    )
    out: dict[str, str] = {}
    out["pbkdf_param_request"] = (request := initiator.start()).hex()
    out["pbkdf_param_response"] = (response := responder.handle_pbkdf_param_request(request)).hex()
    out["pake1"] = (pake1 := initiator.handle_pbkdf_param_response(response)).hex()
    out["pake2"] = (pake2 := responder.handle_pake1(pake1)).hex()
    out["pake3"] = (pake3 := initiator.handle_pake2(pake2)).hex()
    out["status"] = (status := responder.handle_pake3(pake3)).hex()
    result = initiator.handle_status_report(status)
    assert responder.result is not None and responder.result.keys == result.keys
    out["keys"] = (result.keys.i2r_key + result.keys.r2i_key + result.keys.attestation_challenge).hex()
    out["peer_parameters"] = repr(responder.result.peer_parameters)
    # A commissioner that already has the PBKDF parameters: the response leaves them out.
    known = tlv.encode({1: bytes([0xA1] * 32), 2: 0x1112, 3: 0, 4: True})
    second = PaseResponder(
        w0=w0,
        L=L,
        salt=SALT,
        iterations=ITERATIONS,
        local_session_id=0x2223,
        responder_random=bytes([0xB1] * 32),
        spake_y=0x1234568,
    )
    out["pbkdf_param_response_known"] = second.handle_pbkdf_param_request(known).hex()
    return out


def _case_messages() -> dict[str, str]:
    device, controller = _fabrics()
    out: dict[str, str] = {}
    responder = CaseResponder(
        fabrics=[device],
        local_session_id=0x3333,
        local_parameters=PARAMETERS,
        ephemeral_key=_key(10),
        responder_random=bytes([0xD0] * 32),
        new_resumption_id=bytes([0xE0] * 16),
    )
    initiator = CaseInitiator(
        fabric=controller,
        peer_node_id=DEVICE_NODE,
        local_session_id=0x4444,
        local_parameters=PARAMETERS,
        ephemeral_key=_key(11),
        initiator_random=bytes([0xC0] * 32),
    )
    out["sigma1"] = (sigma1 := initiator.start()).hex()
    out["sigma2"] = (sigma2 := responder.handle_sigma1(sigma1)).hex()
    out["sigma3"] = (sigma3 := initiator.handle_sigma2(sigma2)).hex()
    out["status"] = (status := responder.handle_sigma3(sigma3)).hex()
    result = initiator.handle_status_report(status)
    assert responder.result is not None and responder.result.keys == result.keys
    out["keys"] = (result.keys.i2r_key + result.keys.r2i_key + result.keys.attestation_challenge).hex()
    out["peer"] = repr(
        (
            responder.result.peer_node_id,
            responder.result.peer_cats,
            responder.result.peer_parameters,
            result.peer_node_id,
            result.peer_parameters,
        )
    )
    record = result.resumption
    theirs = responder.result.resumption
    assert record is not None and theirs is not None and theirs.resumption_id == record.resumption_id
    out["resumption_records"] = repr((record, theirs))
    # ... and resumed from that record, in one round trip.
    records: dict[bytes, ResumptionRecord] = {record.resumption_id: record}
    resumer = CaseResponder(
        fabrics=[device],
        local_session_id=0x3334,
        local_parameters=PARAMETERS,
        ephemeral_key=_key(12),
        responder_random=bytes([0xD1] * 32),
        find_resumption=records.get,
        new_resumption_id=bytes([0xE1] * 16),
    )
    again = CaseInitiator(
        fabric=controller,
        peer_node_id=DEVICE_NODE,
        local_session_id=0x4445,
        local_parameters=PARAMETERS,
        ephemeral_key=_key(13),
        initiator_random=bytes([0xC1] * 32),
        resume_with=record,
    )
    out["sigma1_resume"] = (sigma1 := again.start()).hex()
    out["sigma2_resume"] = (sigma2_resume := resumer.handle_sigma1(sigma1)).hex()
    status, resumed = again.handle_sigma2_resume(sigma2_resume)
    out["resume_status"] = status.hex()
    resumer.handle_resume_status(status)
    assert resumer.result is not None and resumer.result.keys == resumed.keys
    out["resumed_keys"] = (resumed.keys.i2r_key + resumed.keys.r2i_key + resumed.keys.attestation_challenge).hex()
    out["resumed_record"] = repr(resumed.resumption)
    return out


# ------------------------------------------------------------------------------ the session layer's datagrams
class _Wire:
    """Two session managers on one stepped clock; datagrams are delivered in order and recorded."""

    def __init__(self) -> None:
        self.clock = SteppedClock()
        self.queue: list[tuple[str, bytes]] = []
        self.log: list[str] = []
        self.device = SessionManager(lambda data, addr: self.queue.append(("device", data)), clock=self.clock)
        self.controller = SessionManager(lambda data, addr: self.queue.append(("controller", data)), clock=self.clock)

    async def pump(self, until: asyncio.Future[Any] | None = None) -> None:
        while True:
            await settle()
            if not self.queue:
                if until is None or until.done():
                    return
                self.clock.advance(0.01)
                continue
            sender, data = self.queue.pop(0)
            self.log.append(f"{sender}: {data.hex()}")
            if sender == "device":
                self.controller.on_datagram(data, DEVICE_ADDRESS)
            else:
                self.device.on_datagram(data, CONTROLLER_ADDRESS)

    async def run(self, coro: Any) -> Any:
        task = asyncio.ensure_future(coro)
        await self.pump(task)
        return task.result()

    async def acks(self) -> None:
        """Let standalone-ack timers fire and deliver what they send."""
        self.clock.advance(0.25)
        await self.pump()


async def _pase_over_the_wire(wire: _Wire) -> SecureSession:
    """The controller side of PASE, driven by hand over an initiated unsecured session."""
    initiator = PaseInitiator(
        passcode=PASSCODE, local_session_id=wire.controller.allocate_session_id(), local_parameters=PARAMETERS
    )
    unsecured = wire.controller.initiate_unsecured(DEVICE_ADDRESS)
    exchange = unsecured.open_exchange(ProtocolId.SECURE_CHANNEL)
    response = await exchange.send(Opcode.PBKDF_PARAM_REQUEST, initiator.start(), expect_reply=True)
    assert response is not None
    pake2 = await exchange.send(
        Opcode.PASE_PAKE1, initiator.handle_pbkdf_param_response(response[1]), expect_reply=True
    )
    assert pake2 is not None
    status = await exchange.send(Opcode.PASE_PAKE3, initiator.handle_pake2(pake2[1]), expect_reply=True)
    assert status is not None
    result = initiator.handle_status_report(status[1])
    await exchange.close()
    unsecured.close()
    session = SecureSession(
        wire.controller,
        DEVICE_ADDRESS,
        kind="pase",
        local_session_id=result.local_session_id,
        peer_session_id=result.peer_session_id,
        keys=SecureSessionKeys(result.keys.i2r_key, result.keys.r2i_key, result.keys.attestation_challenge),
        peer_parameters=result.peer_parameters,
    )
    wire.controller.add_secure_session(session)
    return session


def _answer(opcode: int, payload: bytes) -> Callable[[Any, int, bytes], Any]:
    async def handler(exchange: Any, request_opcode: int, request: bytes) -> None:
        await exchange.send(opcode, payload + request[:4], expect_reply=False)

    return handler


async def _wire_datagrams() -> list[str]:
    wire = _Wire()
    device_fabric, controller_fabric = _fabrics()
    w0, L = compute_verifier(PASSCODE, SALT, ITERATIONS)
    stores = [ResumptionStore(StateStore(Path(tempfile.mkdtemp(prefix="hf-golden-")))) for _ in range(2)]
    HandshakeServer(
        wire.device,
        pase_verifier=lambda: PaseVerifier(w0, L, SALT, ITERATIONS),
        case_fabrics=lambda: [(1, device_fabric)],
        resumptions=stores[0],
    )
    controller = HandshakeServer(
        wire.controller,
        pase_verifier=lambda: None,
        case_fabrics=lambda: [(2, controller_fabric)],
        resumptions=stores[1],
    )
    wire.device.routes.register(
        ProtocolId.INTERACTION_MODEL, None, _answer(0x05, b"\x15\x29\x04\x18"), session="secure"
    )
    wire.controller.routes.register(
        ProtocolId.INTERACTION_MODEL, None, _answer(0x01, b"\x15\x24\x00\x00\x18"), session="secure"
    )

    async def request(session: SecureSession, opcode: int, payload: bytes) -> Any:
        exchange = session.open_exchange()
        reply = await exchange.send(opcode, payload, expect_reply=True)
        await exchange.close()
        return reply

    pase = await wire.run(_pase_over_the_wire(wire))
    await wire.acks()
    assert await wire.run(request(pase, 0x02, b"\x15\x36\x00\x17\x24\x02\x06\x18\x18\x18")) is not None
    await wire.acks()
    case_session = await wire.run(controller.connect_case(DEVICE_ADDRESS, 2, controller_fabric, DEVICE_NODE))
    await wire.acks()
    assert await wire.run(request(case_session, 0x02, b"\x15\x36\x00\x17\x24\x03\x08\x18\x18\x18")) is not None
    await wire.acks()
    theirs = wire.device.sessions(kind="case")[0]
    assert await wire.run(request(theirs, 0x05, b"\x15\x26\x00\x07\x00\x00\x00\x18")) is not None  # device-initiated
    await wire.acks()
    resumed = await wire.run(controller.connect_case(DEVICE_ADDRESS, 2, controller_fabric, DEVICE_NODE))
    await wire.acks()
    assert resumed.local_session_id != case_session.local_session_id
    await wire.run(wire.controller.send_close_session(case_session))
    await wire.acks()
    wire.device.close_all()
    wire.controller.close_all()
    return wire.log


def current() -> dict[str, Any]:
    with _deterministic(0x601DE2):
        pase, case = _pase_messages(), _case_messages()
        datagrams = asyncio.run(_wire_datagrams())
    return {"pase": pase, "case": case, "datagrams": datagrams}


def test_handshakes_and_datagrams_match_the_golden_file() -> None:
    golden = json.loads(GOLDEN.read_text())
    now = current()
    for part in ("pase", "case"):
        assert now[part] == golden[part], part
    assert len(now["datagrams"]) == len(golden["datagrams"])
    for index, (got, want) in enumerate(zip(now["datagrams"], golden["datagrams"], strict=True)):
        assert got == want, f"datagram {index}"


def test_the_golden_run_is_deterministic() -> None:
    """Two runs give the same bytes (else the golden file would pin nothing)."""
    assert current() == current()


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(current(), indent=1) + "\n")
