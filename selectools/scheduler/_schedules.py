"""When a job fires: ``cron("0 9 * * 1-5")`` and ``every(minutes=5)``.

Both are values with one method, ``next_after(moment)``: the first fire time
strictly after ``moment``. The cron matcher is our own (the scheduler is
stdlib only); its tests compare it with croniter over generated expressions.
"""

from __future__ import annotations

import calendar
import re
from bisect import bisect_left
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import cached_property
from typing import Protocol

from ..exceptions import SelectoolsError

__all__ = ["CronSchedule", "Interval", "Schedule", "ScheduleError", "cron", "every"]


class ScheduleError(SelectoolsError, ValueError):
    """A cron expression or interval that cannot describe a schedule."""


class Schedule(Protocol):
    """Anything with ``next_after``: the scheduler needs nothing else."""

    def next_after(self, moment: datetime) -> datetime: ...


#: (name, low, high) of the five fields, in order
_FIELDS = (
    ("minute", 0, 59),
    ("hour", 0, 23),
    ("day-of-month", 1, 31),
    ("month", 1, 12),
    ("day-of-week", 0, 7),
)
#: names a field may use instead of numbers (case-insensitive, as in Vixie cron)
_NAMES: dict[str, dict[str, int]] = {
    "month": {
        name: number
        for number, name in enumerate(
            ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
            start=1,
        )
    },
    "day-of-week": {
        name: number
        for number, name in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))
    },
}
#: the ``@`` shorthands and the expressions they stand for
_ALIASES = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_NAME = re.compile(r"[A-Za-z]+")
#: how far ahead to look before calling an expression impossible ("0 0 30 2 *")
_HORIZON_YEARS = 8


def _numbers_for_names(text: str, name: str, expr: str) -> str:
    """``mon-fri`` -> ``1-5``, ``JAN,jul`` -> ``1,7``; names only where the field has them."""
    names = _NAMES.get(name)
    if names is None:
        return text  # a letter in a numbers-only field is reported as "not a number"

    def number(match: re.Match[str]) -> str:
        word = match.group(0).lower()
        if word not in names:
            raise ScheduleError(
                f"cron({expr!r}): {name} field {text!r} has the unknown name "
                f"{match.group(0)!r} (names here: {', '.join(names)})"
            )
        return str(names[word])

    return _NAME.sub(number, text)


def _parse_field(text: str, name: str, low: int, high: int, expr: str) -> frozenset[int]:
    text = _numbers_for_names(text, name, expr)
    values: set[int] = set()
    for part in text.split(","):
        base, slash, step_text = part.partition("/")
        try:
            step = int(step_text) if slash else 1
            if base == "*":
                start, stop = low, high
            elif "-" in base:
                a, b = base.split("-", 1)
                start, stop = int(a), int(b)
            else:
                start = int(base)
                stop = high if slash else start
        except ValueError:
            raise ScheduleError(
                f"cron({expr!r}): {name} field {text!r} is not a number, '*', a range "
                f"'a-b' or a step '/n'"
            ) from None
        if step < 1:
            raise ScheduleError(f"cron({expr!r}): {name} step must be at least 1, got {step}")
        if not (low <= start <= high and low <= stop <= high) or start > stop:
            raise ScheduleError(
                f"cron({expr!r}): {name} field {text!r} is outside {low}-{high} "
                "(or a range runs backwards)"
            )
        values.update(range(start, stop + 1, step))
    return frozenset(values)


