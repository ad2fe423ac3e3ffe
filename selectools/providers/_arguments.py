"""Reading a tool call's arguments as the models send them, for every provider."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["decode_arguments"]


def decode_arguments(raw: Any) -> tuple[dict[str, Any], str | None]:
    """A tool call's arguments as a dict, or ``({}, why)`` when they cannot be read.

    Models send a JSON object (as text or already decoded); an empty string
    means no arguments. Anything else (truncated JSON, a list, a number) is an
    error the agent reports back to the model instead of running the tool.
    """
    if isinstance(raw, dict):
        return raw, None
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, None
    if not isinstance(raw, str):
        return {}, f"arguments must be a JSON object, got {type(raw).__name__}"
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        shown = raw if len(raw) <= 200 else raw[:200] + "…"
        return {}, f"arguments are not valid JSON ({exc.msg}; char {exc.pos}): {shown}"
    except RecursionError:  # the model's text decides the depth
        return {}, "arguments are nested too deeply to read"
    if not isinstance(value, dict):
        return {}, f"arguments must be a JSON object, got {type(value).__name__}"
    return value, None
