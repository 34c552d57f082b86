"""Quartz cron: the CronTrigger tutorial's example table, with next firing times worked out by calendar."""

from __future__ import annotations

from datetime import datetime

import pytest

from emulator.automations.cron import CronError, parse_cron

START = datetime(2024, 6, 27, 21, 0, 0)  # a Thursday evening


def _next(expression: str, after: datetime, count: int) -> list[str | None]:
    schedule, out = parse_cron(expression), list[str | None]()
    current: datetime | None = after
    for _ in range(count):
        assert current is not None
        current = schedule.next_after(current)
        out.append(None if current is None else current.strftime("%Y-%m-%d %H:%M:%S"))
        if current is None:
            break
    return out


# (expression, start, the documented meaning's next firings)
QUARTZ_EXAMPLES = [
    ("0 0 12 * * ?", START, ["2024-06-28 12:00:00", "2024-06-29 12:00:00"]),  # noon every day
    ("0 15 10 ? * *", START, ["2024-06-28 10:15:00", "2024-06-29 10:15:00"]),
    ("0 15 10 * * ?", START, ["2024-06-28 10:15:00", "2024-06-29 10:15:00"]),
    ("0 15 10 * * ? *", START, ["2024-06-28 10:15:00", "2024-06-29 10:15:00"]),
    ("0 15 10 * * ? 2005", datetime(2005, 12, 30, 21), ["2005-12-31 10:15:00", None]),  # only during 2005
    ("0 15 10 * * ? 2005", START, [None]),
    ("0 * 14 * * ?", datetime(2024, 6, 28, 14, 58, 30), ["2024-06-28 14:59:00", "2024-06-29 14:00:00"]),
    ("0 0/5 14 * * ?", datetime(2024, 6, 28, 14, 50), ["2024-06-28 14:55:00", "2024-06-29 14:00:00"]),
    ("0 0/5 14,18 * * ?", datetime(2024, 6, 28, 14, 50), ["2024-06-28 14:55:00", "2024-06-28 18:00:00"]),
    ("0 0-5 14 * * ?", datetime(2024, 6, 28, 14, 4), ["2024-06-28 14:05:00", "2024-06-29 14:00:00"]),
    ("0 10,44 14 ? 3 WED", START, ["2025-03-05 14:10:00", "2025-03-05 14:44:00", "2025-03-12 14:10:00"]),
    ("0 15 10 ? * MON-FRI", START, ["2024-06-28 10:15:00", "2024-07-01 10:15:00"]),  # Fri, then Mon
    ("0 15 10 15 * ?", START, ["2024-07-15 10:15:00", "2024-08-15 10:15:00"]),
    ("0 15 10 L * ?", START, ["2024-06-30 10:15:00", "2024-07-31 10:15:00", "2024-08-31 10:15:00"]),
    ("0 15 10 L-2 * ?", START, ["2024-06-28 10:15:00", "2024-07-29 10:15:00"]),
    ("0 15 10 ? * 6L", START, ["2024-06-28 10:15:00", "2024-07-26 10:15:00"]),  # last Friday
    ("0 15 10 ? * 6L 2002-2005", datetime(2005, 11, 1), ["2005-11-25 10:15:00", "2005-12-30 10:15:00", None]),
    ("0 15 10 ? * 6#3", START, ["2024-07-19 10:15:00", "2024-08-16 10:15:00"]),  # third Friday
    ("0 0 12 1/5 * ?", START, ["2024-07-01 12:00:00", "2024-07-06 12:00:00"]),  # every 5 days from the 1st
    ("0 11 11 11 11 ?", START, ["2024-11-11 11:11:00", "2025-11-11 11:11:00"]),
    # Beyond the table: the one-off, W, LW, named steps and wrapping ranges.
    ("0 0 22 27 6 ? 2024", START, ["2024-06-27 22:00:00", None]),
    ("0 15 10 15W * ?", datetime(2024, 9, 1), ["2024-09-16 10:15:00"]),  # 15 Sep 2024 is a Sunday
    ("0 0 0 1W * ?", datetime(2024, 5, 31), ["2024-06-03 00:00:00"]),  # 1 Jun 2024 is a Saturday: not May 31
    ("0 0 0 LW * ?", START, ["2024-06-28 00:00:00", "2024-07-31 00:00:00", "2024-08-30 00:00:00"]),
    ("0 /35 * * * ?", START, ["2024-06-27 21:35:00", "2024-06-27 22:00:00"]),  # /35 = 0 and 35
    (
        "0 0 9 ? * FRI-MON",
        START,
        [
            "2024-06-28 09:00:00",
            "2024-06-29 09:00:00",
            "2024-06-30 09:00:00",
            "2024-07-01 09:00:00",
            "2024-07-05 09:00:00",
        ],
    ),
    (
        "0 0 23-1 * * ?",
        START,
        ["2024-06-27 23:00:00", "2024-06-28 00:00:00", "2024-06-28 01:00:00", "2024-06-28 23:00:00"],
    ),
    ("0 0 12 ? JAN,JUL 1#1", START, ["2024-07-07 12:00:00", "2025-01-05 12:00:00"]),  # first Sunday
    ("30 45 6 ? * 2,4,6", START, ["2024-06-28 06:45:30", "2024-07-01 06:45:30", "2024-07-03 06:45:30"]),
    ("0 0 12 ? * L", START, ["2024-06-29 12:00:00"]),  # L alone in day-of-week = 7 = Saturday
    ("0 0 12 29 2 ? *", START, ["2028-02-29 12:00:00"]),  # leap days only
]


@pytest.mark.parametrize(("expression", "start", "expected"), QUARTZ_EXAMPLES)
def test_quartz_examples_give_their_documented_firing_times(
    expression: str, start: datetime, expected: list[str | None]
) -> None:
    assert _next(expression, start, len(expected)) == expected


def test_firings_lists_the_window_and_matches_agrees() -> None:
    schedule = parse_cron("0 30 7 ? * MON-FRI *")
    firings = schedule.firings(START, datetime(2024, 7, 8))
    assert [f.day for f in firings] == [28, 1, 2, 3, 4, 5]
    assert all(schedule.matches(f) for f in firings)
    assert not schedule.matches(datetime(2024, 6, 29, 7, 30))  # a Saturday


@pytest.mark.parametrize(
    ("expression", "fragment"),
    [
        ("0 0 12 * *", "has 5 fields"),
        ("0 0 12 * * * *", "exactly one of day-of-month"),
        ("0 0 12 ? * ? *", "exactly one of day-of-month"),
        ("0 60 12 * * ?", "minutes value 60 is outside 0-59"),
        ("0 0 12 ? * FUN", "day-of-week value 'FUN' is not a number"),
        ("0 0 12 ? * 6#7", "must be 1-5"),
        ("0 0/0 12 * * ?", "must be a positive integer"),
        ("0 0 12 * * ? 1969", "year value 1969 is outside 1970-2099"),
        ("0 0 12 L,3 * ?", "cannot be combined"),
    ],
)
def test_bad_expressions_name_the_field_and_the_allowed_values(expression: str, fragment: str) -> None:
    with pytest.raises(CronError, match=fragment):
        parse_cron(expression)
