"""Checks a command makes before it does any work: listen addresses and ports (output paths:
``emulator.output_paths``).

Each returns ``None`` when fine, or one sentence naming the bad value and what is allowed, so a command can
refuse bad input at once (exit 2, no state changed) instead of failing with a traceback after the work.
"""

from __future__ import annotations

import contextlib
import errno
import socket


def host_problem(host: str, option: str) -> str | None:
    """A listen address must resolve to an address of this machine's family (no DNS surprises later)."""
    try:
        socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        return f"{option}: cannot resolve host {host!r} ({error}); give an address such as 127.0.0.1 or ::1"
    return None


def _bind_problem(kind: int, host: str, port: int, what: str) -> str | None:
    if port == 0:
        return None
    try:
        infos = socket.getaddrinfo(host, port, type=kind)
    except socket.gaierror as error:
        return f"{what}: cannot resolve host {host!r} ({error})"
    family, _, _, _, address = infos[0]
    with socket.socket(family, kind) as probe:
        if kind == socket.SOCK_STREAM:  # a TIME_WAIT leftover is no conflict for a listener
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            with contextlib.suppress(OSError):
                probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        try:
            probe.bind(address)
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return f"{what}: port {port} is already in use; choose another (0 picks a free one)"
            return f"{what}: cannot listen on {host} port {port} ({error.strerror or error})"
    return None


def tcp_port_problem(host: str, port: int, what: str) -> str | None:
    return _bind_problem(socket.SOCK_STREAM, host, port, what)


def udp_port_problem(port: int, what: str) -> str | None:
    # As the Matter transport does: a dual-stack socket on every address, else IPv4 only.
    if socket.has_ipv6 and _bind_problem(socket.SOCK_DGRAM, "::", port, what) is None:
        return None
    return _bind_problem(socket.SOCK_DGRAM, "0.0.0.0", port, what)
