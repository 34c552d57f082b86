"""Random and mutated inputs: every decoder raises only its own documented error type."""

from __future__ import annotations

import contextlib
import random

import pytest

from bridge.matter.codec import tlv
from bridge.matter.codec.message import MessageError, MessageHeader, ProtocolHeader
from bridge.matter.crypto import certificates as certs
from bridge.matter.crypto.certificates import CertificateError
from bridge.matter.crypto.spake2p import compute_verifier
from bridge.matter.session.case import CaseError, CaseResponder
from bridge.matter.session.pase import PaseError, PaseInitiator, PaseResponder
from tests.matter_protocol import vectors_certificates as vc
from tests.matter_protocol import vectors_spake2p as v

SEEDS = [tlv.encode({1: b"\x01" * 32, 2: 7, 3: 0, 4: False, 5: {1: 500}}), vc.NODE02_01_CHIP, vc.ROOT03_CHIP]


def _mutations(count: int, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        if i % 3 == 0:
            out.append(rng.randbytes(rng.randrange(0, 80)))
            continue
        data = bytearray(rng.choice(SEEDS))
        for _ in range(rng.randrange(1, 4)):
            action = rng.randrange(3)
            pos = rng.randrange(len(data)) if data else 0
            if action == 0 and data:
                data[pos] = rng.randrange(256)
            elif action == 1:
                del data[pos : pos + rng.randrange(1, 8)]
            else:
                data[pos:pos] = rng.randbytes(rng.randrange(1, 8))
        out.append(bytes(data))
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_decoders_raise_only_their_own_errors(seed: int) -> None:
    w0, big_l = compute_verifier(v.PASE_SET01_PASSCODE, v.PASE_SET01_SALT, v.PASE_SET01_ITERATIONS)
    for data in _mutations(1500, seed):
        for decode, errors in (
            (tlv.decode, (tlv.TLVError,)),
            (MessageHeader.decode, (MessageError,)),
            (ProtocolHeader.decode, (MessageError,)),
            (certs.decode_tlv, (CertificateError,)),
            (certs.from_der, (CertificateError,)),
        ):
            with contextlib.suppress(*errors):
                decode(data)
        responder = PaseResponder(w0=w0, L=big_l, salt=v.PASE_SET01_SALT, iterations=1000, local_session_id=1)
        with contextlib.suppress(PaseError):
            responder.handle_pbkdf_param_request(data)
        with contextlib.suppress(CaseError):
            CaseResponder(fabrics=[], local_session_id=1).handle_sigma1(data)


def test_mutated_der_certificates_never_crash() -> None:
    rng = random.Random(3)
    for _ in range(300):
        data = bytearray(vc.NODE02_01_DER)
        data[rng.randrange(len(data))] = rng.randrange(256)
        with contextlib.suppress(CertificateError):
            certs.from_der(bytes(data))


def test_pase_responder_survives_garbage_at_every_step() -> None:
    w0, big_l = compute_verifier(v.PASE_SET01_PASSCODE, v.PASE_SET01_SALT, v.PASE_SET01_ITERATIONS)
    for garbage in _mutations(200, 4):
        device = PaseResponder(w0=w0, L=big_l, salt=v.PASE_SET01_SALT, iterations=1000, local_session_id=1)
        device.handle_pbkdf_param_request(PaseInitiator(passcode=1, local_session_id=2).start())
        for step in (device.handle_pake1, device.handle_pake3):
            with contextlib.suppress(PaseError):
                step(garbage)
