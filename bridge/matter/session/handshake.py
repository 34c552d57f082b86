"""Secure Channel responders on the wire: run PASE/CASE state machines over an exchange and install
the resulting secure session.

The state machines (:mod:`bridge.matter.session.pase`, :mod:`bridge.matter.session.case`) are pure; this module
adds the exchange round-trips, failure reporting (StatusReport), and session installation. The new
session is installed *before* the final StatusReport goes out, because the peer may use it the
instant it reads that report.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass

from bridge.matter.codec.message import ProtocolId
from bridge.matter.session.case import CaseError, CaseFabric, CaseInitiator, CaseResponder, CaseResult
from bridge.matter.session.exchange import Exchange
from bridge.matter.session.exchange_api import ExchangeClosed
from bridge.matter.session.mrp import LOCAL_PARAMETERS
from bridge.matter.session.pase import PaseError, PaseResponder
from bridge.matter.session.resumption_store import ResumptionStore
from bridge.matter.session.secure_channel import Opcode, StatusReport, StatusReportError
from bridge.matter.session.sessions import Address, SecureSession, SecureSessionKeys, SessionManager

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
    resumptions: ResumptionStore | None = None  # None: every CASE is a full handshake

    def __post_init__(self) -> None:
        # Anything else opening an exchange on an unsecured session (MsgCounterSync, a stray StatusReport) has
        # no route: the session manager acks and drops it.
        routes = self.manager.routes
        routes.register(
            ProtocolId.SECURE_CHANNEL,
            Opcode.PBKDF_PARAM_REQUEST,
            self._on_pbkdf_param_request,
            session="unsecured",
            owner="HandshakeServer (PASE)",
        )
        routes.register(
            ProtocolId.SECURE_CHANNEL,
            Opcode.CASE_SIGMA1,
            self._on_sigma1,
            session="unsecured",
            owner="HandshakeServer (CASE)",
        )

    async def _on_pbkdf_param_request(self, exchange: Exchange, opcode: int, payload: bytes) -> None:
        await self._pase(exchange, payload)

    async def _on_sigma1(self, exchange: Exchange, opcode: int, payload: bytes) -> None:
        await self._case(exchange, payload)

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
            self.manager.refusals.refused(
                log, logging.INFO, "PASE without a window", "PBKDFParamRequest ignored: no commissioning window is open"
            )
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
            pake3 = await self._round_trip(
                exchange, Opcode.PASE_PAKE2, responder.handle_pake1(pake1), Opcode.PASE_PAKE3
            )
            status = responder.handle_pake3(pake3)
        except PaseError as exc:
            self.manager.refusals.refused(log, logging.WARNING, "PASE failed", "event=pase_failed reason=%r", str(exc))
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
            exchange.channel.peer_address,
            kind="pase",
            local_session_id=result.local_session_id,
            peer_session_id=result.peer_session_id,
            keys=SecureSessionKeys(result.keys.r2i_key, result.keys.i2r_key, result.keys.attestation_challenge),
            peer_parameters=result.peer_parameters,
        )
        self.manager.add_secure_session(session)
        log.info(
            "event=session_established kind=pase session=%d peer=%s", session.local_session_id, session.peer_address[0]
        )
        self.on_pase_session(session)
        with contextlib.suppress(ExchangeClosed):
            await exchange.send(Opcode.STATUS_REPORT, status, expect_reply=False)

    async def _case(self, exchange: Exchange, payload: bytes) -> None:
        fabrics = self.case_fabrics()
        store = self.resumptions
        responder = CaseResponder(
            fabrics=[fabric for _, fabric in fabrics],
            local_session_id=self.manager.allocate_session_id(),
            local_parameters=LOCAL_PARAMETERS,
            find_resumption=store.find if store is not None else (lambda resumption_id: None),
        )
        try:
            reply = responder.handle_sigma1(payload)
            if responder.resuming:
                await self._resume(exchange, responder, reply, fabrics)
                return
            sigma3 = await self._round_trip(exchange, Opcode.CASE_SIGMA2, reply, Opcode.CASE_SIGMA3)
            status = responder.handle_sigma3(sigma3)
        except CaseError as exc:
            self.manager.refusals.refused(log, logging.WARNING, "CASE failed", "event=case_failed reason=%r", str(exc))
            await self._report_failure(exchange, exc.status_report)
            return
        except (_PeerAborted, ExchangeClosed) as exc:
            self.manager.refusals.refused(log, logging.INFO, "CASE abandoned", "CASE abandoned: %s", exc)
            return
        result = responder.result
        assert result is not None
        session = self._install_case(exchange, result, fabrics)
        self._remember(session, result)
        self.on_case_session(session)
        with contextlib.suppress(ExchangeClosed):
            await exchange.send(Opcode.STATUS_REPORT, status, expect_reply=False)

    async def _resume(
        self, exchange: Exchange, responder: CaseResponder, sigma2_resume: bytes, fabrics: list[tuple[int, CaseFabric]]
    ) -> None:
        """Sigma2_Resume out, the initiator's StatusReport in. The session is installed first: the
        initiator uses it as soon as it has checked Sigma2_Resume, maybe before its report reaches us."""
        assert responder.result is not None
        session = self._install_case(exchange, responder.result, fabrics)
        try:
            answer = await exchange.send(Opcode.CASE_SIGMA2_RESUME, sigma2_resume, expect_reply=True)
            if answer is None or answer[0] != Opcode.STATUS_REPORT:
                raise _PeerAborted("no StatusReport after Sigma2_Resume")
            responder.handle_resume_status(answer[1])
        except BaseException:
            session.close()
            raise
        self._remember(session, responder.result)
        self.on_case_session(session)

    def _remember(self, session: SecureSession, result: CaseResult) -> None:
        if self.resumptions is not None and result.resumption is not None and session.fabric_index is not None:
            self.resumptions.remember(session.fabric_index, result.resumption)

    def _install_case(
        self, exchange: Exchange, result: CaseResult, fabrics: list[tuple[int, CaseFabric]]
    ) -> SecureSession:
        fabric_index = next(index for index, fabric in fabrics if fabric is result.fabric)
        session = SecureSession(
            self.manager,
            exchange.channel.peer_address,
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
            "event=session_%s kind=case session=%d fabric=%d node=0x%016X peer=%s",
            "resumed" if result.resumed else "established",
            session.local_session_id,
            fabric_index,
            session.peer_node_id,
            session.peer_address[0],
        )
        return session

    # ------------------------------------------------------------------------------ initiating
    async def connect_case(
        self, address: Address, fabric_index: int, fabric: CaseFabric, peer_node_id: int, *, timeout_s: float = 10
    ) -> SecureSession:
        """CASE with us as the initiator (to resume a subscription after a restart): resumed in one round trip
        when both sides still hold the peer's resumption record, a full Sigma1/2/3 otherwise."""
        store = self.resumptions
        initiator = CaseInitiator(
            fabric=fabric,
            peer_node_id=peer_node_id,
            local_session_id=self.manager.allocate_session_id(),
            local_parameters=LOCAL_PARAMETERS,
            resume_with=store.for_peer(fabric_index, peer_node_id) if store else None,
        )
        unsecured = self.manager.initiate_unsecured(address)
        try:
            exchange = unsecured.open_exchange(ProtocolId.SECURE_CHANNEL)
            reply = await asyncio.wait_for(
                exchange.send(Opcode.CASE_SIGMA1, initiator.start(), expect_reply=True), timeout_s
            )
            if reply is not None and reply[0] == Opcode.CASE_SIGMA2_RESUME:
                status, result = initiator.handle_sigma2_resume(reply[1])
                session = self._install_initiated(unsecured.peer_address, fabric_index, result)
                await asyncio.wait_for(exchange.send(Opcode.STATUS_REPORT, status, expect_reply=False), timeout_s)
            elif reply is not None and reply[0] == Opcode.CASE_SIGMA2:
                sigma3 = initiator.handle_sigma2(reply[1])
                answer = await asyncio.wait_for(exchange.send(Opcode.CASE_SIGMA3, sigma3, expect_reply=True), timeout_s)
                if answer is None or answer[0] != Opcode.STATUS_REPORT:
                    raise CaseError("no StatusReport after Sigma3")
                result = initiator.handle_status_report(answer[1])
                session = self._install_initiated(unsecured.peer_address, fabric_index, result)
            else:
                raise CaseError(f"no Sigma2 in answer to Sigma1: {reply and hex(reply[0])}")
            await exchange.close()
        finally:
            unsecured.close()
        return session

    def _install_initiated(self, address: Address, fabric_index: int, result: CaseResult) -> SecureSession:
        session = SecureSession(
            self.manager,
            address,
            kind="case",
            local_session_id=result.local_session_id,
            peer_session_id=result.peer_session_id,
            # we are the initiator here: we encrypt with I2R and decrypt with R2I
            keys=SecureSessionKeys(result.keys.i2r_key, result.keys.r2i_key, result.keys.attestation_challenge),
            peer_parameters=result.peer_parameters,
            local_node_id=result.fabric.node_id,
            peer_node_id=result.peer_node_id,
            fabric_index=fabric_index,
            cats=result.peer_cats,
        )
        self.manager.add_secure_session(session)
        if self.resumptions is not None and result.resumption is not None:
            self.resumptions.remember(fabric_index, result.resumption)
        log.info(
            "event=session_%s kind=case role=initiator session=%d fabric=%d node=0x%016X peer=%s",
            "resumed" if result.resumed else "established",
            session.local_session_id,
            fabric_index,
            session.peer_node_id,
            address[0],
        )
        return session
