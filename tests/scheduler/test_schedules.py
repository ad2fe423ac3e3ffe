"""cron() and every(): parsing, errors, and next fire times checked against croniter."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from croniter import croniter
from hypothesis import given, settings, strategies as st

from selectools import cron, every
from selectools.scheduler import ScheduleError

T0 = datetime(2026, 11, 23, 8, 59, 30)  # a Monday


def _next(expr: str, start: datetime, n: int = 1) -> list[datetime]:
    schedule = cron(expr)
    out, moment = [], start
    for _ in range(n):
        moment = schedule.next_after(moment)
        out.append(moment)
    return out


def test_documented_examples():
    # every 15 min, 9am-5pm, Mon-Fri
    assert _next("*/15 9-17 * * 1-5", T0, 3) == [
        datetime(2026, 11, 23, 9, 0),
        datetime(2026, 11, 23, 9, 15),
        datetime(2026, 11, 23, 9, 30),
    ]
    friday_evening = datetime(2026, 11, 27, 17, 45)
    assert _next("*/15 9-17 * * 1-5", friday_evening) == [datetime(2026, 11, 30, 9, 0)]
    # midnight on the 1st of each month
    assert _next("0 0 1 * *", T0, 2) == [datetime(2026, 12, 1), datetime(2027, 1, 1)]
    # midnight on the 1st OR any Sunday (Vixie cron)
    assert _next("0 0 1 * 0", T0, 3) == [
        datetime(2026, 11, 29),
        datetime(2026, 12, 1),
        datetime(2026, 12, 6),
    ]
    assert _next("0 9 * * *", T0) == [datetime(2026, 11, 23, 9, 0)]
    assert _next("0 8 * * *", T0) == [datetime(2026, 11, 24, 8, 0)]


def test_next_is_strictly_after_and_keeps_the_time_zone():
    at_nine = datetime(2026, 11, 23, 9, 0, tzinfo=timezone.utc)
    assert cron("0 9 * * *").next_after(at_nine) == at_nine + timedelta(days=1)
    assert cron("0 9 * * *").next_after(at_nine).tzinfo is timezone.utc


def test_zero_and_seven_are_both_sunday():
    assert _next("0 12 * * 7", T0) == _next("0 12 * * 0", T0) == [datetime(2026, 11, 29, 12)]


def test_leap_day_and_ranges_with_steps():
    assert _next("0 0 29 2 *", T0) == [datetime(2028, 2, 29)]
    assert _next("5-20/5 * * * *", datetime(2026, 1, 1, 0, 0), 4) == [
        datetime(2026, 1, 1, 0, 5),
        datetime(2026, 1, 1, 0, 10),
        datetime(2026, 1, 1, 0, 15),
        datetime(2026, 1, 1, 0, 20),
    ]
    assert _next("0 0 * * 1,3,5", T0, 3) == [
        datetime(2026, 11, 25),
        datetime(2026, 11, 27),
        datetime(2026, 11, 30),
    ]


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("* * * *", "needs 5 fields"),
        ("60 * * * *", "outside 0-59"),
        ("* 24 * * *", "outside 0-23"),
        ("* * 0 * *", "outside 1-31"),
        ("* * * 13 *", "outside 1-12"),
        ("* * * * 8", "outside 0-7"),
        ("*/0 * * * *", "step must be at least 1"),
        ("10-5 * * * *", "runs backwards"),
        ("a * * * *", "not a number"),
        ("0 0 30 2 *", "never fires"),
    ],
)
def test_bad_expressions_say_what_is_wrong(expr, message):
    with pytest.raises(ScheduleError, match=message):
        cron(expr)
    with pytest.raises(ValueError):  # ScheduleError is a ValueError too
        cron(expr)


def test_every_adds_its_parts_and_needs_a_second():
    assert every(hours=1, minutes=30).period == timedelta(minutes=90)
    assert every(seconds=30).next_after(T0) == T0 + timedelta(seconds=30)
    assert str(every(minutes=5)) == "every 5m"
    with pytest.raises(ScheduleError, match="at least one second"):
        every(seconds=0.5)
    with pytest.raises(ScheduleError):
        every()


def _field(low: int, high: int) -> st.SearchStrategy[str]:
    number = st.integers(low, high)
    single = number.map(str)
    # croniter reads a one-value range "a-a" as "*": ranges here span two values or more
    ranged = st.tuples(number, number).filter(lambda ab: ab[0] != ab[1])
    ranged = ranged.map(lambda ab: f"{min(ab)}-{max(ab)}")
    stepped = st.tuples(ranged, st.integers(1, 7)).map(lambda rs: f"{rs[0]}/{rs[1]}")
    part = st.one_of(single, ranged, stepped)
    listed = st.lists(part, min_size=1, max_size=3).map(",".join)
    return st.one_of(st.just("*"), st.integers(1, 20).map(lambda s: f"*/{s}"), listed)


def _day_field(low: int, high: int) -> st.SearchStrategy[str]:
    # croniter counts "*/n" in a day field as restricted, Vixie cron (and we) do not:
    # the property covers "*" and explicit values, where the two agree (and never a list
    # naming every day, which croniter also reads as "*")
    number = st.integers(low, high)
    ranged = st.tuples(number, number).filter(lambda ab: ab[0] != ab[1])
    ranged = ranged.map(lambda ab: f"{min(ab)}-{max(ab)}")
    listed = st.lists(st.one_of(number.map(str), ranged), min_size=1, max_size=3).map(",".join)
    return st.one_of(st.just("*"), listed)


@settings(max_examples=300, deadline=None)
@given(
    minute=_field(0, 59),
    hour=_field(0, 23),
    dom=_day_field(1, 28),
    month=_field(1, 12),
    dow=_day_field(1, 6),
    start=st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2090, 1, 1)),
)
def test_matches_croniter(minute, hour, dom, month, dow, start):
    expr = f"{minute} {hour} {dom} {month} {dow}"
    ours = cron(expr)
    theirs = croniter(expr, start)
    moment = start
    for _ in range(3):
        moment = ours.next_after(moment)
        assert moment == theirs.get_next(datetime), expr


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")


@settings(max_examples=150, deadline=None)
@given(
    months=st.lists(st.sampled_from(_MONTHS), min_size=1, max_size=3, unique=True),
    day_range=st.tuples(st.integers(1, 6), st.integers(1, 6)).filter(lambda ab: ab[0] != ab[1]),
    upper=st.booleans(),
    start=st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2090, 1, 1)),
)
def test_month_and_day_names_match_croniter(months, day_range, upper, start):
    low, high = sorted(day_range)
    dow = f"{_DAYS[low]}-{_DAYS[high]}"
    month = ",".join(months)
    expr = f"30 9 * {month.upper() if upper else month} {dow}"
    ours = cron(expr)
    theirs = croniter(expr, start)
    moment = start
    for _ in range(3):
        moment = ours.next_after(moment)
        assert moment == theirs.get_next(datetime), expr


@pytest.mark.parametrize(
    ("alias", "expr"),
    [
        ("@yearly", "0 0 1 1 *"),
        ("@annually", "0 0 1 1 *"),
        ("@monthly", "0 0 1 * *"),
        ("@weekly", "0 0 * * 0"),
        ("@daily", "0 0 * * *"),
        ("@midnight", "0 0 * * *"),
        ("@hourly", "0 * * * *"),
    ],
)
def test_shorthands_fire_like_their_expressions(alias, expr):
    start = datetime(2026, 11, 27, 17, 42)
    assert cron(alias).next_after(start) == cron(expr).next_after(start)
    assert cron(alias).next_after(start) == croniter(alias, start).get_next(datetime)
    assert str(cron(alias)) == f"cron({alias!r})"


def test_names_in_the_wrong_field_or_unknown_shorthands_say_what_is_allowed():
    with pytest.raises(ScheduleError, match="hour field 'mon' is not a number"):
        cron("0 mon * * *")
    with pytest.raises(ScheduleError, match=r"unknown name 'funday'.*names here: sun, mon"):
        cron("0 9 * * funday")
    with pytest.raises(ScheduleError, match="unknown shorthand"):
        cron("@reboot")
