"""A Matter node on the network: transport, sessions, handshakes, IM dispatch, commissioning
window, fail-safe, mDNS and persistence wired together.

Usage::

    node = MatterNode(lambda root_clusters: BridgeNode(fabric, root_clusters, store=...), state_dir)
    await node.start()          # prints nothing; see node.pairing_text()
    ...
    await node.stop()

``data_model`` is either a ready ``DataModel`` (its endpoint 0 must serve :attr:`root_clusters`)
or a factory called with the root clusters (and returning the ``DataModel``). The IM defaults to
``bridge.matter.im.interaction.InteractionModel(data_model, access)``; pass ``interaction`` (anything
with ``async handle_exchange(exchange, opcode, payload)``, or a factory ``(data_model, access) ->
that``) to replace it.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bridge.matter.codec.message import ProtocolId
from bridge.matter.codec.persistence import StateStore
from bridge.matter.crypto import attestation
from bridge.matter.im.access import AclAccessChecker
from bridge.matter.im.subscription_store import PersistedSubscription, SubscriptionStore
from bridge.matter.node.commissioning import CommissioningWindow, FailSafe, WindowKind
from bridge.matter.node.mdns import CommissionableAdvert, MatterAdvertiser, OperationalAdvert
from bridge.matter.node.root import RootServices, root_clusters
from bridge.matter.node.setup_payload import SetupPayload
from bridge.matter.session.fabric_table import FabricTable
from bridge.matter.session.group_messages import GroupMessage, GroupReceiver
from bridge.matter.session.handshake import HandshakeServer
from bridge.matter.session.resumption_store import ResumptionStore
from bridge.matter.session.sessions import SecureSession, SessionManager
from bridge.matter.session.transport import DEFAULT_PORT, UdpTransport
from clusters.base import ClusterServer

__all__ = ["MatterNode"]

log = logging.getLogger(__name__)

DEFAULT_VENDOR_ID = 0xFFF1  # test vendor (matches the test attestation chain and BasicInformation)
DEFAULT_PRODUCT_ID = 0x8000


class MatterNode:
    def __init__(
        self,
        data_model: Any,
        state_dir: str | os.PathLike[str],
        *,
        port: int = DEFAULT_PORT,
        discriminator: int = 3840,
        passcode: int = 20202021,
        vendor_id: int = DEFAULT_VENDOR_ID,
        product_id: int = DEFAULT_PRODUCT_ID,
        interfaces: list[str] | None = None,
        mdns: bool = True,
        interaction: Any = None,
        basic_information: Mapping[str, Any] | None = None,
    ) -> None:
        self.state_dir = Path(state_dir)
        self.state = StateStore(self.state_dir)
        self.port = port
        self.interfaces = interfaces
        self.setup = SetupPayload(passcode, discriminator, vendor_id, product_id)
        self.table = FabricTable(self.state)
        self.resumptions = ResumptionStore(self.state)  # CASE resumption survives a restart
        self.subscription_store = SubscriptionStore(self.state)  # and so do subscriptions (resumed at start)
        self._resume_task: asyncio.Task[None] | None = None
        self.failsafe = FailSafe(self.table)
        self.window = CommissioningWindow(passcode, discriminator)
        self.credentials = attestation.load_or_create(self.state, vendor_id, product_id)
        self.services = RootServices(
            self.state, self.table, self.failsafe, self.window, self.credentials, vendor_id, product_id
        )
        self.root_clusters: list[ClusterServer] = root_clusters(
            self.services, basic_information=basic_information, interfaces=interfaces
        )
        self.data_model = (
            data_model(self.root_clusters) if callable(data_model) and not _is_data_model(data_model) else data_model
        )
        device_types = getattr(self.data_model, "device_types", None)
        self.access = AclAccessChecker(
            self.table,
            (lambda ep: [t[0] if isinstance(t, tuple) else t for t in device_types(ep)]) if device_types else None,
        )
        self._interaction_spec = interaction
        self.interaction: Any = None
        self.transport: UdpTransport | None = None
        self.group_receiver: GroupReceiver | None = None
        self.sessions: SessionManager | None = None
        self.advertiser: MatterAdvertiser | None = None
        self._mdns_enabled = mdns
        self._mdns_task: asyncio.Task[None] | None = None
        self._mdns_dirty = asyncio.Event()
        self._started = False

    # ------------------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        self.interaction = self._make_interaction()
        self.transport = UdpTransport(self._on_datagram, port=self.port)
        self.sessions = SessionManager(self.transport.send)
        # Every IM message that opens an exchange on a secure session: the Interaction Model routes by opcode
        # itself and answers INVALID_ACTION to what it does not serve.
        self.sessions.routes.register(
            ProtocolId.INTERACTION_MODEL,
            None,
            self.interaction.handle_exchange,
            session="secure",
            owner="Interaction Model",
        )
        self.services.sessions = self.sessions
        drop_session = getattr(self.interaction, "drop_session", None)
        if drop_session is not None:  # a dead session's subscriptions end at once, not at their next report
            self.sessions.on_session_closed.append(drop_session)
        drop_fabric = getattr(self.interaction, "drop_fabric", None)
        if drop_fabric is not None:
            self.services.on_fabric_removed.append(drop_fabric)
        self.handshake = HandshakeServer(  # registers its PASE/CASE routes
            self.sessions,
            pase_verifier=self.window.current_verifier,
            case_fabrics=self.table.case_fabrics,
            on_pase_failure=self.window.pase_failed,
            on_pase_session=self._on_pase_session,
            resumptions=self.resumptions,
        )
        self.services.on_fabric_removed.append(self.resumptions.forget_fabric)
        self.group_receiver = GroupReceiver(self.table, self._on_group_message)
        self.sessions.handle_group = self.group_receiver.receive
        await self.transport.start()
        self.table.listeners.append(self._join_groups)
        self._join_groups()
        self.port = self.transport.port
        self.failsafe.on_rollback.append(self._after_rollback)
        self.window.on_change.append(self._mdns_changed)
        self.table.listeners.append(self._mdns_changed)
        if not self.table.fabrics:
            self.window.open_basic(None)  # factory-new: commissionable until commissioned
        if self._mdns_enabled:
            self.advertiser = MatterAdvertiser(self.port, interfaces=self.interfaces)
            await self.advertiser.start()
            self._mdns_dirty.set()
            self._mdns_task = asyncio.create_task(self._mdns_loop())
        self._started = True
        if self.subscription_store.records() and hasattr(self.interaction, "resume_subscription"):
            self._resume_task = asyncio.create_task(self._resume_subscriptions())
        log.info(
            "Matter node up on UDP %d: %d fabric(s), window %s",
            self.port,
            len(self.table.fabrics),
            "open" if self.window.is_open else "closed",
        )

    async def stop(self) -> None:
        if not self._started:
            return
        self._started = False
        self.failsafe.expire()  # an interrupted commissioning must not survive a restart half-done
        if self._resume_task is not None:
            self._resume_task.cancel()
            await asyncio.gather(self._resume_task, return_exceptions=True)
        if self._mdns_task is not None:
            self._mdns_task.cancel()
            await asyncio.gather(self._mdns_task, return_exceptions=True)
        if self.advertiser is not None:
            await self.advertiser.close()
        if self.sessions is not None:
            self.sessions.close_all()
        if self.transport is not None:
            self.transport.close()
        self.window.close()
        close = getattr(self.interaction, "close", None)
        if close is not None:
            result = close()
            if asyncio.iscoroutine(result):
                await result

    def _make_interaction(self) -> Any:
        spec = self._interaction_spec
        if spec is None:
            from bridge.matter.im.interaction import InteractionModel

            return InteractionModel(self.data_model, self.access, store=self.subscription_store)
        if hasattr(spec, "handle_exchange"):
            return spec
        return spec(self.data_model, self.access)

    def _join_groups(self) -> None:
        if self.transport is not None and self.group_receiver is not None:
            self.transport.join_multicast(self.group_receiver.multicast_addresses(), self.interfaces)

    def _on_group_message(self, message: GroupMessage) -> None:
        handle = getattr(self.interaction, "handle_group_message", None)
        if message.protocol.protocol_id != ProtocolId.INTERACTION_MODEL or handle is None:
            return
        acted = handle(
            message.fabric_index, message.source_node_id, message.group_id, message.protocol.opcode, message.payload
        )
        log.info(
            "group 0x%04x message from node 0x%016X (fabric %d): acted on %d endpoint(s)",
            message.group_id,
            message.source_node_id,
            message.fabric_index,
            acted,
        )

    def _on_datagram(self, data: bytes, address: tuple[Any, ...]) -> None:
        if self.sessions is not None:
            self.sessions.on_datagram(data, address)

    # ------------------------------------------------------------------------------ subscription resumption
    async def _resume_subscriptions(self) -> None:
        """Reach every subscriber of the last run (CASE from our side) and continue its subscription, so a
        controller sees reports again right after a restart instead of after its liveness timeout."""
        await asyncio.gather(*(self._resume_one(record) for record in self.subscription_store.records()))

    async def _resume_one(self, record: PersistedSubscription) -> None:
        fabric = self.table.fabrics.get(record.fabric_index)
        if fabric is None:
            self.subscription_store.remove(record.subscription_id)
            return
        try:
            session = await self.handshake.connect_case(
                tuple(record.peer_address), record.fabric_index, fabric.case_fabric(), record.node_id
            )
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the subscriber is gone or refuses: it will subscribe afresh if it wants
            log.info(
                "event=subscription_resume_failed subscription=0x%08x reason=%r",
                record.subscription_id,
                str(error) or type(error).__name__,
            )
            self.subscription_store.remove(record.subscription_id)
            return
        await self.interaction.resume_subscription(record, session)

    # ------------------------------------------------------------------------------ commissioning
    def _on_pase_session(self, session: SecureSession) -> None:
        self.window.pase_established()

    def _after_rollback(self) -> None:
        sessions = self.sessions
        if sessions is not None:
            sessions.expire(kind="pase")
            for session in sessions.sessions(kind="case"):
                if session.fabric_index not in self.table.fabrics:
                    session.close()
        self.window.resume_advertising()

    def open_commissioning_window(self, timeout_s: float | None = 900) -> None:
        """Open a basic window with the configured passcode (e.g. from the CLI)."""
        self.window.open_basic(timeout_s)

    # ------------------------------------------------------------------------------ mDNS
    def _mdns_changed(self) -> None:
        self._mdns_dirty.set()

    async def _mdns_loop(self) -> None:
        """Serialise advertising updates; coalesces bursts (AddNOC saves several times)."""
        assert self.advertiser is not None
        while True:
            await self._mdns_dirty.wait()
            self._mdns_dirty.clear()
            try:
                await self.advertiser.set_operational(
                    OperationalAdvert(record.compressed_fabric_id, record.node_id)
                    for record in self.table.fabrics.values()
                )
                if self.window.is_open and self.window.advertising:
                    await self._advertise_commissionable()
                else:
                    await self.advertiser.withdraw_commissionable()
            except Exception:
                log.exception("mDNS update failed")

    _advertised: tuple[int, int] | None = None

    async def _advertise_commissionable(self) -> None:
        assert self.advertiser is not None
        mode = 2 if self.window.status == WindowKind.ENHANCED else 1
        key = (self.window.window_discriminator, mode)
        if self._advertised == key and self.advertiser.advertises_commissionable:
            return
        self._advertised = key
        await self.advertiser.advertise_commissionable(
            CommissionableAdvert(
                self.window.window_discriminator, self.setup.vendor_id, self.setup.product_id, mode=mode
            )
        )

    # ------------------------------------------------------------------------------ pairing codes
    @property
    def manual_code(self) -> str:
        return self.setup.manual_code()

    @property
    def qr_payload(self) -> str:
        return self.setup.qr_payload()

    def pairing_text(self, *, with_qr: bool = True) -> str:
        lines = [
            f"Manual pairing code: {SetupPayload.format_manual(self.manual_code)}",
            f"QR payload:          {self.qr_payload}",
            f"Discriminator {self.setup.discriminator}, passcode {self.setup.passcode}, "
            f"VID 0x{self.setup.vendor_id:04X} PID 0x{self.setup.product_id:04X}, UDP port {self.port}",
        ]
        if with_qr:
            lines.append(self.setup.terminal_qr())
        return "\n".join(lines)

    def export_paa(self, directory: str | os.PathLike[str]) -> Path:
        return attestation.export_paa(directory)


def _is_data_model(candidate: Any) -> bool:
    return all(hasattr(candidate, name) for name in ("endpoints", "clusters", "server"))
