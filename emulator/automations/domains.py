"""The values a compared quantity can take, and the exact set of them where a comparison holds.

A room variable is real-valued within its declared limits; a device attribute takes its chip type's domain:
integers (bounded by its constraint or, for a sensor reading, by Min/MaxMeasuredValue), a finite set (bool,
enum members, a closed list of allowed values) or reals. Truth sets are unions of intervals (integers:
closed integer intervals; reals: intervals with open or closed ends) or finite sets, so two comparisons
hold on the same values exactly when their canonical truth sets are equal, and a witness of a difference
is found among the interval ends and the points between them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from emulator.automations.model import StateCondition, compare

if TYPE_CHECKING:
    from emulator.emulated_home import EmulatedHome

INF = math.inf
# EnvironmentState's limits (home_config): centi-°C, centi-%, lux, µg/m³.
ROOM_VARIABLE_LIMITS = {
    "temperature": (-5000.0, 8000.0),
    "humidity": (0.0, 10000.0),
    "illuminance": (0.0, INF),
    "pm10": (0.0, INF),
}
# An interval: (low, low_closed, high, high_closed).
Interval = tuple[float, bool, float, bool]


@dataclass(frozen=True)
class Domain:
    kind: Literal["integer", "real", "finite"]
    low: float = -INF
    high: float = INF
    values: tuple[Any, ...] = ()

    def describe(self) -> str:
        if self.kind == "finite":
            return "{" + ", ".join(map(repr, self.values)) + "}"
        return f"{self.kind}s {_num(self.low)}..{_num(self.high)}"


def _num(value: float) -> str:
    return ("-∞" if value < 0 else "∞") if math.isinf(value) else f"{value:g}"


def domain_of(home: EmulatedHome, condition: StateCondition) -> Domain | None:
    """The declared domain of what ``condition`` compares (None: not a scalar we can reason about)."""
    if condition.room_id is not None:
        room_low, room_high = ROOM_VARIABLE_LIMITS[condition.variable or ""]
        return Domain("real", room_low, room_high)
    from chip.tlv import float32, uint

    endpoint, cluster, attribute = (condition.path or "").split(".")
    device = home.device(condition.device_id or "")
    server = device.cluster(int(endpoint), cluster)
    model = server.model.attributes.get(attribute)
    if model is None:
        return None
    kind = model.type
    constraint = server.constraints.get(attribute)
    if constraint is not None and constraint.allowed is not None:
        return Domain("finite", values=tuple(constraint.allowed))
    if kind.base is bool:
        return Domain("finite", values=(False, True))
    if kind.is_enum:
        from clusters.values import enum_members

        return Domain("finite", values=tuple(sorted(enum_members(kind.base).values())))
    low = constraint.minimum if constraint is not None and constraint.minimum is not None else None
    high = constraint.maximum if constraint is not None and constraint.maximum is not None else None
    if attribute == "MeasuredValue":  # a sensor reads within its own declared range
        low = server.read("MinMeasuredValue") if low is None and server.has_attribute("MinMeasuredValue") else low
        high = server.read("MaxMeasuredValue") if high is None and server.has_attribute("MaxMeasuredValue") else high
    if kind.base in (int, uint):
        floor = 0.0 if kind.base is uint else -INF
        return Domain("integer", float(low) if low is not None else floor, float(high) if high is not None else INF)
    if kind.base in (float, float32):
        return Domain("real", float(low) if low is not None else -INF, float(high) if high is not None else INF)
    return None


# ---------------------------------------------------------------------------------- truth sets
def truth_set(domain: Domain, op: str, value: Any) -> Any:
    """Where ``x op value`` holds over ``domain``: a frozenset (finite) or a tuple of merged intervals."""
    if domain.kind == "finite":
        return frozenset(v for v in domain.values if compare(v, op, value))
    if isinstance(value, bool):
        return () if op == "==" else ((domain.low, True, domain.high, True),)
    raw = _intervals(op, float(value))
    return _canonical(domain, raw)


def intersect(domain: Domain, a: Any, b: Any) -> Any:
    if domain.kind == "finite":
        return a & b
    out = []
    for x in a:
        for y in b:
            low, low_closed = max((x[0], x[1]), (y[0], y[1]), key=lambda p: (p[0], not p[1]))
            high, high_closed = min((x[2], x[3]), (y[2], y[3]), key=lambda p: (p[0], p[1]))
            out.append((low, low_closed, high, high_closed))
    return _canonical(domain, out)


def whole(domain: Domain) -> Any:
    if domain.kind == "finite":
        return frozenset(domain.values)
    return _canonical(domain, [(-INF, False, INF, False)])


def _intervals(op: str, v: float) -> list[Interval]:
    return {
        ">": [(v, False, INF, False)],
        ">=": [(v, True, INF, False)],
        "<": [(-INF, False, v, False)],
        "<=": [(-INF, False, v, True)],
        "==": [(v, True, v, True)],
        "!=": [(-INF, False, v, False), (v, False, INF, False)],
    }[op]


def _canonical(domain: Domain, intervals: list[Interval]) -> tuple[Interval, ...]:
    """Clip to the domain, make integer intervals closed on integers, drop empties, merge touching ones."""
    clipped: list[Interval] = []
    for low, low_closed, high, high_closed in intervals:
        d_low_closed, d_high_closed = not math.isinf(domain.low), not math.isinf(domain.high)
        if (low, not low_closed) < (domain.low, not d_low_closed):
            low, low_closed = domain.low, d_low_closed
        if (high, high_closed) > (domain.high, d_high_closed):
            high, high_closed = domain.high, d_high_closed
        if domain.kind == "integer":
            low = (
                float(
                    math.floor(low) + 1
                    if not low_closed and not math.isinf(low) and low == math.floor(low)
                    else math.ceil(low)
                )
                if not math.isinf(low)
                else low
            )
            high = (
                float(
                    math.ceil(high) - 1
                    if not high_closed and not math.isinf(high) and high == math.ceil(high)
                    else math.floor(high)
                )
                if not math.isinf(high)
                else high
            )
            low_closed, high_closed = not math.isinf(low), not math.isinf(high)
        if low > high or (low == high and not (low_closed and high_closed)):
            continue
        clipped.append((low, low_closed, high, high_closed))
    clipped.sort(key=lambda i: (i[0], not i[1]))
    merged: list[Interval] = []
    for item in clipped:
        if merged:
            last = merged[-1]
            touching = (
                item[0] < last[2]
                or (item[0] == last[2] and (item[1] or last[3]))
                or (domain.kind == "integer" and item[0] == last[2] + 1)
            )
            if touching:
                if (item[2], item[3]) > (last[2], last[3]):
                    merged[-1] = (last[0], last[1], item[2], item[3])
                continue
        merged.append(item)
    return tuple(merged)


def contains(domain: Domain, truth: Any, x: Any) -> bool:
    if domain.kind == "finite":
        return x in truth
    return any(
        (low < x or (low == x and low_closed)) and (x < high or (x == high and high_closed))
        for low, low_closed, high, high_closed in truth
    )


def witness(domain: Domain, a: Any, b: Any) -> Any:
    """A value where the two truth sets differ (None when they are equal)."""
    if domain.kind == "finite":
        diff = sorted(a ^ b, key=repr)
        return diff[0] if diff else None
    ends = sorted(
        {p for interval in (*a, *b) for p in (interval[0], interval[2]) if not math.isinf(p)}
        | {p for p in (domain.low, domain.high) if not math.isinf(p)}
    )
    probes: list[float] = []
    for i, point in enumerate(ends):
        probes.append(point)
        if i + 1 < len(ends):
            probes.append((point + ends[i + 1]) / 2)
    if ends:
        probes += [ends[0] - 1, ends[-1] + 1]
    for x in probes:
        candidates = [float(math.floor(x)), float(math.ceil(x))] if domain.kind == "integer" else [x]
        for c in candidates:
            inside = domain.low <= c <= domain.high
            if inside and contains(domain, a, c) != contains(domain, b, c):
                return int(c) if domain.kind == "integer" else c
    return None
