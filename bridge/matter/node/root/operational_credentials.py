"""Operational Credentials (0x003E): attestation, CSR, trusted roots, NOCs and the fabric list.

Commands that change fabrics (AddTrustedRootCertificate, AddNOC, UpdateNOC) need an armed
fail-safe; what they add is in the fail-safe snapshot's blast radius, so an expiry removes it all.
NOC problems are answered in-band with NOCResponse.StatusCode, as the spec requires.
"""

from __future__ import annotations

import logging
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.x509.oid import NameOID

from bridge.matter.codec import tlv
from bridge.matter.crypto.certificates import CertificateError, decode_tlv, validate_chain, verify_signature
from bridge.matter.crypto.crypto import generate_private_key, private_key_bytes, public_key_bytes
from bridge.matter.node.root.services import RootServices, request_context
from bridge.matter.session.fabric_table import MAX_FABRICS, FabricRecord
from clusters.base import ClusterServer, command
from clusters.status import HomeError, Status

__all__ = ["OperationalCredentialsServer"]

log = logging.getLogger(__name__)

OK, INVALID_PUBLIC_KEY, INVALID_NODE_OP_ID, INVALID_NOC, MISSING_CSR, TABLE_FULL = 0, 1, 2, 3, 4, 5
INVALID_ADMIN_SUBJECT, FABRIC_CONFLICT, LABEL_CONFLICT, INVALID_FABRIC_INDEX = 6, 9, 10, 11
DAC_CERTIFICATE, PAI_CERTIFICATE = 1, 2
_NONCE_LENGTH = 32
_MAX_OPERATIONAL_NODE_ID = 0xFFFFFFEFFFFFFFFF
_CAT_PREFIX = 0xFFFFFFFD_00000000


def _nonce(value: str, what: str) -> bytes:
    raw = bytes.fromhex(value)
    if len(raw) != _NONCE_LENGTH:
        raise HomeError.refused(Status.INVALID_COMMAND, f"{what} must be 32 bytes")
    return raw


def _noc_response(status: int, fabric_index: int | None = None, text: str | None = None) -> dict[str, Any]:
    return {"statusCode": status, "fabricIndex": fabric_index, "debugText": text}


def _valid_admin_subject(subject: int) -> bool:
    if subject & 0xFFFFFFFF_00000000 == _CAT_PREFIX:
        return subject & 0xFFFF != 0  # a CAT version of 0 is invalid
    return 1 <= subject <= _MAX_OPERATIONAL_NODE_ID


