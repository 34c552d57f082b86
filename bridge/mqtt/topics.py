"""The MQTT topic layout of one home.

<base>/<home>/status                        bridge availability: "online" / "offline" (retained, last will)
<base>/<home>/error                         errors for topics naming no known device
<base>/<home>/<device>/<entity>/state       the entity's state as JSON (retained)
<base>/<home>/<device>/<entity>/set         commands (ON/OFF, JSON light payloads, OPEN, LOCK, PRESS …)
<base>/<home>/<device>/<entity>/set/<field> one-field commands (percentage, mode, temperature, position …)
<base>/<home>/<device>/error                answers to refused or malformed commands (JSON, not retained)
<discovery>/device/<ha id>/config           Home Assistant device-based discovery (retained)
<discovery>/status                          Home Assistant's birth message: "online" → re-announce
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def topic_segment(text: str) -> str:
    """One safe topic level / discovery id: MQTT wildcards, slashes and spaces become "_"."""
    return _UNSAFE.sub("_", text) or "_"


@dataclass(frozen=True)
class CommandRoute:
    """A command topic taken apart."""

    device_id: str
    entity_key: str
    field: str | None  # None for <entity>/set, else the <field> of <entity>/set/<field>


@dataclass(frozen=True)
class Topics:
    base: str
    home: str
    discovery_prefix: str = "homeassistant"

    @property
    def root(self) -> str:
        return f"{self.base}/{topic_segment(self.home)}"

    @property
    def availability(self) -> str:
        return f"{self.root}/status"

    @property
    def home_error(self) -> str:
        return f"{self.root}/error"

    @property
    def ha_status(self) -> str:
        return f"{self.discovery_prefix}/status"

    def device(self, device_id: str) -> str:
        return f"{self.root}/{topic_segment(device_id)}"

    def state(self, device_id: str, key: str) -> str:
        return f"{self.device(device_id)}/{key}/state"

    def command(self, device_id: str, key: str, field: str | None = None) -> str:
        topic = f"{self.device(device_id)}/{key}/set"
        return topic if field is None else f"{topic}/{field}"

    def error(self, device_id: str) -> str:
        return f"{self.device(device_id)}/error"

    def ha_device_id(self, device_id: str) -> str:
        return topic_segment(f"{self.base}_{self.home}_{device_id}")

    def discovery(self, device_id: str) -> str:
        return f"{self.discovery_prefix}/device/{self.ha_device_id(device_id)}/config"

    def command_filters(self) -> list[str]:
        """Subscriptions that catch every command topic of this home."""
        return [f"{self.root}/+/+/set", f"{self.root}/+/+/set/+"]

    def parse_command(self, topic: str) -> CommandRoute | None:
        prefix = self.root + "/"
        if not topic.startswith(prefix):
            return None
        parts = topic[len(prefix) :].split("/")
        if len(parts) == 3 and parts[2] == "set":
            return CommandRoute(parts[0], parts[1], None)
        if len(parts) == 4 and parts[2] == "set":
            return CommandRoute(parts[0], parts[1], parts[3])
        return None
