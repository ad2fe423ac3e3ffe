"""Parameter descriptions and the tool description from a function's docstring.

Google (``Args:``), NumPy (``Parameters`` + dashes) and Sphinx (``:param x:``)
styles are understood. The tool description is the text before the first
section (``Args:``, ``Returns:``, ``:param ...``); a docstring without sections
is used whole. Sections are dropped because the schema already carries the
parameters, and ``Returns``/``Raises``/``Examples`` mostly add noise to a prompt.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

__all__ = ["ParsedDocstring", "parse_docstring"]

_PARAM_SECTIONS = {
    "args",
    "arguments",
    "parameters",
    "params",
    "keyword args",
    "keyword arguments",
    "kwargs",
    "other parameters",
}
_OTHER_SECTIONS = {
    "returns",
    "return",
    "yields",
    "yield",
    "raises",
    "raise",
    "examples",
    "example",
    "note",
    "notes",
    "warning",
    "warnings",
    "see also",
    "attributes",
    "references",
    "todo",
}
_SECTIONS = _PARAM_SECTIONS | _OTHER_SECTIONS

_GOOGLE_HEADER = re.compile(r"^([A-Za-z][A-Za-z ]*):\s*$")
_NUMPY_RULE = re.compile(r"^\s*-{3,}\s*$")
_GOOGLE_ITEM = re.compile(r"^\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_NUMPY_ITEM = re.compile(r"^(\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)*)\s*(?::.*)?$")
_SPHINX_FIELD = re.compile(r"^:(\w+)([^:]*):\s*(.*)$")
_SPHINX_PARAM_KINDS = {"param", "parameter", "arg", "argument", "key", "keyword"}


@dataclass
class ParsedDocstring:
    description: str = ""
    params: dict[str, str] = field(default_factory=dict)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _join(lines: list[str]) -> str:
    return " ".join(part.strip() for part in lines if part.strip())


def _parse_items(block: list[str], item_re: re.Pattern[str], numpy: bool) -> dict[str, str]:
    """Items start at the block's base indentation; deeper lines continue them."""
    import textwrap  # at @tool definition time, not on import

    lines = textwrap.dedent("\n".join(block)).splitlines()
    params: dict[str, str] = {}
    names: list[str] = []
    text: list[str] = []

    def flush() -> None:
        for name in names:
            params[name.lstrip("*")] = _join(text)

    for line in lines:
        if not line.strip():
            continue
        match = item_re.match(line) if _indent(line) == 0 else None
        if match:
            flush()
            if numpy:
                names = [n.strip() for n in match.group(1).split(",")]
                text = []
            else:
                names = [match.group(1)]
                text = [match.group(2)]
        else:
            text.append(line)
    flush()
    return params


def parse_docstring(doc: str | None) -> ParsedDocstring:
    """Split a docstring into the tool description and per-parameter descriptions."""
    if not doc or not doc.strip():
        return ParsedDocstring()
    lines = inspect.cleandoc(doc).splitlines()
    description_end = len(lines)
    params: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        title = stripped.rstrip(":").strip().lower()
        google = _GOOGLE_HEADER.match(line)
        if google and title in _SECTIONS:
            description_end = min(description_end, i)
            i += 1
            block = []
            while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > 0):
                block.append(lines[i])
                i += 1
            if title in _PARAM_SECTIONS:
                params.update(_parse_items(block, _GOOGLE_ITEM, numpy=False))
            continue
        if (
            title in _SECTIONS
            and _indent(line) == 0
            and i + 1 < len(lines)
            and _NUMPY_RULE.match(lines[i + 1])
        ):
            description_end = min(description_end, i)
            i += 2
            block = []
            while i < len(lines) and not (
                i + 1 < len(lines)
                and lines[i].strip().lower() in _SECTIONS
                and _NUMPY_RULE.match(lines[i + 1])
            ):
                block.append(lines[i])
                i += 1
            if title in _PARAM_SECTIONS:
                params.update(_parse_items(block, _NUMPY_ITEM, numpy=True))
            continue
        sphinx = _SPHINX_FIELD.match(stripped)
        if sphinx:
            description_end = min(description_end, i)
            base = _indent(line)
            text = [sphinx.group(3)]
            i += 1
            while i < len(lines) and lines[i].strip() and _indent(lines[i]) > base:
                text.append(lines[i])
                i += 1
            kind, rest = sphinx.group(1).lower(), sphinx.group(2).split()
            if kind in _SPHINX_PARAM_KINDS and rest:
                params[rest[-1].lstrip("*")] = _join(text)
            continue
        i += 1
    description = "\n".join(lines[:description_end]).strip()
    return ParsedDocstring(description=description, params=params)
