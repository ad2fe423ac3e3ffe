"""Date and time tools: the current time, parsing, differences and arithmetic.

Time zones come from the standard library's ``zoneinfo`` (IANA names such as
``"America/New_York"``; on Windows install ``tzdata``), so no ``pytz`` is needed.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone as dt_timezone

from ..tools import Tool, ToolParameter, tool

__all__ = [
    "DATE_FORMATS",
    "date_arithmetic",
    "get_current_time",
    "parse_datetime",
    "time_difference",
]

#: The formats ``parse_datetime`` tries, in order, when no input_format is given.
DATE_FORMATS = (
    "%Y-%m-%d",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%dT%H:%M:%S%z",
    "%Y/%m/%d",
    "%m/%d/%Y",
    "%d-%m-%Y",
    "%d.%m.%Y",
    "%B %d, %Y",
    "%b %d, %Y",
    "%d %B %Y",
)

_UNITS = {"days": 86400, "hours": 3600, "minutes": 60, "seconds": 1, "weeks": 604800}


def _zone(name: str) -> dt_timezone | object:
    if name.upper() in ("UTC", "Z", "GMT"):
        return dt_timezone.utc
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(
            f"Unknown time zone {name!r}: use an IANA name such as 'America/New_York' or 'UTC'"
        ) from None


def _parse(text: str, input_format: str | None = None) -> datetime:
    text = text.strip()
    if input_format:
        try:
            return datetime.strptime(text, input_format)
        except ValueError as exc:
            raise ValueError(f"{text!r} does not match {input_format!r}: {exc}") from None
    for fmt in DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"Could not parse {text!r} as a date; use e.g. '2026-03-12' or '2026-03-12 14:30:00', "
            "or pass input_format"
        ) from None


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


@tool
def get_current_time(timezone: str = "UTC", format: str = "%Y-%m-%d %H:%M:%S %Z") -> str:
    """The current date and time in a time zone.

    Args:
        timezone: IANA time zone name, e.g. "UTC" or "America/New_York".
        format: strftime format of the result.
    """
    now = datetime.now(_zone(timezone))  # type: ignore[arg-type]
    return now.strftime(format)


@tool
def parse_datetime(
    datetime_string: str, input_format: str | None = None, output_format: str = "%Y-%m-%d %H:%M:%S"
) -> str:
    """Parse a date string (12 common formats are tried when input_format is not given).

    Args:
        datetime_string: The date/time text, e.g. "March 12, 2026" or "2026-03-12 14:30".
        input_format: strptime format of the input, if known.
        output_format: strftime format of the result.
    """
    return _parse(datetime_string, input_format).strftime(output_format)


def _aligned(start: datetime, end: datetime) -> tuple[datetime, datetime]:
    if (start.tzinfo is None) != (end.tzinfo is None):
        start = start if start.tzinfo else start.replace(tzinfo=dt_timezone.utc)
        end = end if end.tzinfo else end.replace(tzinfo=dt_timezone.utc)
    return start, end


@tool(param_metadata={"unit": {"enum": ["days", "hours", "minutes", "seconds"]}})
def time_difference(start_date: str, end_date: str, unit: str = "days") -> str:
    """How much time lies between two dates (negative if end_date is earlier).

    Args:
        start_date: The earlier date, e.g. "2026-01-01".
        end_date: The later date.
        unit: "days", "hours", "minutes" or "seconds".
    """
    if unit not in _UNITS:
        raise ValueError(f"unit must be one of {', '.join(_UNITS)}, got {unit!r}")
    start, end = _aligned(_parse(start_date), _parse(end_date))
    seconds = (end - start).total_seconds()
    return f"{_number(seconds / _UNITS[unit])} {unit}"


@tool(
    param_metadata={
        "operation": {"enum": ["add", "subtract"]},
        "unit": {"enum": ["days", "weeks", "hours", "minutes", "seconds"]},
    }
)
def date_arithmetic(
    date: str, operation: str = "add", value: float | None = None, unit: str = "days"
) -> str:
    """Add or subtract an amount of time to a date.

    Args:
        date: The starting date, e.g. "2026-03-12".
        operation: "add" or "subtract".
        value: How many units to add or subtract.
        unit: "days", "weeks", "hours", "minutes" or "seconds".
    """
    if value is None:
        raise TypeError("date_arithmetic() needs value=: how many units to add or subtract")
    if operation not in ("add", "subtract"):
        raise ValueError(f"operation must be 'add' or 'subtract', got {operation!r}")
    if unit not in _UNITS:
        raise ValueError(f"unit must be one of {', '.join(_UNITS)}, got {unit!r}")
    start = _parse(date)
    delta = timedelta(seconds=value * _UNITS[unit])
    result = start + delta if operation == "add" else start - delta
    has_time = any((start.hour, start.minute, start.second)) or unit in (
        "hours",
        "minutes",
        "seconds",
    )
    return result.strftime("%Y-%m-%d %H:%M:%S" if has_time else "%Y-%m-%d")


def _required(made: Tool, name: str, param_type: type) -> Tool:
    """``made`` with parameter ``name`` required in the model's schema.

    ``date_arithmetic`` takes its parameters in the TOOLBOX page's order
    (``date, operation="add", value, unit="days"``), so ``value`` needs a
    Python default after the defaulted ``operation``; the model must still send it.
    """
    parameters = [
        ToolParameter(p.name, param_type, p.description, required=True) if p.name == name else p
        for p in made.parameters
    ]
    return Tool(made.name, made.description, parameters, made.function)


date_arithmetic = _required(date_arithmetic, "value", float)
