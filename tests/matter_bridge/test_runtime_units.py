"""Setup codes against published examples, ACL evaluation, persistence (restart, kill between writes),
attestation constants."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cryptography import x509

from bridge.matter.codec.persistence import StateStore
from bridge.matter.crypto import attestation
from bridge.matter.crypto.crypto import public_key_bytes, sha1_key_id
from bridge.matter.im.access import AclAccessChecker, privilege_grants
from bridge.matter.node.setup_payload import DISCOVERY_BLE, SetupPayload
from bridge.matter.session.context import RequestContext
from bridge.matter.session.fabric_table import FabricTable


def test_setup_codes_match_published_examples() -> None:
    # connectedhomeip all-clusters-app: passcode 20202021, discriminator 3840, VID 0xFFF1, PID 0x8000, BLE.
    sdk = SetupPayload(20202021, 3840, 0xFFF1, 0x8000, discovery=DISCOVERY_BLE)
    assert sdk.manual_code() == "34970112332"
    assert sdk.qr_payload() == "MT:Y.K9042C00KA0648G00"
    other = SetupPayload(39267232, 2777, 65522, 32769, discovery=DISCOVERY_BLE)
    assert (other.manual_code(), other.qr_payload()) == ("24393623965", "MT:634J0CEK01938S2KV00")
    assert SetupPayload.format_manual("34970112332") == "3497-011-2332"
    assert "\n" in SetupPayload(20202021, 3840, 0xFFF1, 0x8000).terminal_qr()


def test_test_credentials_have_the_published_key_ids() -> None:
    paa = attestation.test_paa_certificate()
    assert paa.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value.digest == attestation.TEST_PAA_KEY_ID
    assert sha1_key_id(public_key_bytes(attestation.test_paa_key())) == attestation.TEST_PAA_KEY_ID
    assert sha1_key_id(public_key_bytes(attestation.test_cd_signing_key())) == attestation.TEST_CD_SIGNING_KEY_ID


def test_attestation_chain_vid_pid_and_export(tmp_path: Path) -> None:
    store = StateStore(tmp_path / "state")
    creds = attestation.load_or_create(store, 0xFFF1, 0x8000)
    dac, pai = x509.load_der_x509_certificate(creds.dac_der), x509.load_der_x509_certificate(creds.pai_der)
    pai.verify_directly_issued_by(attestation.test_paa_certificate())
    dac.verify_directly_issued_by(pai)
    oid_vid, oid_pid = x509.ObjectIdentifier("1.3.6.1.4.1.37244.2.1"), x509.ObjectIdentifier("1.3.6.1.4.1.37244.2.2")
    assert dac.subject.get_attributes_for_oid(oid_vid)[0].value == "FFF1"
    assert dac.subject.get_attributes_for_oid(oid_pid)[0].value == "8000"
    assert pai.subject.get_attributes_for_oid(oid_vid)[0].value == "FFF1"
    again = attestation.load_or_create(store, 0xFFF1, 0x8000)
    assert again.dac_der == creds.dac_der  # persisted per installation
    out = attestation.export_paa(tmp_path / "paa")
    assert (out / ".version").exists() and (out / attestation.PAA_DER_FILE).exists()


def _ctx(
    kind: str = "case", fabric: int | None = 1, node: int | None = 0x10, cats: tuple[int, ...] = ()
) -> RequestContext:
    return RequestContext(session_kind=kind, fabric_index=fabric, subject_node_id=node, cats=cats)  # type: ignore[arg-type]


def test_acl_evaluation(tmp_path: Path) -> None:
    table = FabricTable(StateStore(tmp_path))
    table.set_acl_for(
        1,
        [
            {"privilege": 5, "authMode": 2, "subjects": [0x10], "targets": None},
            {
                "privilege": 3,
                "authMode": 2,
                "subjects": [0xFFFFFFFD_00AB_0002],
                "targets": [{"cluster": 6, "endpoint": None, "deviceType": None}],
            },
            {
                "privilege": 1,
                "authMode": 2,
                "subjects": None,
                "targets": [{"cluster": None, "endpoint": None, "deviceType": 0x0100}],
            },
        ],
    )
    checker = AclAccessChecker(table, lambda ep: [0x0100] if ep == 3 else [0x0016])
    assert checker.check(_ctx(), 0, 0x3E, "administer")
    assert checker.check(_ctx(fabric=2), 0, 0x3E, "view") is False  # another fabric's entries do not apply
    assert checker.check(_ctx(node=0x11), 0, 0x28, "view") is False
    # CAT subject: same id, version >= 2; only cluster 6, operate (implies view, not manage).
    assert checker.check(_ctx(node=0x22, cats=(0x00AB_0003,)), 5, 6, "operate")
    assert checker.check(_ctx(node=0x22, cats=(0x00AB_0001,)), 5, 6, "operate") is False
    assert checker.check(_ctx(node=0x22, cats=(0x00AB_0002,)), 5, 8, "operate") is False
    assert checker.check(_ctx(node=0x22, cats=(0x00AB_0002,)), 5, 6, "manage") is False
    # Device-type target, any subject: view on endpoint 3 only.
    assert checker.check(_ctx(node=0x99), 3, 8, "view")
    assert checker.check(_ctx(node=0x99), 4, 8, "view") is False
    assert checker.check(_ctx(kind="pase", fabric=None, node=None), 0, 0x3E, "administer")
    assert checker.check(_ctx(kind="unsecured", fabric=None, node=None), 0, 0x28, "view") is False
    assert privilege_grants(5, 2) and privilege_grants(4, 3)
    assert not privilege_grants(3, 4) and not privilege_grants(2, 3)


def test_state_store_survives_restart_and_counter_never_repeats(tmp_path: Path) -> None:
    store = StateStore(tmp_path)
    store.save("endpoint_map", {"light:1": 2})
    counter = store.counter("event_number", window=10)
    used = [counter.next() for _ in range(25)]
    reopened = StateStore(tmp_path)
    assert reopened.load("endpoint_map") == {"light:1": 2} and reopened.get("endpoint_map") == {"light:1": 2}
    resumed = reopened.counter("event_number", window=10).next()
    assert resumed > max(used)


_KILLER = """
import os, sys
from bridge.matter.codec.persistence import StateStore
store = StateStore(sys.argv[1])
counter = store.counter("c", window=5)
for i in range(1000):
    value = counter.next()
    print(value, flush=True)
    store.save("doc", {"i": i, "pad": "x" * 2000})
    if i == int(sys.argv[2]):
        os.kill(os.getpid(), 9)
"""


def test_kill_between_writes_leaves_consistent_state(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    for kill_at in (3, 17, 42):
        proc = subprocess.run(
            [sys.executable, "-c", _KILLER, str(tmp_path), str(kill_at)],
            capture_output=True,
            text=True,
            cwd=root,
            env={**os.environ, "PYTHONPATH": str(root)},
            timeout=60,
        )
        assert proc.returncode == -9
        printed = [int(line) for line in proc.stdout.split()]
        store = StateStore(tmp_path)
        assert store.load("doc")["i"] in (kill_at - 1, kill_at)  # old or new document, never torn
        assert store.counter("c", window=5).next() > max(printed)  # no counter value reused
        assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no leftover temp files
