"""The values a home's last snapshot read of each device, read again only where they may have changed since.

A device is read again in full when a stored value of one of its servers was written (every stored write raises the
device's :class:`clusters.attribute_values.WriteMark`, whether or not the server told its listeners), and its servers
whose values are read live (a bound source such as a physics sensor or a countdown, ``live_reads`` such as the
Descriptor's lists, a ``read`` of its own such as ColorControl's moves) are read again at every snapshot. The rest
of the device's values are the last reading's: the same values ``HomeDevices.read_all`` gives, in the same order.

A device's endpoints and servers are fixed once it is built (a device that changes them is a new Device object,
read in full).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from clusters import ClusterServer
from clusters.attribute_values import WriteMark
from emulator.device import Device

_NOTHING_LIVE: tuple[tuple[str, ClusterServer], ...] = ()


class _Reading:
    """One device's last reading: its values, the mark its servers raise, its servers read live (by key prefix)."""

    __slots__ = ("device", "live", "mark", "values")

    def __init__(self, device: Device) -> None:
        self.device = device
        self.mark = WriteMark()
        values: dict[str, Any] = {}
        live: list[tuple[str, ClusterServer]] = []
        for endpoint_id, endpoint in sorted(device.endpoints.items()):
            for cluster_name, server in endpoint.clusters.items():
                prefix = f"{endpoint_id}.{cluster_name}."
                if server.watch_writes(self.mark):  # before reading: a write from here on raises it
                    live.append((prefix, server))
                server.read_all(prefix, into=values)
        self.values = values
        self.live = tuple(live) if live else _NOTHING_LIVE


class DeviceReadings:
    """Every device's values as of the last ``read``, kept to answer the next one from what did not change."""

    def __init__(self) -> None:
        self._last: dict[str, _Reading] = {}

    def read(self, devices: Iterable[Device]) -> list[dict[str, Any]]:
        """Each device's attributes now (a new dict each, as ``HomeDevices.read_all`` gives them), in order; the
        readings of devices not in ``devices`` are dropped."""
        last, kept = self._last, {}
        found = []
        for device in devices:
            reading = last.get(device.device_id)
            if reading is None or reading.device is not device or reading.mark.written:
                reading = _Reading(device)
            else:
                values = reading.values
                for prefix, server in reading.live:
                    server.read_all(prefix, into=values)  # the same keys: their places in the dict are kept
            kept[device.device_id] = reading
            found.append(dict(reading.values))
        self._last = kept
        return found
