"""Quartz cron expressions (``sec min hour day-of-month month day-of-week [year]``) and their firing times.

Quartz's semantics, not Unix cron's: seconds first, an optional year, day-of-week 1-7 = SUN-SAT, ``?`` ("no
specific value") in exactly one of day-of-month / day-of-week, ``L`` (last day; ``L-n``; ``nL`` = last
weekday *n* of the month), ``W`` (nearest weekday, never crossing the month; ``LW``), ``#`` (``6#3`` = the
third Friday), ``a/b`` steps (``/35`` in minutes = 0,35), ranges that wrap (``FRI-MON``, ``22-2``).
Written here because no maintained PyPI library parses Quartz's fields: croniter numbers weekdays 0-6
from Sunday (so ``6#3`` is a Saturday there), has no ``?``/``W``/``LW`` of Quartz's kind and is no longer
maintained.

Like the cron libraries, the next firing is computed from the sorted values of each field (a few bisections),
never tabulated: a schedule costs a few hundred bytes whatever it fires on. ``parse_cron`` keeps the schedules
it parsed (they are immutable), so a rule's expression is parsed once however often it is checked; an
expression that can never fire (31 February) is refused.
"""

from __future__ import annotations

import bisect
import calendar
import functools
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
WEEKDAYS = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")  # Quartz: 1 = SUN … 7 = SAT
FIRST_YEAR, LAST_YEAR = 1970, 2099
FIELD_NAMES = ("seconds", "minutes", "hours", "day-of-month", "month", "day-of-week", "year")
_BOUNDS = {
    "seconds": (0, 59),
    "minutes": (0, 59),
    "hours": (0, 23),
    "day-of-month": (1, 31),
    "month": (1, 12),
    "day-of-week": (1, 7),
    "year": (FIRST_YEAR, LAST_YEAR),
}
_NAMES = {"month": MONTHS, "day-of-week": WEEKDAYS}


class CronError(ValueError):
    """An expression Quartz would refuse; the message names the field, the offending part and what is allowed."""


@dataclass(frozen=True)
class DayOfMonth:
    days: frozenset[int] = frozenset()  # plain days
    last_offset: int | None = None  # L (0) or L-n (n)
    nearest_weekday: int | None = None  # nW
    last_weekday: bool = False  # LW


@dataclass(frozen=True)
class DayOfWeek:
    days: frozenset[int] = frozenset()  # Quartz numbers 1..7
    last_of: int | None = None  # nL: the last weekday n of the month
    nth: tuple[int, int] | None = None  # (weekday, k): n#k


@dataclass(frozen=True)
class CronSchedule:
    expression: str
    seconds: tuple[int, ...]
    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    day_of_month: DayOfMonth | None  # None = '?'
    months: frozenset[int]
    day_of_week: DayOfWeek | None  # None = '?'
    years: frozenset[int]

    def matches_day(self, year: int, month: int, day: int) -> bool:
        if year not in self.years or month not in self.months:
            return False
        if self.day_of_month is not None:
            return _dom_matches(self.day_of_month, year, month, day)
        assert self.day_of_week is not None
        return _dow_matches(self.day_of_week, year, month, day)

    def matches(self, when: datetime) -> bool:
        return (
            when.microsecond == 0
            and when.second in self.seconds
            and when.minute in self.minutes
            and when.hour in self.hours
            and self.matches_day(when.year, when.month, when.day)
        )

    def next_after(self, after: datetime) -> datetime | None:
        """The first firing instant strictly after ``after`` (None: the schedule has ended, e.g. a past year)."""
        start = after.replace(microsecond=0) + timedelta(seconds=1)
        day = start.date()
        first_time = (start.hour, start.minute, start.second)
        while day.year <= LAST_YEAR:
            if day.year not in self.years:
                later = [y for y in self.years if y > day.year]
                if not later:
                    return None
                day, first_time = day.replace(year=min(later), month=1, day=1), (0, 0, 0)
                continue
            if day.month not in self.months:
                following = _first_of_next_month(day)
                if following is None:
                    return None
                day, first_time = following, (0, 0, 0)
                continue
            if self.matches_day(day.year, day.month, day.day):
                found = self._first_time_from(first_time)
                if found is not None:
                    return datetime(day.year, day.month, day.day, *found)
            day, first_time = day + timedelta(days=1), (0, 0, 0)
        return None

    def firings(self, after: datetime, until: datetime) -> list[datetime]:
        """Every firing instant in (after, until]."""
        out: list[datetime] = []
        current = self.next_after(after)
        while current is not None and current <= until:
            out.append(current)
            current = self.next_after(current)
        return out

    def _first_time_from(self, earliest: tuple[int, int, int]) -> tuple[int, int, int] | None:
        """The first (hour, minute, second) of the schedule at or after ``earliest`` on one day, else None."""
        hour, minute, second = earliest
        for h in self.hours[bisect.bisect_left(self.hours, hour) :]:
            if h > hour:
                return h, self.minutes[0], self.seconds[0]
            for m in self.minutes[bisect.bisect_left(self.minutes, minute) :]:
                if m > minute:
                    return h, m, self.seconds[0]
                index = bisect.bisect_left(self.seconds, second)
                if index < len(self.seconds):
                    return h, m, self.seconds[index]
        return None


