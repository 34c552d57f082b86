"""PASE state machines: our prover (commissioner) against our verifier (device), spec encodings,
and every failure path answering with the spec's StatusReport."""

from __future__ import annotations

import secrets

import pytest

from bridge.matter.codec import tlv
from bridge.matter.crypto.spake2p import compute_verifier
from bridge.matter.session.pase import (
    PaseError,
    PaseInitiator,
    PaseResponder,
    derive_session_keys,
    is_valid_passcode,
    pake_context,
)
from bridge.matter.session.secure_channel import GeneralCode, SecureChannelStatus, SessionParameters, StatusReport
from tests.matter_protocol import vectors_spake2p as v


def _responder(responder_random: bytes | None = None) -> PaseResponder:
    w0, big_l = compute_verifier(v.PASE_SET01_PASSCODE, v.PASE_SET01_SALT, v.PASE_SET01_ITERATIONS)
    return PaseResponder(
        w0=w0,
        L=big_l,
        salt=v.PASE_SET01_SALT,
        iterations=v.PASE_SET01_ITERATIONS,
        local_session_id=0x1234,
        local_parameters=SessionParameters(idle_interval_ms=500, active_interval_ms=300, active_threshold_ms=4000),
        responder_random=responder_random or secrets.token_bytes(32),
    )


def test_end_to_end_session_keys_agree() -> None:
    device = _responder()
    commissioner = PaseInitiator(
        passcode=v.PASE_SET01_PASSCODE,
        local_session_id=0x0BB8,
        local_parameters=SessionParameters(idle_interval_ms=5000, active_interval_ms=300),
    )
    response = device.handle_pbkdf_param_request(commissioner.start())
    pake2 = device.handle_pake1(commissioner.handle_pbkdf_param_response(response))
    status = device.handle_pake3(commissioner.handle_pake2(pake2))
    assert status == bytes.fromhex("0000000000000000")  # SUCCESS / secure channel / SessionEstablishmentSuccess
    ours = commissioner.handle_status_report(status)
    theirs = device.result
    assert theirs is not None
    assert ours.keys == theirs.keys
    assert len({ours.keys.i2r_key, ours.keys.r2i_key, ours.keys.attestation_challenge}) == 3
    assert (theirs.local_session_id, theirs.peer_session_id) == (0x1234, 0x0BB8)
    assert (ours.local_session_id, ours.peer_session_id) == (0x0BB8, 0x1234)
    assert theirs.peer_parameters.idle_interval_ms == 5000
    assert ours.peer_parameters == SessionParameters(500, 300, 4000)


def test_message_encodings_follow_the_spec() -> None:
    commissioner = PaseInitiator(passcode=v.PASE_SET01_PASSCODE, local_session_id=0x0BB8, initiator_random=b"\xaa" * 32)
    request = commissioner.start()
    # {1: random(32), 2: 0x0bb8, 3: passcodeId 0, 4: false, 5: {}}
    assert request == bytes.fromhex("15 3001 20" + "aa" * 32 + " 2502 b80b 2403 00 2804 3505 18 18".replace(" ", ""))
    device = _responder(responder_random=b"\xbb" * 32)
    response = device.handle_pbkdf_param_request(request)
    expected = (
        "15"
        "3001 20"
        + "aa" * 32  # initiatorRandom echoed
        + "3002 20"
        + "bb" * 32  # responderRandom
        + "2503 3412"  # responderSessionId 0x1234
        + "3504 2501 e803 3002 10"
        + v.PASE_SET01_SALT.hex()
        + "18"  # {iterations 1000, salt}
        + "3505 2501 f401 2502 2c01 2503 a00f 18"  # {SII 500, SAI 300, SAT 4000}
        "18"
    )
    assert response == bytes.fromhex(expected.replace(" ", ""))
    pake1 = commissioner.handle_pbkdf_param_response(response)
    assert pake1[:4] == bytes.fromhex("15300141") and pake1[-1] == 0x18 and len(pake1) == 4 + 65 + 1
    pake2 = tlv.decode(device.handle_pake1(pake1))
    assert len(pake2[1]) == 65 and len(pake2[2]) == 32
    # The SPAKE2+ context is the hash over both PBKDF payloads exactly as sent.
    assert device._verifier is not None and device._verifier.context == pake_context(request, response)