class OperationalCredentialsServer(ClusterServer):
    cluster_name = "OperationalCredentials"
    revision = 1
    defaults = {
        "NOCs": [],
        "Fabrics": [],
        "SupportedFabrics": MAX_FABRICS,
        "CommissionedFabrics": 0,
        "TrustedRootCertificates": [],
        "CurrentFabricIndex": 0,
    }

    def __init__(self, services: RootServices) -> None:
        super().__init__()
        self.services = services
        table = services.table
        self.bind_source(
            "NOCs", lambda: [{"noc": r.noc, "icac": r.icac, "fabricIndex": r.fabric_index} for r in self._records()]
        )
        self.bind_source("Fabrics", lambda: [r.descriptor() for r in self._records()])
        self.bind_source("CommissionedFabrics", lambda: len(table.fabrics))
        self.bind_source("TrustedRootCertificates", self._trusted_roots)
        self.bind_source("CurrentFabricIndex", self._current_fabric_index)
        table.listeners.append(self._fabrics_changed)

    def _records(self) -> list[FabricRecord]:
        return [self.services.table.fabrics[i] for i in sorted(self.services.table.fabrics)]

    def _trusted_roots(self) -> list[str]:
        roots = [r.rcac for r in self._records()]
        pending = self.services.failsafe.pending_root
        if pending is not None and pending.hex() not in roots:
            roots.append(pending.hex())
        return roots

    @staticmethod
    def _current_fabric_index() -> int:
        try:
            ctx = request_context()
        except HomeError:
            return 0
        return ctx.fabric_index or 0

    def _fabrics_changed(self) -> None:
        # Live attributes: tell subscribers (old values are not tracked; None marks "changed").
        for name in ("NOCs", "Fabrics", "CommissionedFabrics", "TrustedRootCertificates"):
            self.notify(name, None, self.read(name))

    def _require_failsafe(self) -> None:
        if not self.services.failsafe.armed:
            raise HomeError.refused(Status.FAILSAFE_REQUIRED, "arm the fail-safe first (ArmFailSafe)")

    # ------------------------------------------------------------------------------ attestation
    @command("AttestationRequest")
    def attestation_request(self, attestationNonce: str) -> dict[str, Any]:
        ctx = request_context()
        nonce = _nonce(attestationNonce, "AttestationNonce")
        creds = self.services.attestation
        elements = tlv.encode({1: creds.certification_declaration, 2: nonce, 3: 0})
        signature = creds.sign_with_dac(elements + (ctx.attestation_challenge or b""))
        return {"attestationElements": elements.hex(), "attestationSignature": signature.hex()}

    @command("CertificateChainRequest")
    def certificate_chain_request(self, certificateType: int) -> dict[str, Any]:
        creds = self.services.attestation
        if certificateType == DAC_CERTIFICATE:
            return {"certificate": creds.dac_der.hex()}
        if certificateType == PAI_CERTIFICATE:
            return {"certificate": creds.pai_der.hex()}
        raise HomeError.refused(Status.INVALID_COMMAND, f"unknown certificate type {certificateType}")

    @command("CSRRequest")
    def csr_request(self, CSRNonce: str, isForUpdateNOC: bool | None = None) -> dict[str, Any]:
        ctx = request_context()
        nonce = _nonce(CSRNonce, "CSRNonce")
        self._require_failsafe()
        failsafe = self.services.failsafe
        if isForUpdateNOC and ctx.session_kind != "case":
            raise HomeError.refused(Status.INVALID_COMMAND, "UpdateNOC CSRs are only issued over CASE")
        if failsafe.added_fabric_index is not None or failsafe.updated_noc:
            raise HomeError.refused(Status.CONSTRAINT_ERROR, "a NOC was already installed under this fail-safe")
        key = generate_private_key()  # a fresh operational key per request
        csr = (
            x509.CertificateSigningRequestBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "CSR")]))
            .sign(key, hashes.SHA256())
            .public_bytes(serialization.Encoding.DER)
        )
        failsafe.csr_key = key
        failsafe.csr_for_update = bool(isForUpdateNOC)
        elements = tlv.encode({1: csr, 2: nonce})
        signature = self.services.attestation.sign_with_dac(elements + (ctx.attestation_challenge or b""))
        return {"NOCSRElements": elements.hex(), "attestationSignature": signature.hex()}

    # ------------------------------------------------------------------------------ fabrics
    @command("AddTrustedRootCertificate")
    def add_trusted_root_certificate(self, rootCACertificate: str) -> None:
        self._require_failsafe()
        failsafe = self.services.failsafe
        if failsafe.pending_root is not None or failsafe.added_fabric_index is not None:
            raise HomeError.refused(Status.CONSTRAINT_ERROR, "a trusted root was already added under this fail-safe")
        raw = bytes.fromhex(rootCACertificate)
        try:
            root = decode_tlv(raw)
            if not root.is_ca or root.issuer != root.subject or not verify_signature(root, root.public_key):
                raise CertificateError("not a self-signed CA certificate")
        except (CertificateError, ValueError) as exc:
            raise HomeError.refused(Status.INVALID_COMMAND, f"invalid root certificate: {exc}") from exc
        failsafe.pending_root = raw
        return None

    @command("AddNOC")
    def add_noc(
        self, NOCValue: str, IPKValue: str, caseAdminSubject: int, adminVendorId: int, ICACValue: str | None = None
    ) -> dict[str, Any]:
        ctx = request_context()
        self._require_failsafe()
        failsafe, table = self.services.failsafe, self.services.table
        if failsafe.added_fabric_index is not None or failsafe.updated_noc:
            raise HomeError.refused(Status.CONSTRAINT_ERROR, "a NOC was already added under this fail-safe")
        ipk = bytes.fromhex(IPKValue)
        if len(ipk) != 16:
            raise HomeError.refused(Status.CONSTRAINT_ERROR, "IPKValue must be 16 bytes")
        if failsafe.csr_key is None or failsafe.csr_for_update:
            return _noc_response(MISSING_CSR, text="no CSR for AddNOC")
        if failsafe.pending_root is None:
            return _noc_response(INVALID_NOC, text="no trusted root added")
        if len(table.fabrics) >= MAX_FABRICS:
            return _noc_response(TABLE_FULL)
        noc, icac = bytes.fromhex(NOCValue), bytes.fromhex(ICACValue) if ICACValue else None
        try:
            info = validate_chain(noc, icac, failsafe.pending_root)
        except (CertificateError, ValueError) as exc:
            return _noc_response(INVALID_NOC, text=str(exc)[:128])
        if decode_tlv(noc).public_key != public_key_bytes(failsafe.csr_key):
            return _noc_response(INVALID_PUBLIC_KEY, text="NOC key differs from the CSR's")
        if table.find(info.root_public_key, info.fabric_id) is not None:
            return _noc_response(FABRIC_CONFLICT)
        if not _valid_admin_subject(caseAdminSubject):
            return _noc_response(INVALID_ADMIN_SUBJECT)
        index = table.allocate_index()
        record = FabricRecord(
            fabric_index=index,
            fabric_id=info.fabric_id,
            node_id=info.node_id,
            vendor_id=adminVendorId,
            rcac=failsafe.pending_root.hex(),
            noc=noc.hex(),
            icac=icac.hex() if icac else None,
            operational_key=private_key_bytes(failsafe.csr_key).hex(),
            ipk_epoch_key=ipk.hex(),
        )
        table.add(record)
        # The admin ACL entry for the commissioner (spec §11.18.6.8 step: CaseAdminSubject).
        table.set_acl_for(index, [{"privilege": 5, "authMode": 2, "subjects": [caseAdminSubject], "targets": None}])
        table.group_key_sets[index] = [
            {
                "groupKeySetID": 0,
                "groupKeySecurityPolicy": 0,
                "epochKey0": None,
                "epochStartTime0": 0,
                "epochKey1": None,
                "epochStartTime1": None,
                "epochKey2": None,
                "epochStartTime2": None,
            }
        ]  # the IPK key set; epoch keys are never readable
        table.save()  # first: a failed write undoes the table and leaves the fail-safe state as it was
        failsafe.added_fabric_index = index
        failsafe.csr_key = None
        failsafe.pending_root = None
        session = ctx.session
        if session is not None and getattr(session, "kind", None) == "pase":
            session.fabric_index = index  # the PASE session now acts for the new fabric
        log.info("event=fabric_added fabric=%d fabric_id=0x%X node=0x%016X", index, info.fabric_id, info.node_id)
        return _noc_response(OK, index)

    @command("UpdateNOC")
    def update_noc(self, NOCValue: str, ICACValue: str | None = None) -> dict[str, Any]:
        ctx = request_context()
        self._require_failsafe()
        failsafe, table = self.services.failsafe, self.services.table
        record = table.fabrics.get(ctx.fabric_index or -1)
        if ctx.session_kind != "case" or record is None:
            raise HomeError.refused(Status.UNSUPPORTED_ACCESS, "UpdateNOC needs a CASE session of the fabric")
        if failsafe.added_fabric_index is not None or failsafe.updated_noc:
            raise HomeError.refused(Status.CONSTRAINT_ERROR, "a NOC was already installed under this fail-safe")
        if failsafe.csr_key is None or not failsafe.csr_for_update:
            return _noc_response(MISSING_CSR)
        noc, icac = bytes.fromhex(NOCValue), bytes.fromhex(ICACValue) if ICACValue else None
        try:
            info = validate_chain(noc, icac, bytes.fromhex(record.rcac))
        except (CertificateError, ValueError) as exc:
            return _noc_response(INVALID_NOC, text=str(exc)[:128])
        if info.fabric_id != record.fabric_id:
            return _noc_response(INVALID_NOC, text="fabric id changed")
        if decode_tlv(noc).public_key != public_key_bytes(failsafe.csr_key):
            return _noc_response(INVALID_PUBLIC_KEY)
        record.noc, record.icac, record.node_id = noc.hex(), icac.hex() if icac else None, info.node_id
        record.operational_key = private_key_bytes(failsafe.csr_key).hex()
        table.save()  # first: a failed write undoes the record and leaves the fail-safe state as it was
        failsafe.updated_noc = True
        failsafe.csr_key = None
        return _noc_response(OK, record.fabric_index)

    @command("UpdateFabricLabel")
    def update_fabric_label(self, label: str) -> dict[str, Any]:
        ctx = request_context()
        if len(label) > 32:
            raise HomeError.refused(Status.CONSTRAINT_ERROR, "a fabric label has at most 32 characters")
        table = self.services.table
        record = table.fabrics.get(ctx.fabric_index or -1)
        if record is None:
            raise HomeError.refused(Status.UNSUPPORTED_ACCESS, "no accessing fabric")
        if label and any(r.label == label for r in table.fabrics.values() if r is not record):
            return _noc_response(LABEL_CONFLICT)
        record.label = label
        table.save()
        return _noc_response(OK, record.fabric_index)

    @command("RemoveFabric")
    def remove_fabric(self, fabricIndex: int) -> dict[str, Any]:
        table = self.services.table
        if fabricIndex not in table.fabrics:
            return _noc_response(INVALID_FABRIC_INDEX)
        table.remove(fabricIndex)
        table.save()
        log.info("event=fabric_removed fabric=%d", fabricIndex)
        services = self.services
        for listener in list(services.on_fabric_removed):  # e.g. its subscriptions end before the response
            listener(fabricIndex)

        def cleanup() -> None:
            if services.sessions is not None:
                services.sessions.expire(fabric_index=fabricIndex)
            if not services.table.fabrics and not services.window.is_open:
                services.window.open_basic(None)  # factory-new again: commissionable

        services.after_response(cleanup)
        return _noc_response(OK, fabricIndex)
