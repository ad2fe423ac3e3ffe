"""Regular expressions we did not write, run under a deadline.

A pattern chosen by a model (``search_text``, ``replace_text``) or sent by a
remote schema (an MCP server's ``"pattern"``) can backtrack for minutes on a
few dozen characters: ``(a|a)+$`` against ``"a" * 30 + "!"``. Python's ``re``
cannot be stopped, so such patterns run on the ``regex`` package, whose
matching functions take a ``timeout=`` and raise once it passes. Patterns from
the user's own code or config (guardrails, evaluators) are trusted and keep
using ``re``.

``regex`` speaks the ``re`` dialect (its default ``VERSION0``), so a pattern
that works with ``re`` works here. ``regex`` counts its ``timeout`` in CPU
time: the limit bounds the work a pattern may do, and on a busy machine the
wall-clock wait is longer by the load (measured: 2.5 s for a 1 s limit with
four runnable processes per core).
"""

from __future__ import annotations

from typing import Any

from ._text import one_line
from .exceptions import SelectoolsError

__all__ = ["UNTRUSTED_REGEX_TIMEOUT", "RegexTimeoutError", "UntrustedPattern"]

#: CPU seconds one search, listing or substitution with an untrusted pattern may take.
UNTRUSTED_REGEX_TIMEOUT = 1.0


class RegexTimeoutError(SelectoolsError, TimeoutError):
    """An untrusted pattern ran past its time limit (it backtracks catastrophically)."""

    def __init__(self, pattern: str, timeout: float, length: int) -> None:
        self.pattern = pattern
        self.timeout = timeout
        super().__init__(
            f"Regular expression {one_line(pattern, 80)!r} took longer than {timeout:g}s on "
            f"{length} characters and was stopped: it backtracks catastrophically (nested or "
            "overlapping repeats such as (a+)+ or (a|a)+). Use a simpler pattern without "
            "nested quantifiers."
        )


class UntrustedPattern:
    """A compiled untrusted pattern whose every match call is bounded by ``timeout``.

    Raises ``ValueError`` for a pattern that does not compile and
    :class:`RegexTimeoutError` when a call runs past the deadline.
    """

    __slots__ = ("_compiled", "pattern", "timeout")

    def __init__(
        self, pattern: str, *, ignore_case: bool = False, timeout: float | None = None
    ) -> None:
        regex = _regex_module()
        self.pattern = pattern
        self.timeout = UNTRUSTED_REGEX_TIMEOUT if timeout is None else timeout
        try:
            self._compiled = regex.compile(pattern, regex.IGNORECASE if ignore_case else 0)
        except regex.error as exc:
            raise ValueError(f"Invalid regular expression {pattern!r}: {exc}") from None

    def search(self, text: str) -> Any:
        """The first match in ``text`` (a match object) or ``None``."""
        try:
            return self._compiled.search(text, timeout=self.timeout)
        except TimeoutError:
            raise RegexTimeoutError(self.pattern, self.timeout, len(text)) from None

    def finditer(self, text: str) -> list[Any]:
        """Every match in ``text``; the deadline covers the whole listing."""
        try:
            return list(self._compiled.finditer(text, timeout=self.timeout))
        except TimeoutError:
            raise RegexTimeoutError(self.pattern, self.timeout, len(text)) from None

    def sub(self, replacement: str, text: str, count: int = 0) -> str:
        """``text`` with matches replaced (``count`` 0 replaces all)."""
        regex = _regex_module()
        try:
            return str(self._compiled.sub(replacement, text, count=count, timeout=self.timeout))
        except TimeoutError:
            raise RegexTimeoutError(self.pattern, self.timeout, len(text)) from None
        except (regex.error, IndexError) as exc:
            raise ValueError(f"Invalid replacement {replacement!r}: {exc}") from None


def _regex_module() -> Any:
    import regex  # a core dependency; imported on first use to keep `import selectools` light

    return regex