def test_omits_pbkdf_parameters_when_the_commissioner_has_them() -> None:
    request = tlv.encode({1: b"\x01" * 32, 2: 1, 3: 0, 4: True})
    response = tlv.decode(_responder().handle_pbkdf_param_request(request))
    assert 4 not in response and response[3] == 0x1234


def _failed_status(exc: pytest.ExceptionInfo[PaseError]) -> StatusReport:
    return StatusReport.decode(exc.value.status_report.encode())


def test_wrong_passcode_fails_at_pake3_with_invalid_parameter() -> None:
    device = _responder()
    attacker = PaseInitiator(passcode=12345679, local_session_id=1)
    response = device.handle_pbkdf_param_request(attacker.start())
    pake2 = tlv.decode(device.handle_pake1(attacker.handle_pbkdf_param_response(response)))
    with pytest.raises(PaseError) as failure:
        device.handle_pake3(tlv.encode({1: bytes(32)}))
    status = _failed_status(failure)
    assert (status.general_code, status.protocol_id, status.protocol_code) == (
        GeneralCode.FAILURE,
        0,
        SecureChannelStatus.INVALID_PARAMETER,
    )
    assert device.result is None and device.state.name == "FAILED"
    # The commissioner with the wrong passcode also rejects the device's confirmation.
    with pytest.raises(PaseError):
        attacker.handle_pake2(tlv.encode({1: pake2[1], 2: pake2[2]}))


@pytest.mark.parametrize(
    "request_payload",
    [
        b"\x15\x18",  # empty structure
        b"garbage",
        tlv.encode({1: b"\x01" * 31, 2: 1, 3: 0, 4: False}),  # random too short
        tlv.encode({1: b"\x01" * 32, 2: 0x10000, 3: 0, 4: False}),  # session id out of range
        tlv.encode({1: b"\x01" * 32, 2: 1, 3: 1, 4: False}),  # unknown passcode id
        tlv.encode({1: b"\x01" * 32, 2: 1, 3: 0, 4: 1}),  # hasPBKDFParameters not a bool
    ],
)
def test_malformed_pbkdf_request_is_refused(request_payload: bytes) -> None:
    device = _responder()
    with pytest.raises(PaseError):
        device.handle_pbkdf_param_request(request_payload)
    assert device.state.name == "FAILED"


def test_out_of_order_and_invalid_pake1() -> None:
    with pytest.raises(PaseError):
        _responder().handle_pake1(tlv.encode({1: b"\x04" * 65}))
    device = _responder()
    device.handle_pbkdf_param_request(PaseInitiator(passcode=v.PASE_SET01_PASSCODE, local_session_id=1).start())
    with pytest.raises(PaseError):
        device.handle_pake1(tlv.encode({1: b"\x04" + bytes(64)}))  # not a curve point


def test_passcode_rules_and_parameter_limits() -> None:
    assert is_valid_passcode(20202021)
    assert not any(is_valid_passcode(p) for p in (0, 11111111, 12345678, 87654321, 99999999, 100000000))
    with pytest.raises(ValueError):
        _responder().__class__(w0=b"", L=b"", salt=b"short", iterations=1000, local_session_id=1)
    with pytest.raises(ValueError):
        _responder().__class__(w0=b"", L=b"", salt=b"s" * 16, iterations=999, local_session_id=1)


def test_session_key_split() -> None:
    keys = derive_session_keys(bytes(range(16)))
    okm = keys.i2r_key + keys.r2i_key + keys.attestation_challenge
    from bridge.matter.crypto.crypto import hkdf_sha256

    assert okm == hkdf_sha256(bytes(range(16)), b"", b"SessionKeys", 48)
