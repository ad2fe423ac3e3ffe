"""Reads tool calls out of plain model text, for providers without native tool calling.

Recognised forms: ``TOOL_CALL {...}`` (the contract the prompt asks for), a
fenced JSON block, or an inline JSON object naming a tool. Keys may be
``tool_name``/``tool``/``name`` and ``parameters``/``params``/``arguments``.
JSON is read leniently (trailing commas, single quotes, Python literals).
Whatever text is not part of a call is kept as the model's reasoning.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .types import ToolCall

__all__ = ["ParseResult", "ToolCallParser"]

_MARKER = "TOOL_CALL"
_NAME_KEYS = ("tool_name", "tool", "name")
_PARAM_KEYS = ("parameters", "params", "arguments", "args", "input")
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


@dataclass(slots=True)
class ParseResult:
    """The calls found in a response and the remaining text (the reasoning)."""

    tool_calls: list[ToolCall] = field(default_factory=list)
    text: str = ""

    @property
    def tool_call(self) -> ToolCall | None:
        return self.tool_calls[0] if self.tool_calls else None


def _balanced_object(text: str, start: int) -> int:
    """Index just past the JSON object opening at ``text[start]`` (``-1`` if unbalanced)."""
    depth = 0
    quote = ""
    escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index + 1
    return -1


def loads_lenient(text: str) -> Any:
    """``json.loads`` that forgives trailing commas, single quotes and Python literals."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    cleaned = _TRAILING_COMMA.sub(r"\1", text)
    try:
        return json.loads(cleaned)
    except ValueError:
        pass
    import ast

    pythonish = re.sub(r"\btrue\b", "True", cleaned)
    pythonish = re.sub(r"\bfalse\b", "False", pythonish)
    pythonish = re.sub(r"\bnull\b", "None", pythonish)
    try:
        return ast.literal_eval(pythonish)
    except (ValueError, SyntaxError) as exc:
        raise ValueError(f"not valid JSON: {exc}") from exc


class ToolCallParser:
    """Extracts :class:`ToolCall` objects from model text."""

    def parse(self, text: str) -> ParseResult:
        if not text or "{" not in text:
            return ParseResult(text=text or "")
        spans: list[tuple[int, int, ToolCall]] = []
        if _MARKER in text:
            spans = self._after_markers(text)
        if not spans:
            spans = self._in_fences(text)
        if not spans:
            spans = self._inline(text)
        if not spans:
            return ParseResult(text=text)
        remaining = []
        cursor = 0
        for start, end, _ in spans:
            remaining.append(text[cursor:start])
            cursor = end
        remaining.append(text[cursor:])
        reasoning = "".join(remaining).replace(_MARKER, "")
        reasoning = re.sub(r"[ \t]*:[ \t]*$", "", reasoning.strip(), flags=re.MULTILINE).strip()
        return ParseResult(tool_calls=[call for _, _, call in spans], text=reasoning)

    def _after_markers(self, text: str) -> list[tuple[int, int, ToolCall]]:
        spans = []
        position = 0
        while (marker := text.find(_MARKER, position)) != -1:
            brace = text.find("{", marker)
            if brace == -1:
                break
            end = _balanced_object(text, brace)
            if end == -1:
                spans.append(
                    (
                        marker,
                        len(text),
                        ToolCall(tool_name="", error="unterminated JSON after TOOL_CALL"),
                    )
                )
                break
            call = self._to_call(text[brace:end], require_name_key=False)
            if call is not None:
                spans.append((marker, end, call))
            position = end
        return [span for span in spans if span[2].tool_name or span[2].error]

    def _in_fences(self, text: str) -> list[tuple[int, int, ToolCall]]:
        spans = []
        for match in _FENCE.finditer(text):
            body = match.group(1).strip()
            if body.startswith("{"):
                call = self._to_call(body, require_name_key=True)
                if call is not None:
                    spans.append((match.start(), match.end(), call))
        return spans

    def _inline(self, text: str) -> list[tuple[int, int, ToolCall]]:
        spans = []
        position = 0
        while (brace := text.find("{", position)) != -1:
            end = _balanced_object(text, brace)
            if end == -1:
                break
            call = self._to_call(text[brace:end], require_name_key=True)
            if call is not None:
                spans.append((brace, end, call))
                position = end
            else:
                position = brace + 1
        return spans

    @staticmethod
    def _to_call(blob: str, *, require_name_key: bool) -> ToolCall | None:
        try:
            data = loads_lenient(blob)
        except ValueError as exc:
            if require_name_key:
                return None
            return ToolCall(
                tool_name=_guess_name(blob), error=f"could not read the arguments: {exc}"
            )
        if not isinstance(data, dict):
            return None
        name = next((data[k] for k in _NAME_KEYS if isinstance(data.get(k), str)), None)
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
                return ToolCall(tool_name=name, error=f"could not read the arguments: {exc}")
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return ToolCall(tool_name=name, error="the parameters must be a JSON object")
        return ToolCall(tool_name=name, parameters=params)


def _guess_name(blob: str) -> str:
    match = re.search(r"[\"']?(?:tool_name|tool|name)[\"']?\s*:\s*[\"']([^\"']+)", blob)
    return match.group(1) if match else ""
