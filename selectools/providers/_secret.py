"""Keeping API keys out of reprs, tracebacks, pickles, logs and error messages.

A provider stores its key as a :class:`Secret`, whose ``repr``/``str`` never
show the value, and passes every error message it builds through
:func:`redact` so a server that echoes the key back cannot leak it either.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = ["Secret", "redact", "safe_url"]

_MASK = "[REDACTED]"
# key=... / key:... pairs in query strings or headers that a message may quote
_KEY_PAIRS = re.compile(
    r"(?i)\b(api[-_]?key|key|x-goog-api-key|x-api-key|authorization|access_token|token)"
    r"(\s*[=:]\s*)(bearer\s+)?([^\s&,;'\"]+)"
)


class Secret:
    """A string that refuses to show itself; call :meth:`reveal` where the value is needed."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"an API key must be a str, got {type(value).__name__}")
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')"

    __str__ = __repr__

    def __bool__(self) -> bool:
        return bool(self._value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(("Secret", self._value))

    def __copy__(self) -> Secret:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Secret:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        raise TypeError("a Secret (an API key) cannot be pickled; rebuild the provider instead")


def redact(text: str, *secrets: Secret | str | None) -> str:
    """``text`` with every given secret, and anything quoted as ``key=...``, masked."""
    for secret in secrets:
        value = secret.reveal() if isinstance(secret, Secret) else secret
        if value and len(value) >= 4:
            text = text.replace(value, _MASK)
    return _KEY_PAIRS.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3) or ''}{_MASK}", text)


def safe_url(url: str) -> str:
    """``url`` without user:password and query string, for reprs and messages."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<invalid url>"
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
