"""Mapping the official SDKs' exceptions (openai, anthropic) to :class:`ProviderError`.

Both SDKs share one exception layout (``APITimeoutError``,
``APIConnectionError``, ``APIStatusError`` with ``status_code``/``response``/
``body``, ``APIError`` for errors inside a stream). Anthropic's stream reader
also lets raw ``httpx2`` (older SDKs: ``httpx``) transport errors through, and a streamed ``error``
event arrives with the stream's HTTP 200, so its body's error type says what
really happened. A response body that is not valid JSON surfaces as a
``ValueError``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from ..exceptions import ProviderError
from ._errors import connection_error, error_detail, malformed_error, status_error, timeout_error
from ._secret import Secret, redact

__all__ = ["map_sdk_error"]

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
