"""The host's network interfaces as General Diagnostics NetworkInterface structs (Core §11.12.6.2)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import ifaddr

import clusters.official as Objects

InterfaceType = Objects.GeneralDiagnostics.Enums.InterfaceTypeEnum
MAX_INTERFACES, MAX_IPV4, MAX_IPV6 = 8, 4, 8  # the attribute's list limits
SYS_NET = Path("/sys/class/net")


def _sys(name: str, entry: str) -> str | None:
    try:
        return (SYS_NET / name / entry).read_text().strip()
    except OSError:
        return None


def network_interfaces(names: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Non-loopback interfaces (only ``names`` when given), as JSON-style NetworkInterface structs."""
    wanted = set(names) if names is not None else None
    out: list[dict[str, Any]] = []
    for adapter in sorted(ifaddr.get_adapters(), key=lambda a: a.nice_name):
        name = adapter.nice_name
        if wanted is not None and name not in wanted:
            continue
        addresses = [ipaddress.ip_address(ip.ip[0] if isinstance(ip.ip, tuple) else ip.ip) for ip in adapter.ips]
        if not addresses or all(a.is_loopback for a in addresses):
            continue
        mac = (_sys(name, "address") or "").replace(":", "")
        out.append(
            {
                "name": name[:32],
                # "unknown" is what virtual links (veth, tun) report while they carry traffic
                "isOperational": _sys(name, "operstate") in ("up", "unknown", None),
                "offPremiseServicesReachableIPv4": None,
                "offPremiseServicesReachableIPv6": None,
                "hardwareAddress": mac if len(mac) in (12, 16) else "",
                "IPv4Addresses": [a.packed.hex() for a in addresses if a.version == 4][:MAX_IPV4],
                "IPv6Addresses": [a.packed.hex() for a in addresses if a.version == 6][:MAX_IPV6],
                "type": int(InterfaceType.kWiFi if (SYS_NET / name / "wireless").exists() else InterfaceType.kEthernet),
            }
        )
    return out[:MAX_INTERFACES]
