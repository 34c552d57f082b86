"""Parse human durations such as "24h", "90m", "1h30m", "45s", "2d" or plain seconds."""

from __future__ import annotations

import math
import re

_UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
_PART = re.compile(r"(\d+(?:\.\d+)?)([dhms])")


def parse_duration(text: str) -> float:
    """Seconds (> 0: a span of virtual time to run); ValueError naming the text and the allowed forms."""
    cleaned = text.strip().lower().replace(" ", "")
    try:
        seconds = float(cleaned)
    except ValueError:
        parts = _PART.findall(cleaned)
        if not parts or "".join(n + u for n, u in parts) != cleaned:
            raise ValueError(f"cannot read duration {text!r}: use e.g. 24h, 90m, 1h30m, 45s, 2d or seconds") from None
        seconds = sum(float(number) * _UNITS[unit] for number, unit in parts)
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"duration {text!r} must be a positive span of time, e.g. 24h, 90m or 45s")
    return seconds
