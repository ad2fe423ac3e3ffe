"""Turning HTTP failures into :class:`ProviderError`s the agent knows how to handle.

Every provider maps whatever its SDK or HTTP client raises to a
``ProviderError`` carrying the status code, the server's ``Retry-After`` and
whether another attempt can help. Retryable: 408, 409, 425, 429, every 5xx,
timeouts, connection failures and garbled responses. Not retryable: other
4xx (bad request, authentication, permission, not found, unprocessable), which
would fail the same way again. Messages are redacted so no key leaks through.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Mapping
from typing import Any

from ..exceptions import ProviderError
from ._secret import Secret, redact

__all__ = [
    "connection_error",
    "error_detail",
    "is_retryable_status",
    "malformed_error",
    "retry_after_seconds",
    "status_error",
    "timeout_error",
    "truncated_error",
]

_REASONS = {
    400: "bad request",
    401: "authentication failed",
    403: "permission denied",
    404: "not found",
    408: "request timeout",
    409: "conflict",
    413: "request too large",
    422: "unprocessable request",
    429: "rate limited",
    500: "server error",
    502: "bad gateway",
    503: "service unavailable",
    504: "gateway timeout",
    529: "overloaded",
}

_HINTS = {
    401: "check the API key (a wrong or revoked key is rejected)",
    403: "the key is valid but not allowed to use this model or endpoint",
    404: "check the model name (and base URL or deployment)",
    429: "the agent retries after the server's Retry-After delay",
}


def is_retryable_status(status: int) -> bool:
    return status in (408, 409, 425, 429) or status >= 500


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait according to ``retry-after-ms`` or ``Retry-After`` (seconds or a date)."""
    if not headers:
        return None
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis:
        try:
            return max(float(millis) / 1000.0, 0.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def error_detail(body: Any) -> str:
    """The human-readable message inside a vendor's error body (any of the four shapes)."""
    if isinstance(body, (bytes, bytearray)):
        body = body.decode("utf-8", "replace")
    if isinstance(body, str):
        text = body.strip()
        try:
            body = json.loads(text)
        except ValueError:
            return text[:500]
    if isinstance(body, Mapping):
        error = body.get("error", body)
        if isinstance(error, str):
            return error[:500]
        if isinstance(error, Mapping):
            message = error.get("message")
            kind = error.get("type") or error.get("status")
            if isinstance(message, str) and message:
                return f"{message} ({kind})" if isinstance(kind, str) and kind else message
        message = body.get("message")
        if isinstance(message, str):
            return message[:500]
    return "" if body is None else str(body)[:500]


def _make(message: str, provider: str, secret: Secret | None, **fields: Any) -> ProviderError:
    return ProviderError(redact(message, secret), provider=provider, **fields)


def status_error(
    label: str,
    provider: str,
    status: int,
    detail: str = "",
    headers: Mapping[str, str] | None = None,
    *,
    secret: Secret | None = None,
    retry_after: float | None = None,
) -> ProviderError:
    """An error response from the server (``retry_after`` overrides the headers' value)."""
    reason = _REASONS.get(status, "client error" if status < 500 else "server error")
    if retry_after is None:
        retry_after = retry_after_seconds(headers)
    parts = [f"{label} failed: HTTP {status} ({reason})"]
    if detail:
        parts.append(f": {detail}")
    if retry_after is not None:
        parts.append(f". Retry after {retry_after:g}s")
    hint = _HINTS.get(status)
    if hint:
        parts.append(f". Hint: {hint}")
    return _make(
        "".join(parts),
        provider,
        secret,
        status_code=status,
        retry_after=retry_after,
        retryable=is_retryable_status(status),
    )


def timeout_error(
    label: str, provider: str, timeout: float | None, *, secret: Secret | None = None
) -> ProviderError:
    after = f" after {timeout:g}s" if timeout else ""
    return _make(
        f"{label} failed: the request timed out{after} (raise AgentConfig.request_timeout "
        "if the model needs longer)",
        provider,
        secret,
        status_code=None,
        retryable=True,
    )


def connection_error(
    label: str, provider: str, detail: str, *, secret: Secret | None = None
) -> ProviderError:
    return _make(
        f"{label} failed: connection error ({detail or 'the connection was lost'}); "
        "check the base URL / host and that the server is reachable",
        provider,
        secret,
        retryable=True,
    )


def malformed_error(
    label: str, provider: str, detail: str, *, secret: Secret | None = None
) -> ProviderError:
    return _make(
        f"{label} failed: the server sent a malformed response ({detail})",
        provider,
        secret,
        retryable=True,
    )


def truncated_error(label: str, provider: str) -> ProviderError:
    return ProviderError(
        f"{label} failed: the stream ended before the model finished its reply "
        "(no end-of-message event); nothing from it was used for tool calls",
        provider=provider,
        retryable=True,
    )
