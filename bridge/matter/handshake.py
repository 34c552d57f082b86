"""Secure Channel responders on the wire: run PASE/CASE state machines over an exchange and install
the resulting secure session.

The state machines (:mod:`bridge.matter.pase`, :mod:`bridge.matter.case`) are pure; this module
adds the exchange round-trips, failure reporting (StatusReport), and session installation. The new
session is installed *before* the final StatusReport goes out, because the peer may use it the
instant it reads that report.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass

from bridge.matter.case import CaseError, CaseFabric, CaseResponder
from bridge.matter.exchange import Exchange
from bridge.matter.exchange_api import ExchangeClosed
from bridge.matter.mrp import LOCAL_PARAMETERS
from bridge.matter.pase import PaseError, PaseResponder
from bridge.matter.secure_channel import Opcode, StatusReport, StatusReportError
from bridge.matter.sessions import SecureSession, SecureSessionKeys, SessionManager

__all__ = ["HandshakeServer", "PaseVerifier"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PaseVerifier:
    """What an open commissioning window offers to PASE (spec §5.4.2: verifier, salt, iterations)."""

    w0: bytes
    L: bytes
    salt: bytes
    iterations: int


class _PeerAborted(Exception):
    pass


@dataclass
class HandshakeServer:
    manager: SessionManager
    pase_verifier: Callable[[], PaseVerifier | None]  # None: no commissioning window open
    case_fabrics: Callable[[], list[tuple[int, CaseFabric]]]  # (fabric index, fabric)
    on_pase_failure: Callable[[], None] = lambda: None
    on_pase_session: Callable[[SecureSession], None] = lambda session: None
    on_case_session: Callable[[SecureSession], None] = lambda session: None

    async def handle_exchange(self, exchange: Exchange, opcode: int, payload: bytes) -> None:
        if opcode == Opcode.PBKDF_PARAM_REQUEST:
            await self._pase(exchange, payload)
        elif opcode == Opcode.CASE_SIGMA1:
            await self._case(exchange, payload)
        # anything else opening an exchange (MsgCounterSync, stray StatusReport) is acked and ignored

    async def _round_trip(self, exchange: Exchange, opcode: int, payload: bytes, expected: int) -> bytes:
        reply = await exchange.send(opcode, payload, expect_reply=True)
        if reply is None:
            raise _PeerAborted("peer went silent")
        reply_opcode, reply_payload = reply
        if reply_opcode == Opcode.STATUS_REPORT:
            try:
                report = StatusReport.decode(reply_payload)
            except StatusReportError:
                report = None
            raise _PeerAborted(f"peer sent {report}")
        if reply_opcode != expected:
            raise _PeerAborted(f"unexpected opcode 0x{reply_opcode:02x}")
        return reply_payload

    async def _report_failure(self, exchange: Exchange, report: StatusReport) -> None:
        with contextlib.suppress(ExchangeClosed):
            await exchange.send(Opcode.STATUS_REPORT, report.encode(), expect_reply=False)

    async def _pase(self, exchange: Exchange, payload: bytes) -> None:
        verifier = self.pase_verifier()
        if verifier is None:
            self.manager.refusals.refused(log, logging.INFO, "PASE without a window",
                                          "PBKDFParamRequest ignored: no commissioning window is open")
            return
        local_id = self.manager.allocate_session_id()
        responder = PaseResponder(
            w0=verifier.w0,
            L=verifier.L,
            salt=verifier.salt,
            iterations=verifier.iterations,
            local_session_id=local_id,
            local_parameters=LOCAL_PARAMETERS,
        )
        try:
            response = responder.handle_pbkdf_param_request(payload)
            pake1 = await self._round_trip(exchange, Opcode.PBKDF_PARAM_RESPONSE, response, Opcode.PASE_PAKE1)
            pake3 = await self._round_trip(exchange, Opcode.PASE_PAKE2, responder.handle_pake1(pake1),
                                           Opcode.PASE_PAKE3)
            status = responder.handle_pake3(pake3)
        except PaseError as exc:
            self.manager.refusals.refused(log, logging.WARNING, "PASE failed", "PASE failed: %s", exc)
            self.on_pase_failure()
            await self._report_failure(exchange, exc.status_report)
            return
        except (_PeerAborted, ExchangeClosed) as exc:
            # A commissioner with the wrong passcode notices at Pake2 and aborts: that is a failed attempt too.
            self.manager.refusals.refused(log, logging.INFO, "PASE abandoned", "PASE abandoned: %s", exc)
            self.on_pase_failure()
            return
        result = responder.result
        assert result is not None
        session = SecureSession(
            self.manager,
            exchange.session.peer_address,
            kind="pase",
            local_session_id=result.local_session_id,
            peer_session_id=result.peer_session_id,
            keys=SecureSessionKeys(result.keys.r2i_key, result.keys.i2r_key, result.keys.attestation_challenge),
            peer_parameters=result.peer_parameters,
        )
        self.manager.add_secure_session(session)
        log.info("PASE session %d established with %s", session.local_session_id, session.peer_address)
        self.on_pase_session(session)
        with contextlib.suppress(ExchangeClosed):
            await exchange.send(Opcode.STATUS_REPORT, status, expect_reply=False)

    async def _case(self, exchange: Exchange, payload: bytes) -> None:
        fabrics = self.case_fabrics()
        responder = CaseResponder(
            fabrics=[fabric for _, fabric in fabrics],
            local_session_id=self.manager.allocate_session_id(),
            local_parameters=LOCAL_PARAMETERS,
        )
        try:
            sigma2 = responder.handle_sigma1(payload)
            sigma3 = await self._round_trip(exchange, Opcode.CASE_SIGMA2, sigma2, Opcode.CASE_SIGMA3)
            status = responder.handle_sigma3(sigma3)
        except CaseError as exc:
            self.manager.refusals.refused(log, logging.WARNING, "CASE failed", "CASE failed: %s", exc)
            await self._report_failure(exchange, exc.status_report)
            return
        except (_PeerAborted, ExchangeClosed) as exc:
            self.manager.refusals.refused(log, logging.INFO, "CASE abandoned", "CASE abandoned: %s", exc)
            return
        result = responder.result
        assert result is not None
        fabric_index = next(index for index, fabric in fabrics if fabric is result.fabric)
        session = SecureSession(
            self.manager,
            exchange.session.peer_address,
            kind="case",
            local_session_id=result.local_session_id,
            peer_session_id=result.peer_session_id,
            keys=SecureSessionKeys(result.keys.r2i_key, result.keys.i2r_key, result.keys.attestation_challenge),
            peer_parameters=result.peer_parameters,
            local_node_id=result.fabric.node_id,
            peer_node_id=result.peer_node_id,
            fabric_index=fabric_index,
            cats=result.peer_cats,
        )
        self.manager.add_secure_session(session)
        log.info(
            "CASE session %d established with node 0x%016X on fabric %d",
            session.local_session_id, session.peer_node_id, fabric_index,
        )
        self.on_case_session(session)
        with contextlib.suppress(ExchangeClosed):
            await exchange.send(Opcode.STATUS_REPORT, status, expect_reply=False)
