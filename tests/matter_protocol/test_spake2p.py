"""SPAKE2+ byte-exact against connectedhomeip's SPAKE2P_RFC_test_vectors.h and the PASE verifier
of TestPASESession.cpp (passcode 20202021, 1000 iterations, salt "SPAKE2P Key Salt")."""

from __future__ import annotations

import pytest

from bridge.matter.crypto import p256, spake2p
from bridge.matter.crypto.spake2p import Spake2pError, Spake2pProver, Spake2pVerifier
from tests.matter_protocol import vectors_spake2p as v


def _int(data: bytes) -> int:
    return int.from_bytes(data, "big")


@pytest.mark.parametrize("tv", [v.RFC_TV1, v.RFC_TV4], ids=["client-server", "empty-identities"])
def test_rfc_vector_verifier_side(tv: dict) -> None:
    verifier = Spake2pVerifier(
        w0=tv["w0"], L=tv["L"], context=tv["context"], id_prover=tv["id_prover"], id_verifier=tv["id_verifier"],
        y=_int(tv["y"]),
    )  # fmt: skip
    share_y, confirm_b = verifier.respond(tv["X"])
    assert share_y == tv["Y"]
    assert verifier.point_z == tv["Z"]
    assert verifier.point_v == tv["V"]
    assert verifier.keys is not None
    assert (verifier.keys.ka, verifier.keys.ke) == (tv["Ka"], tv["Ke"])
    assert (verifier.keys.kca, verifier.keys.kcb) == (tv["KcA"], tv["KcB"])
    assert confirm_b == tv["MAC_KcB"]
    assert verifier.confirm(tv["MAC_KcA"]) == tv["Ke"]


@pytest.mark.parametrize("tv", [v.RFC_TV1, v.RFC_TV4], ids=["client-server", "empty-identities"])
def test_rfc_vector_prover_side(tv: dict) -> None:
    prover = Spake2pProver(
        w0=_int(tv["w0"]), w1=_int(tv["w1"]), context=tv["context"], id_prover=tv["id_prover"],
        id_verifier=tv["id_verifier"], x=_int(tv["x"]),
    )  # fmt: skip
    assert prover.start() == tv["X"]
    confirm_a, ke = prover.finish(tv["Y"], tv["MAC_KcB"])
    assert prover.point_z == tv["Z"]
    assert prover.point_v == tv["V"]
    assert (confirm_a, ke) == (tv["MAC_KcA"], tv["Ke"])


def test_L_is_w1_times_generator() -> None:
    assert p256.encode_point(p256.mul(_int(v.RFC_TV1["w1"]), p256.G)) == v.RFC_TV1["L"]


def test_pase_verifier_from_passcode() -> None:
    w0, big_l = spake2p.compute_verifier(v.PASE_SET01_PASSCODE, v.PASE_SET01_SALT, v.PASE_SET01_ITERATIONS)
    assert w0 == v.PASE_SET01_W0
    assert big_l == v.PASE_SET01_L


def test_wrong_confirmation_and_bad_shares_are_rejected() -> None:
    tv = v.RFC_TV4
    verifier = Spake2pVerifier(w0=tv["w0"], L=tv["L"], context=tv["context"], y=_int(tv["y"]))
    with pytest.raises(Spake2pError):
        verifier.confirm(tv["MAC_KcA"])  # before respond()
    verifier.respond(tv["X"])
    with pytest.raises(Spake2pError):
        verifier.confirm(bytes(32))
    with pytest.raises(Spake2pError):
        Spake2pVerifier(w0=tv["w0"], L=tv["L"], context=b"").respond(b"\x04" + bytes(64))
    with pytest.raises(Spake2pError):  # X = w0*M makes X - w0*M the identity
        Spake2pVerifier(w0=tv["w0"], L=tv["L"], context=b"").respond(
            p256.encode_point(p256.mul(_int(tv["w0"]), spake2p.M))
        )
    prover = Spake2pProver(w0=1, w1=2, context=b"")
    prover.start()
    with pytest.raises(Spake2pError):
        prover.finish(tv["Y"], bytes(32))


def test_p256_group_law() -> None:
    g2 = p256.add(p256.G, p256.G)
    assert g2 == p256.mul(2, p256.G)
    assert p256.add(g2, p256.neg(p256.G)) == p256.G
    assert p256.mul(p256.N_ORDER, p256.G) is None
    assert p256.add(p256.G, p256.neg(p256.G)) is None
    compressed = bytes([2 + (p256.G[1] & 1)]) + p256.G[0].to_bytes(32, "big")
    assert p256.decode_point(compressed) == p256.G