def _first_of_next_month(day: date) -> date | None:
    if day.month == 12:
        return None if day.year >= LAST_YEAR else date(day.year + 1, 1, 1)
    return date(day.year, day.month + 1, 1)


def _days_in(year: int, month: int) -> int:
    return calendar.monthrange(year, month)[1]


def _quartz_weekday(year: int, month: int, day: int) -> int:
    return (calendar.weekday(year, month, day) + 1) % 7 + 1  # Python MON=0 → Quartz MON=2, SUN=1


def _dom_matches(rule: DayOfMonth, year: int, month: int, day: int) -> bool:
    last = _days_in(year, month)
    if day in rule.days and day <= last:
        return True
    if rule.last_offset is not None and day == last - rule.last_offset:
        return True
    if rule.nearest_weekday is not None:
        return day == _nearest_weekday(year, month, min(rule.nearest_weekday, last))
    if rule.last_weekday:
        return day == _nearest_weekday(year, month, last)
    return False


def _nearest_weekday(year: int, month: int, target: int) -> int:
    weekday = calendar.weekday(year, month, target)  # MON=0 … SUN=6
    last = _days_in(year, month)
    if weekday == 5:  # Saturday: the Friday before, or the Monday after when the 1st is a Saturday
        return target - 1 if target > 1 else target + 2
    if weekday == 6:  # Sunday: the Monday after, or the Friday before when it is the month's last day
        return target + 1 if target < last else target - 2
    return target


def _dow_matches(rule: DayOfWeek, year: int, month: int, day: int) -> bool:
    weekday = _quartz_weekday(year, month, day)
    if weekday in rule.days:
        return True
    if rule.last_of is not None and weekday == rule.last_of and day + 7 > _days_in(year, month):
        return True
    if rule.nth is not None:
        wanted, k = rule.nth
        return weekday == wanted and (day - 1) // 7 + 1 == k
    return False


# ---------------------------------------------------------------------------------- parsing
def parse_cron(expression: str) -> CronSchedule:
    """Parse a Quartz cron expression (6 or 7 fields); CronError names what is wrong and what is allowed."""
    if not isinstance(expression, str):
        raise CronError(f"a cron expression must be a string, got {type(expression).__name__}")
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise CronError(f"cron expression is {len(expression)} characters long; the limit is {MAX_EXPRESSION_CHARS}")
    return _parse(expression)


MAX_EXPRESSION_CHARS = 200


