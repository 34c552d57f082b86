"""Piecewise-affine room dynamics integrated in closed form.

Every environment variable evolves by SimuHome's per-tick rule (facts §4), evaluated every tick:
``x' = clamp((x + Σ δ_i(x)) · (1 − a) + a · B)`` with drift ``a`` toward the baseline ``B``. Each
device term ``δ_i`` is piecewise affine in ``x`` (a capped push toward a setpoint, a constant
push, an efficiency that falls linearly), so on one piece the whole map is ``x ↦ αx + β`` and
``n`` ticks of it are ``x* + (x0 − x*)·αⁿ``. A segment lasts until the trajectory leaves its piece
(computed in closed form) or a device changes: cost grows with events, not ticks, and the values
equal tick-by-tick stepping of the same rule.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

INF = math.inf
NEG_INF = -math.inf  # one object: ``-INF`` in a hot path would allocate a float per call (and per segment kept)


def same_float(a: float, b: float) -> bool:
    """Whether two floats have the same bits (NaN aside): equal and with the same sign, so 0.0 and -0.0 differ.
    A computation from ``a`` then gives exactly what the same one from ``b`` gives (a memo's key check)."""
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


class Term:
    """A per-tick contribution δ(x), affine on each piece ``[bounds[i], bounds[i+1])``. Immutable: terms with equal
    pieces may be one object, shared by rooms and homes."""

    __slots__ = ("bounds", "coefficients")

    def __init__(self, pieces: list[tuple[float, float, float]]) -> None:
        # pieces: (lower bound, slope, intercept); the first lower bound must be -inf.
        pieces = sorted(pieces)
        if pieces[0][0] != NEG_INF:
            raise ValueError("the first piece must start at -inf")
        self.bounds = tuple(p[0] for p in pieces)
        # piece i's slope and intercept at 2i and 2i + 1: one flat tuple, not a pair per piece (memory per home)
        self.coefficients = tuple(c for p in pieces for c in (p[1], p[2]))

    def locate(self, x: float) -> tuple[float, float, float, float]:
        i = bisect.bisect_right(self.bounds, x) - 1
        upper = self.bounds[i + 1] if i + 1 < len(self.bounds) else INF
        return self.bounds[i], upper, self.coefficients[2 * i], self.coefficients[2 * i + 1]

    def delta(self, x: float) -> float:
        _, _, slope, intercept = self.locate(x)
        return slope * x + intercept


def constant_term(delta: float) -> Term:
    return Term([(NEG_INF, 0.0, delta)])


def push_down_above(threshold: float, cap: float, gain: float) -> Term:
    """δ = −min(cap, gain·(x − threshold)) above the threshold, 0 below (a cooler, a purifier floor)."""
    if cap <= 0 or gain <= 0:
        return constant_term(0.0)
    return Term([(NEG_INF, 0.0, 0.0), (threshold, -gain, gain * threshold), (threshold + cap / gain, 0.0, -cap)])


def push_up_below(threshold: float, cap: float, gain: float) -> Term:
    """δ = +min(cap, gain·(threshold − x)) below the threshold, 0 above (a heater)."""
    if cap <= 0 or gain <= 0:
        return constant_term(0.0)
    return Term([(NEG_INF, 0.0, cap), (threshold - cap / gain, -gain, gain * threshold), (threshold, 0.0, 0.0)])


@dataclass(frozen=True, slots=True)  # slots: every room holds one per variable (memory per home)
class Process:
    """The per-tick map of one variable under a fixed set of device terms."""

    terms: tuple[Term, ...]
    drift: float  # a: fraction of the distance to the baseline recovered per tick
    baseline: float
    lower: float = -INF
    upper: float = INF

    def clamp(self, x: float) -> float:
        return min(max(x, self.lower), self.upper)

    def step(self, x: float) -> float:
        """One tick of the rule, exactly as a tick-by-tick simulator applies it."""
        total = x + sum(term.delta(x) for term in self.terms)
        return self.clamp(total * (1.0 - self.drift) + self.drift * self.baseline)

    def affine_at(self, x: float) -> tuple[float, float, float, float]:
        """(α, β, L, R): the map is x ↦ αx + β (before clamping) for every x in [L, R)."""
        low, high, slope, intercept = NEG_INF, INF, 0.0, 0.0
        for term in self.terms:
            t_low, t_high, t_slope, t_intercept = term.locate(x)
            low, high = max(low, t_low), min(high, t_high)
            slope += t_slope
            intercept += t_intercept
        keep = 1.0 - self.drift
        return _alpha(slope, keep), intercept * keep + self.drift * self.baseline, low, high


# (keep, whether the slope is 0) → (the slope last asked, (1 + slope)·keep): rooms under the same rates mostly follow
# one map per variable (drift alone, or drift and the walls), so its α is one float object for all of them, not one
# per segment (memory per home). Equal slopes and keeps give the same bits: ±0.0 added to 1.0 give 1.0, and
# keep = 1 − drift is never -0.0. Only the last slope per key: the memo stays a few entries, whatever the homes, and
# a room with device terms does not evict the drift-only map the others share.
_LAST_ALPHA: dict[tuple[float, bool], tuple[float, float]] = {}
_LAST_ALPHA_MAX = 64  # keys remembered (a sweep over many drifts starts over)


def _alpha(slope: float, keep: float) -> float:
    key = (keep, slope == 0.0)
    last = _LAST_ALPHA.get(key)
    if last is not None and last[0] == slope:
        return last[1]
    if len(_LAST_ALPHA) >= _LAST_ALPHA_MAX:
        _LAST_ALPHA.clear()
    alpha = (1.0 + slope) * keep
    _LAST_ALPHA[key] = (slope, alpha)  # one assignment: threads building homes see a whole pair
    return alpha


class Segment:
    """The closed-form trajectory of one variable from ``x0`` at tick ``start`` until it leaves its affine piece.
    A room's variable holds its segment alone (no (start, segment) pair, no dict of them: memory per home)."""

    __slots__ = ("alpha", "beta", "exit_after", "high", "low", "process", "start", "stepwise", "x0")

    MAX_EXIT = 10**12

    def __init__(self, process: Process, x0: float, start: int = 0) -> None:
        self.process = process
        self.x0 = x0
        self.start = start  # the tick it began (0 for a segment whose owner keeps its start beside it)
        alpha, beta, low, high = process.affine_at(x0)
        self.alpha, self.beta = alpha, beta
        self.low, self.high = low, high
        self.stepwise = not (0.0 < alpha < 1.0)  # non-contracting pieces are rare: step them
        self.exit_after = self._exit_after()

    @property
    def fixed(self) -> float:
        """Where the trajectory comes to rest (computed when asked, the same float each time: a float less per
        segment kept)."""
        return self.x0 if self.stepwise else self.beta / (1.0 - self.alpha)

    def value_at(self, tick: int) -> float:
        """The value at ``tick`` (from ``start`` to ``start + exit_after``)."""
        return self.value_after(tick - self.start)

    def _inside(self, x: float) -> bool:
        return self.low <= x < self.high and self.process.lower <= x <= self.process.upper

    def _raw(self, n: int) -> float:
        if n == 0:
            return self.x0
        fixed = self.fixed
        return fixed + (self.x0 - fixed) * self.alpha**n

    def value_after(self, n: int) -> float:
        """The value after ``n`` ticks (n ≤ exit_after)."""
        if self.stepwise:
            x = self.x0
            for _ in range(n):
                x = self.process.step(x)
            return x
        return self.process.clamp(self._raw(n))

    def _exit_after(self) -> int | None:
        """Ticks until the value first lies outside this piece (None: never)."""
        if self.stepwise:
            return 1
        x0, fixed = self.x0, self.fixed
        clamped_at_bound = (x0 >= self.process.upper and fixed >= x0) or (x0 <= self.process.lower and fixed <= x0)
        if clamped_at_bound or x0 == fixed:
            return None  # held at a clamp bound, or at rest on the fixed point
        if self._inside(fixed) or (fixed == self.high and fixed > x0):
            return None  # converges inside the piece (approaching its open end never reaches it)
        bound = min(self.high, self.process.upper) if fixed > x0 else max(self.low, self.process.lower)
        ratio = (bound - fixed) / (x0 - fixed)
        estimate = 1 if ratio <= 0 else max(1, int(math.log(ratio) / math.log(self.alpha)))
        n = min(estimate, self.MAX_EXIT)
        while self._inside(self._raw(n)):
            n += 1
        while n > 1 and not self._inside(self._raw(n - 1)):
            n -= 1
        return n
