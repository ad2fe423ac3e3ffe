"""``{var}`` interpolation of notebook variables into prompts, as bounded model-friendly views.

Only ``{name}``, ``{name.attr}``, ``{name[key]}`` (with an optional ``!r``
conversion and ``:spec``) are replaced; any other brace, such as JSON in a
prompt, is left alone, and ``{{``/``}}`` give literal braces. Nothing is
evaluated beyond attribute and item lookups.

A plain ``{var}`` is filled with :func:`llm_view`, not ``str(obj)``: a DataFrame
becomes its shape, column types and first rows; an array its shape, dtype and
a corner; a dict or list a bounded, cycle-safe rendering; long text its start.
Each says what it left out, and none takes more than ``limit`` characters
(``%selectools context_limit=N``). A class takes over by defining
``_repr_llm_(self, limit: int) -> str``. The walk over containers is our own
rather than :mod:`reprlib`, because reprlib sorts a whole dict before showing
a few keys and calls ``repr`` on any leaf at full length; here the work is
proportional to what is shown.
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Mapping
from typing import Any

from .errors import NotebookUsageError

__all__ = ["DEFAULT_CONTEXT_LIMIT", "interpolate", "llm_view"]

#: characters a ``{var}`` may take in a prompt unless configured otherwise
DEFAULT_CONTEXT_LIMIT = 2000

_FIELD = re.compile(
    r"\{\{|\}\}"
    r"|\{(?P<field>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[[^\[\]{}]*\])*)"
    r"(?:!(?P<conv>[rsa]))?(?::(?P<spec>[^{}]*))?\}"
)
_FORMATTER = string.Formatter()
#: container items shown per level, and levels shown, before "…"
_ITEMS = 20
_DEPTH = 6
#: rows of a table shown at most
_ROWS = 10
#: columns named in a table's header at most
_COLUMNS = 30


def _cut(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    note = f"\n[truncated: showing {{}} of {len(text)} characters]"
    keep = max(limit - len(note) - 8, 0)
    return text[:keep] + note.format(keep)


def _package(value: Any) -> str:
    return type(value).__module__.partition(".")[0]


def _frame(value: Any, limit: int) -> str:
    """A pandas DataFrame or Series: shape, column types, the first rows that fit."""
    rows = len(value)
    if hasattr(value, "columns"):
        columns = list(itertools.islice(value.columns, _COLUMNS))
        types = ", ".join(f"{c} ({value.dtypes.iloc[i]})" for i, c in enumerate(columns))
        more = len(value.columns) - len(columns)
        if more > 0:
            types += f", and {more} more columns"
        header = f"DataFrame: {rows} rows × {len(value.columns)} columns\ncolumns: {types}"
    else:
        header = f"Series '{value.name}': {rows} values, dtype {value.dtype}"
    shown = min(rows, _ROWS)
    while True:
        table = value.head(shown).to_string(max_cols=12, max_colwidth=40) if shown else ""
        rest = rows - shown
        tail = f"\n[{rest} more rows not shown]" if rest > 0 else ""
        text = f"{header}\nfirst {shown} rows:\n{table}{tail}" if shown else header + tail
        if len(text) <= limit or shown <= 1:
            return _cut(text, limit)
        shown //= 2


def _array(value: Any, limit: int) -> str:
    """A numpy array: shape, dtype, and a corner (or the first values, flattened)."""
    import numpy

    header = f"ndarray: shape {tuple(value.shape)}, dtype {value.dtype}"
    if value.ndim <= 2:
        body = numpy.array2string(value, threshold=36, edgeitems=3, max_line_width=100)
        note = "" if value.size <= 36 else "\n[corner shown: first and last 3 per axis]"
    else:
        first = value.flat[:12]
        body = numpy.array2string(first, threshold=36, max_line_width=100)
        note = f"\n[first {len(first)} of {value.size} values, flattened]"
    return _cut(f"{header}\n{body}{note}", limit)


def _walk(value: Any, budget: list[int], depth: int, path: set[int]) -> str:
    """A cycle-safe rendering of nested containers that stops when ``budget`` is spent."""
    if budget[0] <= 0:
        return "…"
    if isinstance(value, str):
        shown = value if len(value) <= 200 else value[:200] + f"… ({len(value)} chars)"
        text = repr(shown)
    elif value is None or isinstance(value, (bool, int, float, complex)):
        text = repr(value)
    elif isinstance(value, (dict, list, tuple, set, frozenset)):
        if id(value) in path:
            return "<cycle>"
        if depth >= _DEPTH:
            return f"<{type(value).__name__} of {len(value)}, nested too deep>"
        path.add(id(value))
        try:
            text = _container(value, budget, depth, path)
        finally:
            path.discard(id(value))
        return text
    else:
        text = _cut(llm_view(value, 200), 200)
    budget[0] -= len(text)
    return text


def _container(value: Any, budget: list[int], depth: int, path: set[int]) -> str:
    items: list[str] = []
    if isinstance(value, dict):
        entries = itertools.islice(value.items(), _ITEMS)
        for key, item in entries:
            items.append(
                f"{_walk(key, budget, depth + 1, path)}: {_walk(item, budget, depth + 1, path)}"
            )
            if budget[0] <= 0:
                break
        opening, closing = "{", "}"
    else:
        for item in itertools.islice(value, _ITEMS):
            items.append(_walk(item, budget, depth + 1, path))
            if budget[0] <= 0:
                break
        brackets = "[]" if isinstance(value, list) else "()" if isinstance(value, tuple) else "{}"
        opening, closing = brackets[0], brackets[1]
    left = len(value) - len(items)
    if left > 0:
        items.append(f"… {left} more")
    return opening + ", ".join(items) + closing


def llm_view(value: Any, limit: int = DEFAULT_CONTEXT_LIMIT) -> str:
    """``value`` as a model should read it in a prompt, in at most ``limit`` characters.

    ``_repr_llm_(limit)`` on the value's class wins; then pandas frames and
    series, numpy arrays, containers, text; anything else is ``str(value)``,
    cut to the limit. Every shortened view says what it left out.
    """
    hook = getattr(type(value), "_repr_llm_", None)
    if hook is not None:
        text = hook(value, limit)
        if not isinstance(text, str):
            raise TypeError(f"_repr_llm_ must return str, got {type(text).__name__}")
        return _cut(text, limit)
    if isinstance(value, str):
        return _cut(value, limit)
    package = _package(value)
    if package == "pandas" and hasattr(value, "head") and hasattr(value, "to_string"):
        return _frame(value, limit)
    if package == "numpy" and hasattr(value, "ndim") and hasattr(value, "flat"):
        return _array(value, limit)
    if isinstance(value, (dict, list, tuple, set, frozenset)):
        body = _walk(value, [limit], 0, set())
        header = f"{type(value).__name__} of {len(value)} items\n" if len(value) > _ITEMS else ""
        return _cut(header + body, limit)
    return _cut(str(value), limit)


def interpolate(
    text: str,
    namespace: Mapping[str, Any],
    *,
    where: str = "prompt",
    limit: int = DEFAULT_CONTEXT_LIMIT,
) -> str:
    """Replace ``{var}`` fields in ``text`` with bounded views of values from ``namespace``.

    ``{var}`` uses :func:`llm_view`; ``{var!r}`` and ``{var:spec}`` format as
    Python does, also cut to ``limit`` characters.
    """

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
        except (AttributeError, LookupError, TypeError, ValueError) as exc:
            raise NotebookUsageError(
                f"{where}: cannot fill {{{field}}}: {type(exc).__name__}: {exc}"
            ) from None
        conversion, spec = match.group("conv"), match.group("spec")
        try:
            if conversion is None and not spec:
                return llm_view(value, limit)
            value = _FORMATTER.convert_field(value, conversion)
            return _cut(_FORMATTER.format_field(value, spec or ""), limit)
        except Exception as exc:  # the user's _repr_llm_/__format__ failed: say whose
            raise NotebookUsageError(
                f"{where}: cannot fill {{{field}}} ({type(value).__name__}): "
                f"{type(exc).__name__}: {exc}"
            ) from None

    return _FIELD.sub(replace, text)