@functools.lru_cache(maxsize=1024)
def _parse(expression: str) -> CronSchedule:
    fields = expression.split()
    if len(fields) not in (6, 7):
        raise CronError(
            f"cron {expression!r} has {len(fields)} fields; Quartz needs 6 or 7: "
            "'sec min hour day-of-month month day-of-week [year]', e.g. '0 30 7 ? * MON-FRI *'"
        )
    if len(fields) == 6:
        fields.append("*")
    fields = [f.upper() for f in fields]
    sec, minute, hour, dom, month, dow, year = fields
    if (dom == "?") == (dow == "?"):
        raise CronError(
            f"cron {expression!r}: exactly one of day-of-month ({dom}) and day-of-week ({dow}) must be "
            "'?' (Quartz cannot combine them), e.g. '0 0 8 ? * MON' or '0 0 8 1 * ?'"
        )
    schedule = CronSchedule(
        expression=" ".join(fields),
        seconds=tuple(sorted(_values("seconds", sec))),
        minutes=tuple(sorted(_values("minutes", minute))),
        hours=tuple(sorted(_values("hours", hour))),
        day_of_month=None if dom == "?" else _day_of_month(dom),
        months=frozenset(_values("month", month)),
        day_of_week=None if dow == "?" else _day_of_week(dow),
        years=frozenset(_values("year", year)),
    )
    if schedule.next_after(datetime(FIRST_YEAR, 1, 1) - timedelta(seconds=1)) is None:
        raise CronError(
            f"cron {expression!r} never fires (no day of {FIRST_YEAR}-{LAST_YEAR} matches its "
            "day-of-month, month, day-of-week and year), e.g. 31 in a month of 30 days or fewer"
        )
    return schedule


def _number(field: str, text: str) -> int:
    names = _NAMES.get(field)
    if names is not None and text in names:
        return names.index(text) + 1
    if not text.isdigit():
        allowed = f"{_BOUNDS[field][0]}-{_BOUNDS[field][1]}" + (f" or {names[0]}-{names[-1]}" if names else "")
        raise CronError(f"{field} value {text!r} is not a number ({allowed})")
    value = int(text)
    low, high = _BOUNDS[field]
    if not low <= value <= high:
        raise CronError(f"{field} value {value} is outside {low}-{high}")
    return value


def _values(field: str, text: str) -> set[int]:
    low, high = _BOUNDS[field]
    out: set[int] = set()
    for part in text.split(","):
        if not part:
            raise CronError(f"{field} {text!r} has an empty list item")
        base, _, step_text = part.partition("/")
        step = 1
        if step_text:
            if not step_text.isdigit() or int(step_text) == 0:
                raise CronError(f"{field} step {step_text!r} in {part!r} must be a positive integer")
            step = int(step_text)
        if base in ("*", ""):
            start, end = low, high
        elif "-" in base:
            first, _, last = base.partition("-")
            start, end = _number(field, first), _number(field, last)
        else:
            start = _number(field, base)
            end = high if step_text else start  # "5/15" runs to the field's end
        span = (end - start) % (high - low + 1) if end < start else end - start  # wrapping ranges: FRI-MON
        for offset in range(0, span + 1, step):
            out.add(low + (start - low + offset) % (high - low + 1))
    return out


_LAST_OFFSET = re.compile(r"L(?:-(\d+))?")
_NEAREST = re.compile(r"(\d+)W")


def _day_of_month(text: str) -> DayOfMonth:
    if text == "LW":
        return DayOfMonth(last_weekday=True)
    match = _LAST_OFFSET.fullmatch(text)
    if match:
        offset = int(match.group(1) or 0)
        if offset > 30:
            raise CronError(f"day-of-month offset in {text!r} must be at most 30")
        return DayOfMonth(last_offset=offset)
    match = _NEAREST.fullmatch(text)
    if match:
        return DayOfMonth(nearest_weekday=_number("day-of-month", match.group(1)))
    if "L" in text or "W" in text:
        raise CronError(f"day-of-month {text!r}: L, L-n, nW and LW cannot be combined with lists or ranges")
    return DayOfMonth(days=frozenset(_values("day-of-month", text)))


def _day_of_week(text: str) -> DayOfWeek:
    if text == "L":
        return DayOfWeek(days=frozenset({7}))  # alone, L means 7 = SAT
    if text.endswith("L") and "," not in text and "-" not in text:
        return DayOfWeek(last_of=_number("day-of-week", text[:-1]))
    if "#" in text:
        day, _, nth = text.partition("#")
        if not nth.isdigit() or not 1 <= int(nth) <= 5:
            raise CronError(f"day-of-week {text!r}: the number after '#' must be 1-5")
        return DayOfWeek(nth=(_number("day-of-week", day), int(nth)))
    if "L" in text:
        raise CronError(f"day-of-week {text!r}: 'nL' and 'n#k' cannot be combined with lists or ranges")
    return DayOfWeek(days=frozenset(_values("day-of-week", text)))
