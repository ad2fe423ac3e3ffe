"""Turning HTTP failures into :class:`ProviderError`s the agent knows how to handle.

Every provider maps whatever its SDK or HTTP client raises to a
``ProviderError`` carrying the status code, the server's ``Retry-After`` and
whether another attempt can help. Retryable: 408, 409, 425, 429, every 5xx,
timeouts, connection failures and garbled responses. Not retryable: other
4xx (bad request, authentication, permission, not found, unprocessable), which
would fail the same way again. Messages are redacted so no key leaks through,
and :func:`translated_errors` chains the original exception only when it does
not quote the key.

The official SDKs (openai, anthropic) share one exception layout
(``APITimeoutError``, ``APIConnectionError``, ``APIStatusError`` with
``status_code``/``response``/``body``, ``APIError`` for errors inside a stream),
mapped by :func:`map_sdk_error`. Anthropic's stream reader also lets raw
``httpx2`` (older SDKs: ``httpx``) transport errors through, and a streamed
``error`` event arrives with the stream's HTTP 200, so its body's error type
says what really happened. A response body that is not valid JSON surfaces as a
``ValueError``.
"""

from __future__ import annotations

import email.utils
import json
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from ..exceptions import ProviderError
from ._secret import Secret, redact

__all__ = [
    "connection_error",
    "error_detail",
    "is_retryable_status",
    "malformed_error",
    "map_sdk_error",
    "retry_after_seconds",
    "safe_cause",
    "status_error",
    "timeout_error",
    "translated_errors",
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
        f"{label} failed: the request timed out{after} (if the model needs longer, raise the "
        "provider's timeout=, or AgentConfig.request_timeout when the provider sets none; "
        "AgentConfig.run_timeout bounds the whole run)",
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


def safe_cause(exc: BaseException, secret: Secret | None) -> BaseException | None:
    """``exc`` to chain as the cause of a mapped error, or ``None`` when any exception in
    its chain quotes the secret (a server echoing a rejected key, say)."""
    value = secret.reveal() if secret else ""
    if len(value) < 4:
        return exc
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        text = f"{current!s} {current!r} {getattr(current, 'body', '')!s}"
        if value in text:
            return None
        current = current.__cause__ or current.__context__
    return exc


@contextmanager
def translated_errors(
    translate: Callable[[Exception], BaseException | None], secret: Secret | None
) -> Iterator[None]:
    """Raise what ``translate`` makes of an exception (e.g. a ``ProviderError``), chained to
    the original unless that quotes the secret; exceptions it returns ``None`` for pass through."""
    try:
        yield
    except Exception as exc:
        translated = translate(exc)
        if translated is None:
            raise
        raise translated from safe_cause(exc, secret)


# Error "type" in a body -> the HTTP status it stands for (Anthropic's names, mostly).
_BODY_TYPES = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
    "server_error": 500,
}


def _body_status(body: Any) -> int | None:
    error = body.get("error") if isinstance(body, Mapping) else None
    kind = error.get("type") if isinstance(error, Mapping) else None
    return _BODY_TYPES.get(kind) if isinstance(kind, str) else None


def _transport_error(exc: Exception) -> str | None:
    """``"timeout"``/``"connection"`` for an httpx2 (or older SDKs' httpx) transport error."""
    for name in ("httpx2", "httpx"):
        module = sys.modules.get(name)
        if module is None:
            continue
        if isinstance(exc, module.TimeoutException):
            return "timeout"
        if isinstance(exc, (module.TransportError, module.StreamError)):
            return "connection"
    return None


def map_sdk_error(
    exc: Exception,
    sdk: ModuleType,
    *,
    label: str,
    provider: str,
    timeout: float | None,
    secret: Secret | None,
) -> ProviderError | None:
    """The ProviderError for ``exc``, or ``None`` when it is not an SDK/transport failure."""
    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, sdk.APITimeoutError) or _transport_error(exc) == "timeout":
        return timeout_error(label, provider, timeout, secret=secret)
    if isinstance(exc, sdk.APIConnectionError) or _transport_error(exc) == "connection":
        detail = str(exc.__cause__ or exc) or type(exc).__name__
        return connection_error(label, provider, detail, secret=secret)
    if isinstance(exc, sdk.APIStatusError):
        detail = error_detail(exc.body) or str(exc)
        status = exc.status_code
        headers = exc.response.headers if exc.response is not None else None
        if status < 400:
            # an error event inside a stream that started as HTTP 200
            status = _body_status(exc.body) or 500
            headers = None
        return status_error(label, provider, status, detail, headers, secret=secret)
    if isinstance(exc, sdk.APIError):
        body = getattr(exc, "body", None)
        status = _body_status(body)
        detail = error_detail(body) or str(exc)
        if status is not None:
            return status_error(label, provider, status, detail, None, secret=secret)
        return ProviderError(
            redact(f"{label} failed: the server reported an error mid-stream: {detail}", secret),
            provider=provider,
            retryable=True,
        )
    if isinstance(exc, ValueError):
        return malformed_error(label, provider, str(exc)[:200], secret=secret)
    base = getattr(sdk, "OpenAIError", None) or getattr(sdk, "AnthropicError", None)
    if base is not None and isinstance(exc, base):
        message = redact(f"{label} failed: {exc}", secret)
        return ProviderError(message, provider=provider, retryable=False)
    return None
