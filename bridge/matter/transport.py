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

    @property
    def port(self) -> int:
        """The bound port (useful with port 0 in tests)."""
        transport = self._v6 or self._v4
        if transport is None:
            raise RuntimeError("transport not started")
        return transport.get_extra_info("sockname")[1]

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            sock = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            sock.bind(("::", self.requested_port))
            sock.setblocking(False)
            self._v6, _ = await loop.create_datagram_endpoint(lambda: _Protocol(self._on_datagram), sock=sock)
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

    def close(self) -> None:
        for transport in self._transports:
            transport.close()
        self._transports.clear()
        self._v6 = self._v4 = None
