"""UDP transport (spec §4.2): one asyncio datagram endpoint on port 5540 (configurable).

Preferred: a dual-stack IPv6 socket (``IPV6_V6ONLY=0``) bound to ``::``, which receives IPv6
(including link-local, whose scope id comes back in the address tuple) and IPv4 (as
``::ffff:a.b.c.d``). Where the host has no IPv6 the transport falls back to an IPv4 socket. Replies
go out on the socket that received the peer, to the address tuple as received.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import struct
from collections.abc import Callable
from typing import Any

__all__ = ["DEFAULT_PORT", "UdpTransport"]

log = logging.getLogger(__name__)
DEFAULT_PORT = 5540
Address = tuple[Any, ...]


class _Protocol(asyncio.DatagramProtocol):
    def __init__(self, on_datagram: Callable[[bytes, Address], None]) -> None:
        self._on_datagram = on_datagram

    def datagram_received(self, data: bytes, addr: Address) -> None:
        self._on_datagram(data, addr)

    def error_received(self, exc: Exception) -> None:
        log.debug("UDP error: %s", exc)  # ICMP unreachable etc.: MRP copes


class UdpTransport:
    def __init__(self, on_datagram: Callable[[bytes, Address], None], *, port: int = DEFAULT_PORT) -> None:
        self._on_datagram = on_datagram
        self.requested_port = port
        self._transports: list[asyncio.DatagramTransport] = []
        self._v6: asyncio.DatagramTransport | None = None
        self._v4: asyncio.DatagramTransport | None = None
        self._v6_socket: socket.socket | None = None
        self._joined: set[tuple[str, int]] = set()  # (multicast address, interface index)

    @property
    def port(self) -> int:
        """The bound port (useful with port 0 in tests)."""
        transport = self._v6 or self._v4
        if transport is None:
            raise RuntimeError("transport not started")
        port: int = transport.get_extra_info("sockname")[1]
        return port

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            sock = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            sock.bind(("::", self.requested_port))
            sock.setblocking(False)
            self._v6, _ = await loop.create_datagram_endpoint(lambda: _Protocol(self._on_datagram), sock=sock)
            self._v6_socket = sock
            self._transports.append(self._v6)
        except OSError as exc:
            log.info("no dual-stack IPv6 socket (%s); using IPv4 only", exc)
        if self._v6 is None:
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sock.bind(("0.0.0.0", self.requested_port))
            sock.setblocking(False)
            self._v4, _ = await loop.create_datagram_endpoint(lambda: _Protocol(self._on_datagram), sock=sock)
            self._transports.append(self._v4)
        log.info("Matter UDP transport listening on port %d", self.port)

    def send(self, data: bytes, address: Address) -> None:
        if len(address) == 4 or ":" in str(address[0]):
            transport = self._v6
        else:
            transport = self._v4
            if transport is None and self._v6 is not None:
                transport, address = self._v6, (f"::ffff:{address[0]}", address[1], 0, 0)
        if transport is None or transport.is_closing():
            return
        transport.sendto(data, address)

    def join_multicast(self, addresses: list[str], interfaces: list[str] | None = None) -> None:
        """Be a member of exactly these IPv6 multicast groups (group messages, Core §2.5.6.2) on the named
        interfaces (every interface but loopback when None); groups no longer wanted are left."""
        if self._v6_socket is None:
            if addresses:
                log.warning("no IPv6 socket: group messages cannot be received")
            return
        names = interfaces if interfaces is not None else [n for _, n in socket.if_nameindex() if n != "lo"]
        indexes = [socket.if_nametoindex(n) for n in names if n in {m for _, m in socket.if_nameindex()}]
        wanted = {(address, index) for address in addresses for index in indexes}
        for option, changes in (
            (socket.IPV6_LEAVE_GROUP, self._joined - wanted),
            (socket.IPV6_JOIN_GROUP, wanted - self._joined),
        ):
            for address, index in sorted(changes):
                request = socket.inet_pton(socket.AF_INET6, address) + struct.pack("@I", index)
                try:
                    self._v6_socket.setsockopt(socket.IPPROTO_IPV6, option, request)
                except OSError as error:
                    log.warning("multicast %s on interface %d: %s", address, index, error)
                    continue
                (self._joined.add if option == socket.IPV6_JOIN_GROUP else self._joined.discard)((address, index))
        if wanted:
            log.info("listening for group messages on %s", ", ".join(sorted({a for a, _ in wanted})))

    def close(self) -> None:
        self._joined.clear()
        self._v6_socket = None
        for transport in self._transports:
            transport.close()
        self._transports.clear()
        self._v6 = self._v4 = None
