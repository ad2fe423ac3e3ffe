"""``{var}`` interpolation of notebook variables into prompts.

Only ``{name}``, ``{name.attr}``, ``{name[key]}`` (with an optional ``!r``
conversion and ``:spec``) are replaced; any other brace, such as JSON in a
prompt, is left alone, and ``{{``/``}}`` give literal braces. Nothing is
evaluated beyond attribute and item lookups.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from typing import Any

from .errors import NotebookUsageError

__all__ = ["interpolate"]

_FIELD = re.compile(
    r"\{\{|\}\}"
    r"|\{(?P<field>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[[^\[\]{}]*\])*)"
    r"(?:!(?P<conv>[rsa]))?(?::(?P<spec>[^{}]*))?\}"
)
_FORMATTER = string.Formatter()


def interpolate(text: str, namespace: Mapping[str, Any], *, where: str = "prompt") -> str:
    """Replace ``{var}`` fields in ``text`` with values from ``namespace``."""

    def replace(match: re.Match[str]) -> str:
        token = match.group(0)
        if token in ("{{", "}}"):
            return token[0]
        field = match.group("field")
        root = re.match(r"[A-Za-z_]\w*", field)
        assert root is not None
        if root.group(0) not in namespace:
            raise NotebookUsageError(
                f"{where}: {{{field}}} names '{root.group(0)}', which is not defined in the "
                "notebook (write {{ and }} for literal braces)"
            )
        try:
            value, _ = _FORMATTER.get_field(field, (), namespace)
            value = _FORMATTER.convert_field(value, match.group("conv"))
            text: str = _FORMATTER.format_field(value, match.group("spec") or "")
            return text
        except (AttributeError, LookupError, TypeError, ValueError) as exc:
            raise NotebookUsageError(
                f"{where}: cannot fill {{{field}}}: {type(exc).__name__}: {exc}"
            ) from None

    return _FIELD.sub(replace, text)
