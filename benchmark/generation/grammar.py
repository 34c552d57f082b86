"""A small template grammar for user queries: alternatives ``(a|b)``, optional parts ``[x]``, slots ``{name}``,
plus seeded noise (fillers, lowercase, rare typos) that never touches a slot value, so every device, room,
number and time the query must name survives. All wording here is our own.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from datetime import datetime
from typing import Any

PROTECT_OPEN, PROTECT_CLOSE = "\x01", "\x02"

# Device references as a user says them: "<label> <n>", n = the device id's suffix (first label is canonical).
DEVICE_LABELS: dict[str, tuple[str, ...]] = {
    "on_off_light": ("light",),
    "dimmable_light": ("dimmer", "dimmable light"),
    "air_conditioner": ("AC",),
    "air_purifier": ("air purifier", "purifier"),
    "fan": ("fan",),
    "humidifier": ("humidifier",),
    "dehumidifier": ("dehumidifier",),
    "heat_pump": ("heat pump",),
    "tv": ("TV",),
    "window_covering_controller": ("blinds",),
    "dishwasher": ("dishwasher",),
    "laundry_washer": ("washer",),
    "laundry_dryer": ("dryer",),
    "rvc": ("robot vacuum",),
    "freezer": ("freezer",),
    "refrigerator": ("fridge",),
}


def device_number(device_id: str) -> str:
    return device_id.rsplit("_", 1)[-1]


def device_ref(device_id: str, device_type: str, rng: random.Random | None = None) -> str:
    labels = DEVICE_LABELS.get(device_type, (device_type.replace("_", " "),))
    label = rng.choice(labels) if rng is not None else labels[0]
    return f"{label} {device_number(device_id)}"


def room_name(room_id: str) -> str:
    return room_id.replace("_", " ")


def clock_12h(moment: datetime) -> str:
    """``3:07 PM`` (minute precision)."""
    hour = moment.hour % 12 or 12
    return f"{hour}:{moment.minute:02d} {'AM' if moment.hour < 12 else 'PM'}"


def minutes(n: int) -> str:
    return f"{n} minute" if n == 1 else f"{n} minutes"


def number(value: float) -> str:
    """22.5 → "22.5", 22.0 → "22", -18.0 → "-18"."""
    return f"{value:g}"


# --- the expansion engine ---------------------------------------------------------------------------
def _split_top(text: str, sep: str = "|") -> list[str]:
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for char in text:
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char == sep and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def _matching(text: str, start: int) -> int:
    depth = 0
    for index in range(start, len(text)):
        if text[index] in "([":
            depth += 1
        elif text[index] in ")]":
            depth -= 1
            if depth == 0:
                return index
    raise ValueError(f"unbalanced template: {text!r}")


def expand(template: str, rng: random.Random, slots: Mapping[str, Any] | None = None) -> str:
    """Expand ``template``; slot values are wrapped in protection marks (see :func:`finish`)."""
    slots = slots or {}
    out: list[str] = []
    index = 0
    while index < len(template):
        char = template[index]
        if char in "([":
            end = _matching(template, index)
            inner = template[index + 1 : end]
            if char == "(":
                out.append(expand(rng.choice(_split_top(inner)), rng, slots))
            elif rng.random() < 0.5:
                out.append(expand(inner, rng, slots))
            index = end + 1
        elif char == "{":
            end = template.index("}", index)
            value = slots[template[index + 1 : end]]
            out.append(f"{PROTECT_OPEN}{value}{PROTECT_CLOSE}")
            index = end + 1
        else:
            out.append(char)
            index += 1
    return "".join(out)


# The templates picked while this is set to a list, in order (benchmark.training's split rule keeps every
# template in one split); recording draws nothing from the rng, so the queries stay the same.
PICKED_TEMPLATES: ContextVar[list[str] | None] = ContextVar("homefabric_picked_templates", default=None)


def pick(rng: random.Random, templates: Sequence[str], slots: Mapping[str, Any] | None = None) -> str:
    template = rng.choice(list(templates))
    if (picked := PICKED_TEMPLATES.get()) is not None:
        picked.append(template)
    return expand(template, rng, slots)


# --- noise --------------------------------------------------------------------------------------------
FILLERS = ("hey, ", "um, ", "ok so ", "so ", "hmm, ", "quick one: ", "oh and ", "hey there, ", "right, ")
TAILS = (" thanks", " please", " pls", " thx", ", thank you", "!", " asap", " if you can")


def _typo(word: str, rng: random.Random) -> str:
    if len(word) < 5 or not word.isalpha():
        return word
    i = rng.randrange(1, len(word) - 2)
    if rng.random() < 0.5:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]  # swap two letters
    return word[:i] + word[i + 1 :]  # drop one


def _outside_slots(text: str, transform: Any) -> str:
    pieces = re.split(f"({PROTECT_OPEN}[^{PROTECT_CLOSE}]*{PROTECT_CLOSE})", text)
    return "".join(p if p.startswith(PROTECT_OPEN) else transform(p) for p in pieces)


# Typo injection: each word outside a slot value (device, room, number …) gets a swapped or dropped letter with
# this probability, as real typed requests do. `homefabric episodes generate --typo-rate 0` turns it off (the
# episode's homefabric block then records typo_rate); the default keeps the published episode sets byte-identical.
DEFAULT_TYPO_RATE = 0.02
TYPO_RATE: ContextVar[float] = ContextVar("homefabric_typo_rate", default=DEFAULT_TYPO_RATE)


def finish(text: str, rng: random.Random, *, noise: float = 1.0, typo_rate: float | None = None) -> str:
    """Tidy a sentence and add seeded colloquial noise; protected slot values are never altered."""
    typo_rate = TYPO_RATE.get() if typo_rate is None else typo_rate
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([,?.!])", r"\1", text)
    if rng.random() < 0.25 * noise:
        text = rng.choice(FILLERS) + text
    if rng.random() < 0.2 * noise:
        text = text.rstrip(".?!") + rng.choice(TAILS)
    if typo_rate > 0:
        text = _outside_slots(
            text,
            lambda part: re.sub(
                r"[A-Za-z]+", lambda m: _typo(m.group(0), rng) if rng.random() < typo_rate * noise else m.group(0), part
            ),
        )
    casual = rng.random() < 0.3 * noise
    text = text.replace(PROTECT_OPEN, "").replace(PROTECT_CLOSE, "")
    if casual:
        text = text.lower()
        if rng.random() < 0.5:
            text = text.rstrip(".?!")
    elif text:
        text = text[0].upper() + text[1:]
    return text


def join(parts: Sequence[str], rng: random.Random) -> str:
    """Join clauses the way people chain requests."""
    if len(parts) == 1:
        return parts[0]
    glue = rng.choice((" and ", ", and ", ", also ", "; plus ", ". Also, ", ", then "))
    if len(parts) == 2:
        return parts[0] + glue + parts[1]
    return ", ".join(parts[:-1]) + glue + parts[-1]
