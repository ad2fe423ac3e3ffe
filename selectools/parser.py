"""Reads tool calls out of plain model text, for providers without native tool calling.

Recognised forms: ``TOOL_CALL {...}`` (the contract the prompt asks for), a
fenced JSON block, or an inline JSON object naming a tool. Keys may be
``tool_name``/``tool``/``name`` and ``parameters``/``params``/``arguments``.
JSON is read leniently: trailing commas, single-quoted strings, Python's
``True``/``False``/``None`` and raw newlines inside strings are accepted.
Whatever text is not part of a call is kept as the model's reasoning.

Model text is untrusted, so the parser never raises on it and its cost is
linear in the reply's length: each object is found in one scan that also writes
its lenient form as JSON (so each candidate is decoded by ``json.loads`` once,
never by ``ast``), candidates nested deeper than :data:`MAX_NESTING` levels are
not decoded (which bounds the work per character, and the scan's memory), and
replies longer than :data:`MAX_REPLY_CHARS` are not read for calls. Text that
looks like a call but cannot be read (``TOOL_CALL`` followed by bad JSON)
becomes a :class:`ToolCall` with ``error`` set, which the agent reports to the
model. :func:`json_candidates` gives structured output the same scan.

Written here rather than with a JSON-repair library (json5, json-repair,
dirtyjson): those read one candidate at a time, so finding the calls in a reply
full of braces would re-read the text from every brace (quadratic, as the old
parser was); here the scan that finds the candidates also rewrites them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .types import ToolCall

__all__ = ["MAX_NESTING", "MAX_REPLY_CHARS", "ParseResult", "ToolCallParser", "json_candidates"]

#: Replies longer than this are not read for tool calls (a ``TOOL_CALL`` in one is an error).
MAX_REPLY_CHARS = 1_000_000
#: Objects and arrays nested deeper than this (the call's own braces count) are not decoded.
MAX_NESTING = 32

_MARKER = "TOOL_CALL"
_FENCE = "```"
_NAME_KEYS = ("tool_name", "tool", "name")
_PARAM_KEYS = ("parameters", "params", "arguments", "args", "input")
# inside an object: brackets, quotes, a comma before a closer, Python's constants
_OPENER = re.compile(r"[{\[]")
_TOKEN = re.compile(r"""[{}\[\]"']|,(?=\s*[}\]])|\b(?:True|False|None)\b""")
_STRING_REST = {
    '"': re.compile(r'[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL),
    "'": re.compile(r"[^'\\]*(?:\\.[^'\\]*)*'", re.DOTALL),
}
_SINGLE_QUOTED_ESCAPES = re.compile(r"""\\(.)|\"""", re.DOTALL)
_PYTHON_CONSTANTS = {"True": "true", "False": "false", "None": "null"}
_VALUE_STARTS = "{[,:"  # a string starts only after one of these (prose apostrophes do not)
_GUESS_NAME = re.compile(r"""["']?(?:tool_name|tool|name)["']?\s*:\s*["']([^"'\n]{1,200})""")


@dataclass(slots=True)
class ParseResult:
    """The calls found in a response and the remaining text (the reasoning)."""

    tool_calls: list[ToolCall] = field(default_factory=list)
    text: str = ""

    @property
    def tool_call(self) -> ToolCall | None:
        return self.tool_calls[0] if self.tool_calls else None


@dataclass(slots=True)
class _Span:
    """One balanced ``{...}`` or ``[...]``: ``text[start:end]``, as JSON ``json[json_start:json_end]``."""

    start: int
    end: int
    nesting: int
    json_start: int
    json_end: int
    is_object: bool


@dataclass(slots=True)
class _Scan:
    """What one scan from an opening bracket found (``end == -1``: it never closed)."""

    end: int
    nesting: int
    json: str
    spans: list[_Span]

    def decode(self, span: _Span) -> Any:
        if span.nesting > MAX_NESTING:
            raise ValueError(f"nested deeper than {MAX_NESTING} levels")
        try:
            return json.loads(self.json[span.json_start : span.json_end], strict=False)
        except ValueError as exc:
            raise ValueError(f"not valid JSON: {exc}") from None


def _scan(text: str, start: int) -> _Scan:
    """Scan the object or array opening at ``text[start]`` to its closing bracket, once.

    Records the objects and arrays inside that are nested at most
    :data:`MAX_NESTING` levels deep, and the outermost one, in order of their
    opening brackets, and rewrites the lenient text as JSON. Quotes open strings
    only where a JSON value or key may start; a ``}`` also closes arrays left
    open inside its object; a ``]`` inside an object, or a ``}`` outside any, is
    plain text. Memory stays small on deep nesting: brackets more than
    ``MAX_NESTING`` levels below the innermost open one (whose values are too
    deep to decode) are kept as one byte each.
    """
    pieces: list[str] = []  # the JSON: unchanged stretches of text and rewritten tokens
    copied = start  # text[start:copied] is in pieces
    shift = -start  # JSON index of text index i (past the last rewrite): i + shift
    spans: list[_Span] = []
    is_object = int(text[start] == "{")
    open_objects = is_object
    # the open brackets, innermost last: [text start, JSON start, inner depth, is an object]
    stack: list[list[int]] = [[start, 0, 0, is_object]]
    buried = bytearray()  # is-an-object of the brackets below the stack, outermost first
    outer_buried = False
    search = _TOKEN.search
    position = start + 1
    end = -1
    nesting = 0
    while stack:
        match = search(text, position)
        if match is None:
            break
        at = match.start()
        token = match.group()
        position = match.end()
        first = token[0]
        if first == "{" or first == "[":
            is_object = int(first == "{")
            open_objects += is_object
            stack.append([at, at + shift, 0, is_object])
            if len(stack) > MAX_NESTING + 1:  # the bottom one can no longer be decoded
                bottom = stack.pop(0)
                outer_buried = outer_buried or bottom[0] == start
                buried.append(bottom[3])
        elif first == "}" or first == "]":
            if stack[-1][3] if first == "]" else not open_objects:
                continue  # a stray closer: plain text
            while True:
                opened, json_start, inner, is_object = stack.pop()
                depth = inner + 1
                if opened >= 0 and (depth <= MAX_NESTING or opened == start):
                    spans.append(
                        _Span(opened, position, depth, json_start, position + shift, is_object == 1)
                    )
                open_objects -= is_object
                if not stack and buried:  # bring the next one up, too deep to decode
                    outer = outer_buried and len(buried) == 1
                    stack.append([start if outer else -1, 0, MAX_NESTING, buried.pop()])
                if stack:
                    if depth > stack[-1][2]:
                        stack[-1][2] = depth
                else:
                    end, nesting = position, depth
                if is_object or first == "]" or not stack:
                    break
        elif first == '"' or first == "'":
            string = _string_at(text, at, start)
            if string is None:
                continue
            position = string.end()
            if first == "'":
                _rewrite(pieces, text, copied, at, _as_json_string(text[at + 1 : position - 1]))
                shift += len(pieces[-1]) - (position - at)
                copied = position
        else:  # a trailing comma (dropped) or one of Python's constants
            written = "" if first == "," else _PYTHON_CONSTANTS[token]
            _rewrite(pieces, text, copied, at, written)
            shift += len(written) - (position - at)
            copied = position
    pieces.append(text[copied : position if end == -1 else end])
    spans.sort(key=_span_start)
    return _Scan(end, nesting, "".join(pieces), spans)


def _rewrite(pieces: list[str], text: str, copied: int, at: int, written: str) -> None:
    pieces.append(text[copied:at])
    pieces.append(written)


def _span_start(span: _Span) -> int:
    return span.start


def json_candidates(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of every balanced ``{...}`` and ``[...]`` in ``text``, outermost first.

    In order of their opening brackets, found in one linear scan; brackets inside
    strings do not count, and values nested deeper than :data:`MAX_NESTING` are
    skipped (their shallower insides are not).
    """
    position = 0
    while (found := _OPENER.search(text, position)) is not None:
        scan = _scan(text, found.start())
        for span in scan.spans:
            if span.nesting <= MAX_NESTING:
                yield span.start, span.end
        if scan.end == -1:
            return
        position = scan.end


def _string_at(text: str, quote_at: int, floor: int) -> re.Match[str] | None:
    """The rest of the string whose quote is at ``quote_at``, if a string may start there.

    A quote with no closing quote after it matches nothing, once per quote kind:
    any later quote in a value position would have closed it.
    """
    before = quote_at - 1
    while before > floor and text[before] in " \t\r\n":
        before -= 1
    if text[before] not in _VALUE_STARTS:
        return None
    return _STRING_REST[text[quote_at]].match(text, quote_at + 1)


def _as_json_string(body: str) -> str:
    """A single-quoted string's body as a double-quoted JSON string."""

    def escape(match: re.Match[str]) -> str:
        escaped = match.group(1)
        if escaped is None:
            return '\\"'
        return "'" if escaped == "'" else "\\" + escaped

    return '"' + _SINGLE_QUOTED_ESCAPES.sub(escape, body) + '"'


def loads_lenient(text: str) -> Any:
    """``json.loads`` that forgives trailing commas, single quotes and Python constants.

    Raises ``ValueError`` (saying why) for anything else, including nesting
    deeper than :data:`MAX_NESTING`.
    """
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        scan = _scan(stripped, 0)
        if scan.end == len(stripped):
            whole = _Span(0, scan.end, scan.nesting, 0, len(scan.json), stripped[0] == "{")
            return scan.decode(whole)
    try:
        return json.loads(stripped, strict=False)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"not valid JSON: {exc}") from None


class ToolCallParser:
    """Extracts :class:`ToolCall` objects from model text; never raises on a ``str``."""

    def parse(self, text: str) -> ParseResult:
        if not text or "{" not in text:
            return ParseResult(text=text or "")
        if len(text) > MAX_REPLY_CHARS:
            if _MARKER not in text:
                return ParseResult(text=text)
            error = (
                f"the reply is {len(text):,} characters; tool calls are read from replies "
                f"of at most {MAX_REPLY_CHARS:,}"
            )
            return ParseResult(tool_calls=[ToolCall(tool_name="", error=error)], text=text)
        spans: list[tuple[int, int, ToolCall]] = []
        if _MARKER in text:
            spans = _after_markers(text)
        if not spans:
            spans = _in_fences(text)
        if not spans:
            spans = _inline(text)
        if not spans:
            return ParseResult(text=text)
        remaining = []
        cursor = 0
        for start, end, _ in spans:
            remaining.append(text[cursor:start])
            cursor = end
        remaining.append(text[cursor:])
        reasoning = "".join(remaining).replace(_MARKER, "").strip()
        return ParseResult(tool_calls=[call for _, _, call in spans], text=_drop_colons(reasoning))


def _after_markers(text: str) -> list[tuple[int, int, ToolCall]]:
    """``TOOL_CALL {...}``: the first object after each marker; unreadable ones are errors."""
    spans = []
    position = 0
    while (marker := text.find(_MARKER, position)) != -1:
        brace = text.find("{", marker)
        if brace == -1:
            break
        scan = _scan(text, brace)
        if scan.end == -1:
            error = "unterminated JSON after TOOL_CALL (a { without its })"
            spans.append(
                (marker, len(text), ToolCall(tool_name=_guess_name(text, brace), error=error))
            )
            break
        outer = scan.spans[0]
        try:
            call = _to_call(scan.decode(outer), require_name_key=False)
        except ValueError as exc:
            call = ToolCall(tool_name=_guess_name(text, brace, scan.end), error=str(exc))
        if call is not None:
            spans.append((marker, scan.end, call))
        position = scan.end
    return spans


def _in_fences(text: str) -> list[tuple[int, int, ToolCall]]:
    """A fenced block (optionally tagged ``json``) whose whole body is a call."""
    spans = []
    position = 0
    while (opening := text.find(_FENCE, position)) != -1:
        closing = text.find(_FENCE, opening + len(_FENCE))
        if closing == -1:
            break
        body = text[opening + len(_FENCE) : closing]
        if body.startswith(("json", "JSON")):
            body = body[4:]
        body = body.strip()
        if body.startswith("{"):
            scan = _scan(body, 0)
            if scan.end == len(body):
                call = _read_call(scan, scan.spans[0])
                if call is not None:
                    spans.append((opening, closing + len(_FENCE), call))
        position = closing + len(_FENCE)
    return spans


def _inline(text: str) -> list[tuple[int, int, ToolCall]]:
    """Objects anywhere in the text that name a tool; the outermost such object wins."""
    spans = []
    position = 0
    while (brace := text.find("{", position)) != -1:
        scan = _scan(text, brace)
        covered = -1
        for obj in scan.spans:
            if obj.start < covered or obj.nesting > MAX_NESTING or not obj.is_object:
                continue
            if text.find("name", obj.start, obj.end) == -1 and (
                text.find("tool", obj.start, obj.end) == -1
            ):
                covered = obj.end  # nothing inside can name a tool
                continue
            call = _read_call(scan, obj)
            if call is not None:
                spans.append((obj.start, obj.end, call))
                covered = obj.end
        if scan.end == -1:
            break
        position = scan.end
    return spans


def _read_call(scan: _Scan, obj: _Span) -> ToolCall | None:
    """The call an object spells out, or ``None`` (not JSON, or not a call)."""
    try:
        data = scan.decode(obj)
    except ValueError:
        return None
    return _to_call(data, require_name_key=True)


def _to_call(data: Any, *, require_name_key: bool) -> ToolCall | None:
    if not isinstance(data, dict):
        return None
    name = next((data[k] for k in _NAME_KEYS if isinstance(data.get(k), str) and data[k]), None)
    if name is None:
        return None
    has_params = any(k in data for k in _PARAM_KEYS)
    if require_name_key and "tool_name" not in data and "tool" not in data and not has_params:
        return None
    params: Any = next((data[k] for k in _PARAM_KEYS if k in data), {})
    if isinstance(params, str):
        try:
            params = loads_lenient(params) if params.strip() else {}
        except ValueError as exc:
            return ToolCall(tool_name=name, error=str(exc))
    if params is None:
        params = {}
    if not isinstance(params, dict):
        return ToolCall(tool_name=name, error="the parameters must be a JSON object")
    return ToolCall(tool_name=name, parameters=params)


def _guess_name(text: str, start: int, end: int | None = None) -> str:
    """The tool an unreadable call names, so the model is told which call failed."""
    found = _GUESS_NAME.search(text, start, len(text) if end is None else end)
    return found.group(1) if found else ""


def _drop_colons(reasoning: str) -> str:
    """Drop the colon a model leaves at the end of a line before its call."""
    lines = reasoning.split("\n")
    for index, line in enumerate(lines):
        kept = line.rstrip(" \t")
        if kept.endswith(":"):
            lines[index] = kept[:-1].rstrip(" \t")
    return "\n".join(lines).strip()
