"""The request and response shapes of the HTTP API, and the checks on what a client sends.

Everything a client sends is checked here before the agent sees it, so a bad request
gets a 400 that says what was wrong instead of a failed run.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from ..exceptions import SelectoolsError

__all__ = [
    "DEFAULT_OVERRIDES",
    "BadRequest",
    "HealthResponse",
    "InvokeRequest",
    "InvokeResponse",
    "parse_invoke",
]

#: AgentConfig fields a client may override per request (``create_app(allowed_overrides=...)``)
DEFAULT_OVERRIDES = frozenset({"model", "temperature", "max_tokens", "max_iterations"})


class BadRequest(SelectoolsError, ValueError):
    """A request the server refuses; ``status`` and ``code`` go into the JSON error."""

    def __init__(self, message: str, *, status: int = 400, code: str = "bad_request") -> None:
        super().__init__(message)
        self.status = status
        self.code = code


@dataclass
class InvokeRequest:
    """``{"prompt": str, "config_overrides"?: dict, "session_id"?: str}``."""

    prompt: str
    config_overrides: dict[str, Any] | None = None
    session_id: str | None = None


@dataclass
class InvokeResponse:
    """The JSON body ``POST /invoke`` answers with."""

    content: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    reasoning: str | None = None
    iterations: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    run_id: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class HealthResponse:
    """The JSON body ``GET /health`` answers with."""

    status: str
    version: str
    model: str
    provider: str
    tools: list[str]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def parse_invoke(
    body: Any, *, max_prompt_chars: int, allowed_overrides: frozenset[str] = DEFAULT_OVERRIDES
) -> InvokeRequest:
    """Check a decoded JSON body and return the request, or raise :class:`BadRequest`."""
    if not isinstance(body, dict):
        raise BadRequest(
            f'the request body must be a JSON object like {{"prompt": "..."}}, '
            f"got a JSON {type(body).__name__}",
            code="invalid_body",
        )
    unknown = sorted(set(body) - {"prompt", "config_overrides", "session_id"})
    if unknown:
        raise BadRequest(
            f"unknown field(s) {', '.join(unknown)}; allowed: prompt, config_overrides, session_id",
            code="unknown_field",
        )
    if "prompt" not in body:
        raise BadRequest(
            'missing "prompt": send {"prompt": "your question"}', code="missing_prompt"
        )
    prompt = body["prompt"]
    if not isinstance(prompt, str) or not prompt.strip():
        raise BadRequest('"prompt" must be a non-empty string', code="invalid_prompt")
    if len(prompt) > max_prompt_chars:
        raise BadRequest(
            f'"prompt" is {len(prompt)} characters; this server accepts at most {max_prompt_chars}',
            status=413,
            code="prompt_too_long",
        )
    overrides = body.get("config_overrides")
    if overrides is not None:
        if not isinstance(overrides, dict):
            raise BadRequest('"config_overrides" must be a JSON object', code="invalid_overrides")
        refused = sorted(set(overrides) - allowed_overrides)
        if refused:
            raise BadRequest(
                f"config_overrides may not set {', '.join(refused)}; "
                f"allowed: {', '.join(sorted(allowed_overrides)) or 'none'}",
                code="override_not_allowed",
            )
        for name, value in overrides.items():
            _check_override(name, value)
    session_id = body.get("session_id")
    if session_id is not None and (
        not isinstance(session_id, str) or not 0 < len(session_id) <= 200
    ):
        raise BadRequest(
            '"session_id" must be a string of 1 to 200 characters', code="invalid_session_id"
        )
    return InvokeRequest(prompt, overrides or None, session_id)


def _check_override(name: str, value: Any) -> None:
    """The documented overrides must have their field's type; others AgentConfig checks."""
    problem = None
    if name == "model" and not (isinstance(value, str) and 0 < len(value) <= 200):
        problem = "must be a string of 1 to 200 characters"
    elif name == "temperature" and not (
        isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    ):
        problem = "must be a number"
    elif name in ("max_tokens", "max_iterations") and not (
        isinstance(value, int) and not isinstance(value, bool) and 0 < value <= 10_000_000
    ):
        problem = "must be a whole number from 1 to 10,000,000"
    if problem is not None:
        raise BadRequest(
            f'config_overrides: "{name}" {problem}, got {type(value).__name__} {_preview(value)}',
            code="invalid_overrides",
        )


def _preview(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
