"""Air Quality cluster (0x005B): one enum reading; the levels a sensor can report depend on its features."""

from __future__ import annotations

import clusters.official as Objects
from clusters.base import ClusterServer
from clusters.status import HomeError, Status
from clusters.values import enum_members

Feature = Objects.AirQuality.Bitmaps.Feature
Quality = Objects.AirQuality.Enums.AirQualityEnum
# Levels that need a feature; Unknown, Good and Poor are always allowed.
LEVEL_FEATURE = {
    int(Quality.kFair): Feature.kFair,
    int(Quality.kModerate): Feature.kModerate,
    int(Quality.kVeryPoor): Feature.kVeryPoor,
    int(Quality.kExtremelyPoor): Feature.kExtremelyPoor,
}


class AirQualityServer(ClusterServer):
    __slots__ = ()
    cluster_name = "AirQuality"
    revision = 1
    default_features = int(Feature.kFair | Feature.kModerate | Feature.kVeryPoor | Feature.kExtremelyPoor)
    defaults = {"AirQuality": int(Quality.kUnknown)}

    def supported_levels(self) -> list[int]:
        return [
            v for v in enum_members(Quality).values() if v not in LEVEL_FEATURE or self.has_feature(LEVEL_FEATURE[v])
        ]

    def set_air_quality(self, level: int) -> None:
        """Report a new AirQualityEnum value (refused when the sensor's features cannot express it)."""
        if level not in self.supported_levels():
            raise HomeError.refused(
                Status.CONSTRAINT_ERROR,
                f"AirQuality={level} is not a level this sensor reports",
                allowed=self.supported_levels(),
            )
        self.set("AirQuality", level)
