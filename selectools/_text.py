"""One-line previews of values for trace summaries, logs, errors and displays.

Every place that shows a value in a single line (a tool result in a trace
summary, arguments in a verbose log, a schema error, an approval preview, a
rendered card) truncates the same way, so they all call :func:`one_line`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["one_line"]


def one_line(value: Any, limit: int) -> str:
    """``value`` as text on one line (whitespace runs folded), at most ``limit`` characters.

    A cut line ends with "…", which counts toward the limit.
    """
    flat = " ".join(str(value).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