@dataclass(frozen=True)
class CronSchedule:
    """A five-field cron expression with minute resolution and Vixie-cron day matching."""

    expr: str
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # 0 = Sunday … 6 = Saturday (7 folded into 0)
    days_restricted: bool
    weekdays_restricted: bool

    def _day_matches(self, moment: datetime) -> bool:
        in_days = moment.day in self.days
        # datetime: Monday = 0; cron: Sunday = 0
        in_weekdays = (moment.weekday() + 1) % 7 in self.weekdays
        if self.days_restricted and self.weekdays_restricted:
            return in_days or in_weekdays  # Vixie cron: either one
        return in_days and in_weekdays

    @cached_property
    def _sorted_hours(self) -> tuple[int, ...]:
        return tuple(sorted(self.hours))

    @cached_property
    def _sorted_minutes(self) -> tuple[int, ...]:
        return tuple(sorted(self.minutes))

    def next_after(self, moment: datetime) -> datetime:
        """The first matching minute strictly after ``moment`` (same tzinfo as ``moment``).

        Months and days are skipped whole; within a matching day the next hour and minute
        are found by bisection, so a sparse schedule costs a few steps, not a walk.
        """
        candidate = moment.replace(second=0, microsecond=0) + timedelta(minutes=1)
        limit = moment.year + _HORIZON_YEARS
        hours, minutes = self._sorted_hours, self._sorted_minutes
        while candidate.year <= limit:
            if candidate.month not in self.months:
                year = candidate.year + (candidate.month == 12)
                month = candidate.month % 12 + 1
                candidate = candidate.replace(year=year, month=month, day=1, hour=0, minute=0)
                continue
            if not self._day_matches(candidate):
                candidate = candidate.replace(hour=0, minute=0) + timedelta(days=1)
                continue
            index = bisect_left(hours, candidate.hour)
            if index == len(hours):  # no matching hour left today
                candidate = candidate.replace(hour=0, minute=0) + timedelta(days=1)
                continue
            if hours[index] != candidate.hour:
                candidate = candidate.replace(hour=hours[index], minute=0)
            index = bisect_left(minutes, candidate.minute)
            if index == len(minutes):  # no matching minute left in this hour
                candidate = candidate.replace(minute=0) + timedelta(hours=1)
                continue
            return candidate.replace(minute=minutes[index])
        raise ScheduleError(f"cron({self.expr!r}) never fires (no match in {_HORIZON_YEARS} years)")

    def __str__(self) -> str:
        return f"cron({self.expr!r})"


def cron(expr: str) -> CronSchedule:
    """A schedule from ``"minute hour day-of-month month day-of-week"``.

    Fields take ``*``, ``*/step``, ``a``, ``a-b``, ``a-b/step`` and comma lists;
    months and days of the week may be names (``jan``-``dec``, ``sun``-``sat``, any case:
    ``"0 9 * * mon-fri"``); day-of-week 0 and 7 are both Sunday. When day-of-month and
    day-of-week are both restricted (neither starts with ``*``) a day matches if either
    does. The shorthands ``@yearly`` (``@annually``), ``@monthly``, ``@weekly``, ``@daily``
    (``@midnight``) and ``@hourly`` stand for their usual expressions.
    """
    if not isinstance(expr, str):
        raise ScheduleError(f"cron() takes a string, got {type(expr).__name__}")
    alias = expr.strip().lower()
    if alias.startswith("@"):
        if alias not in _ALIASES:
            raise ScheduleError(
                f"cron({expr!r}): unknown shorthand; use one of {', '.join(_ALIASES)} "
                "(@reboot has no meaning for a scheduler that is already running)"
            )
        return replace(cron(_ALIASES[alias]), expr=expr)
    fields = expr.split()
    if len(fields) != 5:
        raise ScheduleError(
            f"cron({expr!r}) needs 5 fields (minute hour day-of-month month day-of-week), "
            f"got {len(fields)}"
        )
    parsed = [
        _parse_field(text, name, low, high, expr)
        for text, (name, low, high) in zip(fields, _FIELDS, strict=True)
    ]
    weekdays = frozenset(0 if day == 7 else day for day in parsed[4])
    longest = max(calendar.monthrange(2024, m)[1] for m in parsed[3])  # 2024: a leap year
    if fields[4].startswith("*") and min(parsed[2]) > longest:
        raise ScheduleError(f"cron({expr!r}) never fires: no such day in those months")
    return CronSchedule(
        expr,
        parsed[0],
        parsed[1],
        parsed[2],
        parsed[3],
        weekdays,
        not fields[2].startswith("*"),
        not fields[4].startswith("*"),
    )


@dataclass(frozen=True)
class Interval:
    """A fixed interval (at least one second)."""

    period: timedelta

    def next_after(self, moment: datetime) -> datetime:
        return moment + self.period

    def __str__(self) -> str:
        total = int(self.period.total_seconds())
        hours, rest = divmod(total, 3600)
        minutes, seconds = divmod(rest, 60)
        parts = [f"{v}{u}" for v, u in ((hours, "h"), (minutes, "m"), (seconds, "s")) if v]
        return f"every {' '.join(parts) or '0s'}"


def every(*, seconds: float = 0, minutes: float = 0, hours: float = 0) -> Interval:
    """A fixed-interval schedule; the parts add up (``every(hours=1, minutes=30)`` is 90 min)."""
    period = timedelta(seconds=seconds, minutes=minutes, hours=hours)
    if period < timedelta(seconds=1):
        raise ScheduleError(
            f"every() needs an interval of at least one second, got {period.total_seconds()}s"
        )
    return Interval(period)
