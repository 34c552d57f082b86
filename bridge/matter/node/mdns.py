"""DNS-SD advertising of the node (spec §4.3) with python-zeroconf.

* Commissionable: ``<random 64-bit hex>._matterc._udp.local.`` with TXT ``D``, ``CM``, ``VP``,
  ``DT``, ``DN``, ``SII``, ``SAI``, ``SAT``, ``T``, ``PH`` and the subtypes ``_L<discriminator>``,
  ``_S<discriminator >> 8>``, ``_CM`` and ``_V<vid>``; withdrawn when the window closes.
* Operational, per fabric: ``<CompressedFabricId>-<NodeId>._matter._tcp.local.`` with subtype
  ``_I<CompressedFabricId>``; (re)registered on start and whenever the fabric table changes.

Subtypes: python-zeroconf models one (optional) subtype per ``ServiceInfo`` and refuses a second
registration of the same instance name (``ServiceNameAlreadyRegistered``; upstream issues #109,
#304, #1287). We need four subtypes on one instance, and the controller's discovery browses them
(``commission_with_code`` looks up ``_S<n>``, long-discriminator filters ``_L<n>``). Chosen fix:
register the instance once under its main type, then add each subtype name as an *alias key* in the
responder's ``registry.types`` index pointing at the same entry, so PTR questions for
``_S15._sub._matterc._udp.local.`` are answered with the instance (as a main-type PTR plus SRV/TXT/A
additionals — accepted by CHIP minimal mDNS; tested on this machine, facts §1.2). This touches a
private structure, so it is isolated in :func:`_alias_subtypes`/:func:`_unalias_subtypes`, checked
(a structure change raises at start instead of silently advertising nothing), and removed before
unregistering. The alternative, a complete own mDNS responder (probing, known-answer suppression,
goodbyes, multi-interface sockets), is far more code for the same wire result.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import socket
from collections.abc import Iterable
from dataclasses import dataclass

import ifaddr
from zeroconf import InterfaceChoice, IPVersion, ServiceInfo
from zeroconf.asyncio import AsyncZeroconf

from bridge.matter.session.mrp import DEFAULT_ACTIVE_MS, DEFAULT_ACTIVE_THRESHOLD_MS, DEFAULT_IDLE_MS
from clusters.device_types import AGGREGATOR

__all__ = ["CommissionableAdvert", "MatterAdvertiser", "OperationalAdvert", "interface_addresses"]

log = logging.getLogger(__name__)

COMMISSIONABLE = "_matterc._udp.local."
OPERATIONAL = "_matter._tcp.local."


@dataclass(frozen=True)
class CommissionableAdvert:
    discriminator: int
    vendor_id: int
    product_id: int
    mode: int = 1  # CM: 1 basic (passcode), 2 enhanced (verifier from OpenCommissioningWindow)
    device_type: int = AGGREGATOR[0]  # what a bridge is
    device_name: str = "HomeFabric Bridge"

    def txt(self) -> dict[str, str]:
        return {
            "D": str(self.discriminator),
            "CM": str(self.mode),
            "VP": f"{self.vendor_id}+{self.product_id}",
            "DT": str(self.device_type),
            "DN": self.device_name,
            "SII": str(DEFAULT_IDLE_MS),
            "SAI": str(DEFAULT_ACTIVE_MS),
            "SAT": str(DEFAULT_ACTIVE_THRESHOLD_MS),
            "T": "0",
            "PH": "33",
        }

    def subtypes(self) -> list[str]:
        return [f"_L{self.discriminator}", f"_S{self.discriminator >> 8}", "_CM", f"_V{self.vendor_id}"]


@dataclass(frozen=True)
class OperationalAdvert:
    compressed_fabric_id: bytes
    node_id: int

    @property
    def instance(self) -> str:
        return f"{self.compressed_fabric_id.hex().upper()}-{self.node_id:016X}"

    def subtypes(self) -> list[str]:
        return [f"_I{self.compressed_fabric_id.hex().upper()}"]


def interface_addresses(interfaces: Iterable[str] | None) -> list[str]:
    """Non-loopback addresses of the named interfaces (all interfaces when None)."""
    wanted = set(interfaces) if interfaces is not None else None
    out: list[str] = []
    for adapter in ifaddr.get_adapters():
        if wanted is not None and adapter.nice_name not in wanted and adapter.name not in wanted:
            continue
        for ip in adapter.ips:
            if isinstance(ip.ip, tuple):  # IPv6: (address, flowinfo, scope_id)
                address = ip.ip[0]
                if address == "::1":
                    continue
            else:
                address = ip.ip
                if address.startswith("127."):
                    continue
            out.append(address)
    return out


def _alias_subtypes(zc: AsyncZeroconf, info: ServiceInfo, subtypes: list[str]) -> None:
    # The index maps a type to its instances: a list of keys up to zeroconf 0.14x, a {key: ServiceInfo} dict
    # since (0.154 here); the alias copies whatever the main type's entry for this instance is.
    types = zc.zeroconf.registry.types
    main = types.get(info.type.lower()) if isinstance(types, dict) else None
    if not isinstance(main, list | dict) or info.key not in main:
        raise RuntimeError("python-zeroconf registry layout changed: cannot publish DNS-SD subtypes")
    for subtype in subtypes:
        bucket = types.setdefault(f"{subtype}._sub.{info.type}".lower(), type(main)())
        if isinstance(bucket, dict):
            bucket[info.key] = main[info.key]
        elif info.key not in bucket:
            bucket.append(info.key)


def _unalias_subtypes(zc: AsyncZeroconf, info: ServiceInfo, subtypes: list[str]) -> None:
    types = zc.zeroconf.registry.types
    for subtype in subtypes:
        name = f"{subtype}._sub.{info.type}".lower()
        bucket = types.get(name)
        if isinstance(bucket, dict):
            bucket.pop(info.key, None)
        elif bucket and info.key in bucket:
            bucket.remove(info.key)
        if name in types and not types[name]:
            del types[name]


class MatterAdvertiser:
    """Owns one AsyncZeroconf and the node's commissionable/operational records."""

    def __init__(self, port: int, *, interfaces: list[str] | None = None, host_name: str | None = None) -> None:
        self.port = port
        self.interfaces = interfaces
        self.host = host_name or f"{secrets.token_hex(6).upper()}.local."
        self._zc: AsyncZeroconf | None = None
        self._commissionable: tuple[ServiceInfo, list[str]] | None = None
        self._operational: dict[str, tuple[ServiceInfo, list[str]]] = {}
        self._lock = asyncio.Lock()

    async def start(self) -> None:
        choice: InterfaceChoice | list[str | int] = InterfaceChoice.All
        if self.interfaces:
            choice = []
            for adapter in ifaddr.get_adapters():
                if adapter.nice_name in self.interfaces:
                    choice += [ip.ip for ip in adapter.ips if not isinstance(ip.ip, tuple)]
                    # ifaddr types the index int | None; an adapter with IPv6 addresses always has one.
                    choice += [adapter.index] if any(isinstance(ip.ip, tuple) for ip in adapter.ips) else []  # type: ignore[list-item]
        self._zc = AsyncZeroconf(interfaces=choice, ip_version=IPVersion.All)
        if not isinstance(self._zc.zeroconf.registry.types, dict):
            raise RuntimeError("python-zeroconf registry layout changed: cannot publish DNS-SD subtypes")

    def _info(self, type_: str, instance: str, txt: dict[str, str]) -> ServiceInfo:
        addresses = interface_addresses(self.interfaces)
        return ServiceInfo(
            type_,
            f"{instance}.{type_}",
            port=self.port,
            properties=txt,
            server=self.host,
            parsed_addresses=[a.split("%")[0] for a in addresses],
        )

    async def _register(self, info: ServiceInfo, subtypes: list[str]) -> None:
        assert self._zc is not None
        await self._zc.async_register_service(info, cooperating_responders=True)
        _alias_subtypes(self._zc, info, subtypes)

    async def _unregister(self, info: ServiceInfo, subtypes: list[str]) -> None:
        assert self._zc is not None
        _unalias_subtypes(self._zc, info, subtypes)
        await self._zc.async_unregister_service(info)

    @property
    def advertises_commissionable(self) -> bool:
        return self._commissionable is not None

    async def advertise_commissionable(self, advert: CommissionableAdvert) -> None:
        async with self._lock:
            if self._commissionable is not None:
                await self._unregister(*self._commissionable)
            info = self._info(COMMISSIONABLE, secrets.token_hex(8).upper(), advert.txt())
            self._commissionable = (info, advert.subtypes())
            await self._register(info, advert.subtypes())
            log.info(
                "advertising commissionable %s (D=%d, subtypes %s)", info.name, advert.discriminator, advert.subtypes()
            )

    async def withdraw_commissionable(self) -> None:
        async with self._lock:
            if self._commissionable is not None:
                await self._unregister(*self._commissionable)
                log.info("withdrew commissionable %s", self._commissionable[0].name)
                self._commissionable = None

    async def set_operational(self, adverts: Iterable[OperationalAdvert]) -> None:
        """Make the operational records exactly ``adverts`` (one per fabric)."""
        async with self._lock:
            wanted = {a.instance: a for a in adverts}
            for instance in [i for i in self._operational if i not in wanted]:
                await self._unregister(*self._operational.pop(instance))
                log.info("withdrew operational %s", instance)
            txt = {
                "SII": str(DEFAULT_IDLE_MS),
                "SAI": str(DEFAULT_ACTIVE_MS),
                "SAT": str(DEFAULT_ACTIVE_THRESHOLD_MS),
                "T": "0",
            }
            for instance, advert in wanted.items():
                if instance in self._operational:
                    continue
                info = self._info(OPERATIONAL, instance, txt)
                self._operational[instance] = (info, advert.subtypes())
                await self._register(info, advert.subtypes())
                log.info("advertising operational %s", info.name)

    async def close(self) -> None:
        if self._zc is None:
            return
        await self.withdraw_commissionable()
        await self.set_operational([])
        await self._zc.async_close()
        self._zc = None


def host_has_ipv6() -> bool:
    return socket.has_ipv6
