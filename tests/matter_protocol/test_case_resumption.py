"""CASE session resumption (spec §4.14.2.2): Sigma1 with a resumption id and MIC, Sigma2_Resume, keys.

The derivation vector was computed independently with Node's OpenSSL (``crypto.hkdfSync`` +
``aes-128-ccm``) from the labels connectedhomeip and matter.js use; the handshake tests run our initiator
against our responder, and the live tests (CHIP SDK, matter.js) resume against ``homefabric serve``.
"""

from __future__ import annotations

from bridge.matter.codec import tlv
from bridge.matter.codec.persistence import StateStore
from bridge.matter.session.case import (
    CaseFabric,
    CaseInitiator,
    CaseResponder,
    ResumptionRecord,
    resume_mic,
    resumption_keys,
)
from bridge.matter.session.resumption_store import MAX_RECORDS, ResumptionStore
from tests.matter_protocol.test_case import _new_fabric

SECRET = bytes(range(32))
RANDOM = bytes(0x40 + i for i in range(32))
RESUMPTION_ID = bytes(0xA0 + i for i in range(16))


def test_resumption_derivations_match_an_independent_implementation() -> None:
    assert resume_mic(SECRET, RANDOM, RESUMPTION_ID, sigma=1).hex() == "e93fc2fb101ca00794273c47de1c44fa"
    assert resume_mic(SECRET, RANDOM, RESUMPTION_ID, sigma=2).hex() == "bf452541f2be00924a296b2dae51e2c4"
    keys = resumption_keys(SECRET, RANDOM, RESUMPTION_ID)
    assert (keys.i2r_key + keys.r2i_key + keys.attestation_challenge).hex() == (
        "1e84f2f462b86f72eb76c5fcdebcf21e1a9d5b1f41c8c1b976a4b26877bd57e74084e7783d2ccee603ada228bcc8e970"
    )


def _first_session() -> tuple[CaseFabric, CaseFabric, ResumptionRecord, ResumptionRecord]:
    fabric = _new_fabric()
    device_member, controller_member = fabric.member(0x55), fabric.member(0x1)
    device = CaseResponder(fabrics=[device_member], local_session_id=0x2222)
    controller = CaseInitiator(fabric=controller_member, peer_node_id=0x55, local_session_id=0x1111)
    sigma2 = device.handle_sigma1(controller.start())
    ours = controller.handle_status_report(device.handle_sigma3(controller.handle_sigma2(sigma2)))
    assert device.result is not None and device.result.resumption is not None and ours.resumption is not None
    return device_member, controller_member, device.result.resumption, ours.resumption


def test_full_handshake_leaves_the_same_resumption_record_on_both_sides() -> None:
    _, _, device_record, controller_record = _first_session()
    assert device_record.resumption_id == controller_record.resumption_id
    assert device_record.shared_secret == controller_record.shared_secret
    assert device_record.peer_node_id == 0x1 and controller_record.peer_node_id == 0x55


def test_resumption_is_one_round_trip_with_matching_keys() -> None:
    device_member, controller_member, device_record, controller_record = _first_session()
    device = CaseResponder(
        fabrics=[device_member],
        local_session_id=0x3333,
        find_resumption={device_record.resumption_id: device_record}.get,
    )
    controller = CaseInitiator(
        fabric=controller_member, peer_node_id=0x55, local_session_id=0x4444, resume_with=controller_record
    )
    sigma1 = controller.start()
    assert {6, 7} <= set(tlv.decode(sigma1))
    reply = device.handle_sigma1(sigma1)
    assert device.resuming and set(tlv.decode(reply)) == {1, 2, 3, 4}  # Sigma2_Resume, not Sigma2
    status, ours = controller.handle_sigma2_resume(reply)
    device.handle_resume_status(status)
    theirs = device.result
    assert theirs is not None and theirs.resumed and ours.resumed
    assert ours.keys == theirs.keys
    assert (theirs.peer_node_id, theirs.peer_session_id, ours.peer_session_id) == (0x1, 0x4444, 0x3333)
    # Both sides move on to the new resumption id; the old one is spent.
    assert theirs.resumption is not None and ours.resumption is not None
    assert theirs.resumption.resumption_id == ours.resumption.resumption_id != device_record.resumption_id
    assert theirs.resumption.shared_secret == ours.resumption.shared_secret


def test_unknown_id_or_bad_mic_falls_back_to_a_full_sigma2() -> None:
    device_member, controller_member, device_record, controller_record = _first_session()
    forged = ResumptionRecord(
        controller_record.resumption_id, bytes(32), controller_record.fabric_id, controller_record.root_public_key, 0x55
    )
    for known, offered in (({}, controller_record), ({device_record.resumption_id: device_record}, forged)):
        device = CaseResponder(fabrics=[device_member], local_session_id=0x3333, find_resumption=known.get)
        controller = CaseInitiator(
            fabric=controller_member, peer_node_id=0x55, local_session_id=0x4444, resume_with=offered
        )
        sigma2 = device.handle_sigma1(controller.start())
        assert not device.resuming
        ours = controller.handle_status_report(device.handle_sigma3(controller.handle_sigma2(sigma2)))
        assert device.result is not None and ours.keys == device.result.keys and not ours.resumed


def test_records_persist_one_per_peer_and_go_with_their_fabric(tmp_path) -> None:
    store = ResumptionStore(StateStore(tmp_path))
    first = ResumptionRecord(b"\x01" * 16, SECRET, 1, b"\x04" * 65, 0x10, (0x1234_0001,))
    newer = ResumptionRecord(b"\x02" * 16, SECRET, 1, b"\x04" * 65, 0x10, (0x1234_0001,))
    other = ResumptionRecord(b"\x03" * 16, SECRET, 2, b"\x05" * 65, 0x20)
    store.remember(1, first)
    store.remember(1, newer)
    store.remember(2, other)
    reloaded = ResumptionStore(StateStore(tmp_path))  # what a restarted node sees
    assert reloaded.find(first.resumption_id) is None and reloaded.find(newer.resumption_id) == newer
    assert reloaded.find(other.resumption_id) == other and len(reloaded) == 2
    reloaded.forget_fabric(1)
    assert ResumptionStore(StateStore(tmp_path)).find(newer.resumption_id) is None
    for peer in range(MAX_RECORDS + 5):
        reloaded.remember(2, ResumptionRecord(peer.to_bytes(16, "big"), SECRET, 2, b"\x05" * 65, 0x100 + peer))
    assert len(ResumptionStore(StateStore(tmp_path))) == MAX_RECORDS
