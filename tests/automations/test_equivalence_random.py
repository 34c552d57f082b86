"""The exact deciders against brute force, on seeded random cases: the cron day walk against listing every
firing of both schedules, and interval truth sets against evaluating every value of a small integer domain."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from emulator.automations.cron import parse_cron
from emulator.automations.domains import Domain, truth_set, witness
from emulator.automations.equivalence import cron_difference
from emulator.automations.model import compare

START = datetime(2025, 8, 23, 9, 17, 30)
HORIZON = timedelta(days=75)


def _field(rng: random.Random, low: int, high: int, names: tuple[str, ...] = ()) -> str:
    kind = rng.randrange(5)
    if kind == 0:
        return "*"
    if kind == 1:
        start = rng.randint(low, high)
        return f"{start}/{rng.randint(1, max(1, (high - low) // 2))}"
    if kind == 2:
        a, b = rng.randint(low, high), rng.randint(low, high)
        return f"{a}-{b}"
    values = sorted(rng.sample(range(low, high + 1), rng.randint(1, 3)))
    if names and rng.random() < 0.5:
        return ",".join(names[v - 1] for v in values)
    return ",".join(map(str, values))


def _expression(rng: random.Random) -> str:
    second = rng.choice(("0", "30", "0,30"))
    minute = rng.choice(("0", "15", "0/20", "5,45"))
    hour = _field(rng, 0, 23)
    month = _field(rng, 1, 12, ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"))
    if rng.random() < 0.5:
        dom, dow = rng.choice((_field(rng, 1, 31), "L", "L-3", "15W", "LW")), "?"
    else:
        dom, dow = (
            "?",
            rng.choice((_field(rng, 1, 7, ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")), "6L", "2#2", "1#5")),
        )
    return f"{second} {minute} {hour} {dom} {month} {dow} *"


def _brute(gold: str, predicted: str) -> bool:
    end = START + HORIZON
    return parse_cron(gold).firings(START, end) == parse_cron(predicted).firings(START, end)


def test_cron_day_walk_agrees_with_listing_every_firing() -> None:
    rng = random.Random(9)
    same = different = 0
    for _ in range(150):
        gold = _expression(rng)
        # The same schedule 30 % of the time, else another random one (a few of those are equal too).
        predicted = gold if rng.random() < 0.3 else _expression(rng)
        decided = cron_difference(gold, predicted, START, HORIZON) is None
        assert decided == _brute(gold, predicted), (gold, predicted)
        same += decided
        different += not decided
    assert same >= 30 and different >= 30  # both answers were exercised


def test_truth_sets_agree_with_evaluating_every_integer() -> None:
    rng = random.Random(4)
    domain = Domain("integer", 0, 60)
    ops = (">", ">=", "<", "<=", "==", "!=")
    for _ in range(2000):
        a = (rng.choice(ops), rng.choice((rng.randint(-5, 65), rng.randint(-5, 65) + 0.5)))
        b = (rng.choice(ops), rng.choice((rng.randint(-5, 65), rng.randint(-5, 65) + 0.5)))
        brute_a = {x for x in range(61) if compare(x, *a)}
        brute_b = {x for x in range(61) if compare(x, *b)}
        set_a, set_b = truth_set(domain, *a), truth_set(domain, *b)
        assert (set_a == set_b) == (brute_a == brute_b), (a, b, set_a, set_b)
        if brute_a != brute_b:
            x = witness(domain, set_a, set_b)
            assert x in brute_a ^ brute_b, (a, b, x)


def test_real_truth_sets_differ_exactly_when_a_value_separates_them() -> None:
    rng = random.Random(5)
    domain = Domain("real", 0.0, 100.0)
    ops = (">", ">=", "<", "<=", "==", "!=")
    probes = [x / 4 for x in range(-8, 409)]  # every boundary used below and the points between them
    for _ in range(2000):
        a = (rng.choice(ops), rng.randint(-1, 101) / 2)
        b = (rng.choice(ops), rng.randint(-1, 101) / 2)
        differs = any(compare(x, *a) != compare(x, *b) for x in probes if 0 <= x <= 100)
        set_a, set_b = truth_set(domain, *a), truth_set(domain, *b)
        assert (set_a != set_b) == differs, (a, b, set_a, set_b)
        if differs:
            x = witness(domain, set_a, set_b)
            assert x is not None and compare(x, *a) != compare(x, *b), (a, b, x)
