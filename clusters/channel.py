"""Channel (0x0504): a TV tuner — the channel list, the lineup and the current channel.

The TV's power dependency (commands refused while off) is handled at the device level, not here.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import clusters.official as Objects
from clusters.base import ClusterServer, command
from clusters.status import HomeError, Status

ChannelStatus = Objects.Channel.Enums.StatusEnum
ChannelFeature = Objects.Channel.Bitmaps.Feature


def _channel(major: int, name: str, affiliate: str) -> dict[str, Any]:
    return {
        "majorNumber": major,
        "minorNumber": 0,
        "name": name,
        "callSign": name,
        "affiliateCallSign": affiliate,
        "identifier": name.lower(),
        "type": int(Objects.Channel.Enums.ChannelTypeEnum.kTerrestrial),
    }


DEFAULT_CHANNELS: tuple[dict[str, Any], ...] = (
    _channel(1, "KBS1", "KBS"),
    _channel(2, "KBS2", "KBS"),
    _channel(3, "MBC", "MBC"),
    _channel(4, "SBS", "SBS"),
    _channel(5, "EBS", "EBS"),
)
DEFAULT_LINEUP = {
    "operatorName": "Terrestrial Broadcast",
    "lineupName": "Seoul Terrestrial",
    "postalCode": "04524",
    "lineupInfoType": int(Objects.Channel.Enums.LineupInfoTypeEnum.kMso),
}
# ChangeChannel match priority (SimuHome compatible): first tier with any match wins.
MATCH_FIELDS = ("identifier", "affiliateCallSign", "callSign", "name")


def _number(channel: Mapping[str, Any]) -> str:
    return f"{channel.get('majorNumber')}.{channel.get('minorNumber')}"


class ChannelServer(ClusterServer):
    """A TV tuner.

    Constructor options: ``channels`` (list of ChannelInfoStruct dicts; default KBS1 1.0, KBS2 2.0,
    MBC 3.0, SBS 4.0, EBS 5.0 — identifiers lower-case, terrestrial), ``lineup`` (LineupInfoStruct
    dict or None), ``current`` (index into the list, default 0), plus ``features`` (default
    ChannelList | LineupInfo) and ``values``.
    """

    __slots__ = ("_previous", "_unlisted_channels")

    cluster_name = "Channel"
    revision = 2
    default_features = int(ChannelFeature.kChannelList) | int(ChannelFeature.kLineupInfo)
    defaults = {"ChannelList": [], "Lineup": None, "CurrentChannel": None}

    def __init__(
        self,
        *,
        channels: list[Mapping[str, Any]] | None = None,
        lineup: Mapping[str, Any] | None = DEFAULT_LINEUP,
        current: int = 0,
        features: int | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(features=features)
        listing = [dict(c) for c in (DEFAULT_CHANNELS if channels is None else channels)]
        # Tuning works even without the ChannelList feature, from the channels given: None for the default ones
        # (immutable: a catalogue entry's servers are copied, not built again)
        self._unlisted_channels: list[dict[str, Any]] | None = None if channels is None else listing
        if "ChannelList" in self._held:
            self.restore("ChannelList", listing)
        if "Lineup" in self._held:
            self.restore("Lineup", lineup)
        self.restore("CurrentChannel", copy.deepcopy(listing[current]) if listing else None)
        self._previous: dict[str, Any] | None = None
        for name, value in (values or {}).items():
            self.restore(name, value)

    def initial_values(self) -> dict[str, Any]:
        out: dict[str, Any] = {"CurrentChannel": None}
        if self.has_feature(ChannelFeature.kChannelList):
            out["ChannelList"] = []
        if self.has_feature(ChannelFeature.kLineupInfo):
            out["Lineup"] = None
        return out

    def accepts(self, command_name: str) -> bool:
        if command_name == "ChangeChannel":
            return self.has_feature(ChannelFeature.kChannelList) or self.has_feature(ChannelFeature.kLineupInfo)
        return True

    # ----------------------------------------------------------------------------- public API
    @property
    def channels(self) -> list[dict[str, Any]]:
        if "ChannelList" in self._held:  # a read: no values of its own taken
            listed: list[dict[str, Any]] = self.read("ChannelList")
            return listed
        if self._unlisted_channels is None:
            return [dict(c) for c in DEFAULT_CHANNELS]
        return self._unlisted_channels

    def change_to(self, channel: Mapping[str, Any]) -> None:
        current = self.read("CurrentChannel")
        if current is not None and _number(current) != _number(channel):
            self._previous = copy.deepcopy(current)
        self.set("CurrentChannel", copy.deepcopy(dict(channel)))

    def skip(self, count: int) -> None:
        listing = self.channels
        if not listing:
            raise HomeError.refused(Status.INVALID_IN_STATE, "Channel: the channel list is empty", reason="NO_CHANNELS")
        self.change_to(listing[(self._index() + count) % len(listing)])

    def previous_channel(self) -> bool:
        """Back to the channel watched before (the PREVIOUS_CHANNEL key); False if there is none."""
        if self._previous is None:
            return False
        self.change_to(self._previous)
        return True

    # ----------------------------------------------------------------------------- commands
    @command("ChangeChannel")
    def change_channel(self, match: str) -> dict[str, Any]:
        wanted = match.strip().lower()
        found: list[dict[str, Any]] = []
        for field in MATCH_FIELDS:
            found = [c for c in self.channels if str(c.get(field) or "").lower() == wanted]
            if found:
                break
        else:
            found = [c for c in self.channels if _number(c) == wanted or str(c.get("majorNumber")) == wanted]
        names = [c.get("name") or _number(c) for c in self.channels]
        if len(found) != 1:
            many = len(found) > 1
            status = ChannelStatus.kMultipleMatches if many else ChannelStatus.kNoMatches
            why = f"matches {len(found)} channels" if many else "matches no channel"
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR if many else Status.NOT_FOUND,
                f"Channel.ChangeChannel match {match!r} {why}",
                allowed=names,
                reason="MULTIPLE_MATCHES" if many else "NO_MATCHES",
                response={"status": int(status), "data": why},
            )
        self.change_to(found[0])
        return {"status": int(ChannelStatus.kSuccess)}

    @command("ChangeChannelByNumber", aliases={"major_number": "majorNumber", "minor_number": "minorNumber"})
    def change_channel_by_number(self, majorNumber: int, minorNumber: int = 0) -> None:
        for channel in self.channels:
            if channel.get("majorNumber") == majorNumber and channel.get("minorNumber") == minorNumber:
                self.change_to(channel)
                return
        raise HomeError.refused(
            Status.CONSTRAINT_ERROR,
            f"Channel: no channel {majorNumber}.{minorNumber}",
            allowed=[_number(c) for c in self.channels],
            reason="NO_MATCHES",
        )

    @command("SkipChannel")
    def skip_channel(self, count: int) -> None:
        self.skip(count)

    def _index(self) -> int:
        current = self.read("CurrentChannel")
        numbers = [_number(c) for c in self.channels]
        return numbers.index(_number(current)) if current is not None and _number(current) in numbers else 0
