"""What an answer says, read by rules: the words for devices, room variables, negation, saturation and
conflicts, and the matchers for rooms, devices, numbers, times and attribute values (the rules judge's
vocabulary)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

DEVICE_WORDS: dict[str, tuple[str, ...]] = {
    "on_off_light": ("light", "lamp", "bulb"),
    "dimmable_light": ("light", "lamp", "dimmer", "bulb"),
    "air_conditioner": ("air conditioner", "air-conditioner", "aircon", "a/c", "ac"),
    "air_purifier": ("purifier", "air cleaner", "air filter"),
    "fan": ("fan",),
    "humidifier": ("humidifier",),
    "dehumidifier": ("dehumidifier",),
    "heat_pump": ("heat pump", "heatpump", "heater", "heating"),
    "tv": ("tv", "television"),
    "window_covering_controller": ("blind", "shade", "curtain", "covering", "shutter"),
    "dishwasher": ("dishwasher", "dish washer"),
    "laundry_washer": ("washer", "washing machine", "laundry"),
    "laundry_dryer": ("dryer", "drier"),
    "rvc": ("vacuum", "robot", "rvc", "roomba"),
    "freezer": ("freezer",),
    "refrigerator": ("fridge", "refrigerator"),
}
VARIABLE_WORDS: dict[str, tuple[str, ...]] = {
    "temperature": ("temperature", "warm", "hot", "cool", "cold", "heat", "°c", "degree"),
    "humidity": ("humid", "moist", "dry", "damp"),
    "illuminance": ("light", "bright", "dim", "dark", "lux", "illuminan"),
    "pm10": ("air", "dust", "pm10", "pm 10", "pollut", "purif"),
}
NEGATION = (
    "not ",
    "no ",
    "n't",
    "cannot",
    "unable",
    "none",
    "without",
    "missing",
    "absent",
    "unavailable",
    "nothing",
    "never",
    "neither",
    "lack",
    "no longer",
    "doesn't exist",
    "does not exist",
    "no such",
)
SATURATION = (
    "already",
    "maximum",
    "minimum",
    "max",
    "min ",
    "lowest",
    "highest",
    "full",
    "fully",
    "limit",
    "saturat",
    "as far as",
    "no more",
    "nothing more",
    "all off",
    "all on",
    "at its",
    "at their",
    "no further",
    "can't go",
    "cannot go",
    "off already",
    "all the way",
)
CONFLICT = (
    "conflict",
    "contradict",
    "inconsistent",
    "doesn't match",
    "does not match",
    "don't match",
    "mismatch",
    "doesn't line up",
    "does not line up",
    "discrepan",
    "clarify",
    "confirm",
    "which time",
    "which one",
    "did you mean",
    "do you mean",
    "impossible",
    "not possible",
    "can't",
    "cannot",
    "unable",
    "won't",
    "?",
    "but ",
    "however",
    "instead",
    "before it",
    "longer",
    "too long",
    "earlier",
)


def has_any(text: str, words: Sequence[str]) -> bool:
    return any(word in text for word in words)


def normalised(text: str) -> str:
    return " " + re.sub(r"\s+", " ", text.casefold().replace("_", " ").replace("’", "'")) + " "


def mentions_room(text: str, room_id: str) -> bool:
    spoken = room_id.replace("_", " ").casefold()
    words = [w for w in spoken.split() if w != "room"]
    return spoken in text or (bool(words) and all(w in text for w in words))


def mentions_device(text: str, device_type: str | None, device_id: str | None = None) -> bool:
    if device_id and device_id.replace("_", " ").casefold() in text:
        return True
    words = DEVICE_WORDS.get(device_type or "", ())
    if any(re.search(rf"(?<![a-z]){re.escape(w)}", text) for w in words):
        return True
    return bool(device_type and device_type.replace("_", " ") in text)


NUMBER = re.compile(r"-?\d+(?:[.,]\d+)?")


def numbers_in(text: str) -> list[float]:
    return [float(n.replace(",", ".")) for n in NUMBER.findall(text)]


# Display unit, internal → display factor, and the tolerance in display units.
ROOM_STATE_UNITS: dict[str, tuple[float, float, float]] = {
    "temperature": (0.01, 0.5, 0.0),
    "humidity": (0.01, 1.0, 0.0),
    "illuminance": (1.0, 5.0, 0.02),
    "pm10": (1.0, 1.0, 0.05),
}


def number_matches(text: str, truth: float, variable: str) -> bool:
    factor, absolute, relative = ROOM_STATE_UNITS[variable]
    display = truth * factor
    tol = max(absolute, abs(display) * relative)
    return any(abs(n - display) <= tol or abs(n - truth) <= tol / factor for n in numbers_in(text))


# Quantities a device_attribute goal may name (``quantity``): the internal unit's factor to each spelling accepted.
QUANTITY_SCALES = {
    "power_mW": (1.0, 1e-3, 1e-6),  # mW, W, kW
    "energy_mWh": (1.0, 1e-3, 1e-6),  # mWh, Wh, kWh
}
QUANTITY_TOLERANCE = 0.02  # relative: 10.47 kWh read from the meter accepts 10.3 … 10.7 kWh, not "about 10 kWh"


def quantity_matches(text: str, truth: float, quantity: str) -> bool:
    """A power or energy in the answer in any of its units, sign ignored (producing 369 W and ActivePower
    −369136 agree), within :data:`QUANTITY_TOLERANCE` of the truth."""
    magnitude = abs(truth)
    return any(
        abs(abs(n) - magnitude * scale) <= max(magnitude * scale * QUANTITY_TOLERANCE, 1e-9)
        for n in numbers_in(text)
        for scale in QUANTITY_SCALES[quantity]
    )


def times_in_formats(hhmmss: str) -> list[str]:
    """'14:22:00' → ['14:22', '2:22', '02:22'] (12- and 24-hour clock spellings)."""
    match = re.fullmatch(r"(\d{1,2}):(\d{2})(?::\d{2})?", hhmmss.strip())
    if not match:
        return []
    hour, minute = int(match.group(1)), match.group(2)
    twelve = hour % 12 or 12
    return sorted({f"{hour:02d}:{minute}", f"{hour}:{minute}", f"{twelve}:{minute}", f"{twelve:02d}:{minute}"})


def spoken(name: str) -> str:
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).casefold().replace("_", " ")


def value_mentioned(text: str, value: Any, enum_names: Mapping[int, str] | None = None) -> bool:
    if value is None:
        return has_any(text, ("none", "null", "not set", "no value", "unknown", "n/a"))
    if isinstance(value, bool):
        yes = (" on ", " on.", " on,", "true", "yes", "enabled", "active", "running", "is on", "switched on")
        no = (" off", "false", " no ", "disabled", "inactive", "not on", "switched off")
        return has_any(text, yes) if value else has_any(text, no)
    if isinstance(value, int | float):
        if enum_names and int(value) in enum_names and spoken(enum_names[int(value)]) in text:
            return True
        return any(abs(n - value) <= max(1e-9, abs(value) * 0.005) for n in numbers_in(text))
    if isinstance(value, str):
        return value.casefold().replace("_", " ") in text or spoken(value) in text
    if isinstance(value, Mapping):
        for key in ("name", "label", "callSign", "identifier"):
            if isinstance(value.get(key), str) and value_mentioned(text, value[key]):
                return True
        return False
    if isinstance(value, list):
        return bool(value) and any(value_mentioned(text, item) for item in value)
    return False
