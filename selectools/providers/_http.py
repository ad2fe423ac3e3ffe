"""JSON over HTTP with ``httpx``, for the providers that have no official SDK here.

:class:`HTTPTransport` posts JSON and streams response lines, sync or async,
through injectable ``httpx.Client`` / ``httpx.AsyncClient`` objects (an async
client per event loop when none is injected). Every URL is absolute and the
auth headers travel with each request, so injected clients need no setup.
Whatever fails (status, timeout, connection, unreadable JSON) becomes a
:class:`~selectools.exceptions.ProviderError` with the secret redacted.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterable, Iterator
from contextlib import aclosing, asynccontextmanager, closing, contextmanager
from typing import Any

from ..exceptions import ProviderError
from ..types import ToolCall
from ..usage import UsageStats
from ._base import VendorProvider, finished_items
from ._clients import (
    PerLoop,
    close_async_client,
    close_with,
    reply_transport,
    require,
    shared_ssl_context,
)
from ._errors import (
    connection_error,
    error_detail,
    malformed_error,
    status_error,
    timeout_error,
    translated_errors,
    truncated_error,
)
from ._secret import Secret
from .base import LLMRequest, StreamItem

__all__ = [
    "HTTPProvider",
    "HTTPTransport",
    "JSONStreamState",
    "aiter_sse_data",
    "iter_sse_data",
]

DEFAULT_TIMEOUT = 120.0


class _SSEReader:
    """Collects ``data:`` lines; an empty line completes an event."""

    __slots__ = ("data",)

    def __init__(self) -> None:
        self.data: list[str] = []

    def feed(self, line: str) -> str | None:
        """The completed event's data, or ``None`` while an event is still open."""
        if not line:
            if self.data:
                event = "\n".join(self.data)
                self.data = []
                return event
        elif line.startswith("data:"):
            self.data.append(line[5:].lstrip(" "))
        return None


def iter_sse_data(lines: Iterable[str]) -> Iterator[str]:
    """The ``data`` of each complete server-sent event (an unterminated last event is dropped)."""
    reader = _SSEReader()
    for line in lines:
        event = reader.feed(line)
        if event is not None:
            yield event


async def aiter_sse_data(lines: AsyncIterator[str]) -> AsyncGenerator[str, None]:
    """Async :func:`iter_sse_data`."""
    reader = _SSEReader()
    async for line in lines:
        event = reader.feed(line)
        if event is not None:
            yield event


class HTTPTransport:
    """Posts JSON to ``base_url`` for one provider, mapping failures to ProviderError."""

    def __init__(
        self,
        *,
        provider: str,
        extra: str,
        owner: str,
        base_url: str,
        headers: dict[str, str],
        secret: Secret | None,
        timeout: float | None,
        http_client: Any = None,
        async_http_client: Any = None,
        retry_hint: Callable[[Any], float | None] | None = None,
    ) -> None:
        httpx = require("httpx", extra, owner)
        self._httpx = httpx
        self.provider = provider
        self.base_url = base_url.rstrip("/")
        self._headers = headers
        self._secret = secret
        self._retry_hint = retry_hint
        default = httpx.Timeout(timeout or DEFAULT_TIMEOUT, connect=min(timeout or 10.0, 10.0))
        tls = shared_ssl_context(httpx)
        if http_client is None:
            transport = reply_transport(httpx, tls, asynchronous=False)
            http_client = httpx.Client(timeout=default, transport=transport)
            close_with(self, http_client)
        self._client = http_client
        self._async: PerLoop[Any] = PerLoop(
            lambda: httpx.AsyncClient(
                timeout=default, transport=reply_transport(httpx, tls, asynchronous=True)
            ),
            fixed=async_http_client,
            close=close_async_client,
        )

    def _options(self, body: Any, timeout: float | None) -> dict[str, Any]:
        options: dict[str, Any] = {"json": body, "headers": self._headers}
        if timeout is not None:
            options["timeout"] = timeout
        return options

    # -- error mapping -------------------------------------------------------------
    def _failure(self, exc: Exception, label: str, timeout: float | None) -> ProviderError | None:
        httpx = self._httpx
        if isinstance(exc, ProviderError):
            return exc
        if isinstance(exc, httpx.TimeoutException):
            return timeout_error(label, self.provider, timeout, secret=self._secret)
        if isinstance(exc, (httpx.TransportError, httpx.StreamError)):
            detail = str(exc) or type(exc).__name__
            return connection_error(label, self.provider, detail, secret=self._secret)
        if isinstance(exc, ValueError):
            return malformed_error(label, self.provider, str(exc)[:200], secret=self._secret)
        return None

    def status_failure(self, label: str, status: int, body: Any, headers: Any) -> ProviderError:
        """The error for an error status (also used for errors sent inside a stream)."""
        try:
            parsed = json.loads(body) if isinstance(body, (bytes, str)) else body
        except ValueError:
            parsed = body
        hint = self._retry_hint(parsed) if self._retry_hint is not None else None
        return status_error(
            label,
            self.provider,
            status,
            error_detail(parsed),
            headers,
            secret=self._secret,
            retry_after=hint,
        )

    def _check(self, response: Any, label: str) -> None:
        if response.status_code >= 400:
            raise self.status_failure(
                label, response.status_code, response.content, response.headers
            )

    # -- requests --------------------------------------------------------------------
    def post(self, path: str, body: Any, timeout: float | None, label: str) -> Any:
        with translated_errors(lambda exc: self._failure(exc, label, timeout), self._secret):
            response = self._client.post(self.base_url + path, **self._options(body, timeout))
            self._check(response, label)
            return response.json()

    async def apost(self, path: str, body: Any, timeout: float | None, label: str) -> Any:
        with translated_errors(lambda exc: self._failure(exc, label, timeout), self._secret):
            client = await self._async.get()
            response = await client.post(self.base_url + path, **self._options(body, timeout))
            self._check(response, label)
            return response.json()

    def stream_lines(
        self, path: str, body: Any, timeout: float | None, label: str
    ) -> Generator[str, None, None]:
        """The response's lines as they arrive (the stream is closed if the consumer stops)."""
        with translated_errors(lambda exc: self._failure(exc, label, timeout), self._secret):
            options = self._options(body, timeout)
            with self._client.stream("POST", self.base_url + path, **options) as response:
                if response.status_code >= 400:
                    response.read()
                    self._check(response, label)
                yield from response.iter_lines()

    async def astream_lines(
        self, path: str, body: Any, timeout: float | None, label: str
    ) -> AsyncGenerator[str, None]:
        with translated_errors(lambda exc: self._failure(exc, label, timeout), self._secret):
            options = self._options(body, timeout)
            client = await self._async.get()
            async with client.stream("POST", self.base_url + path, **options) as response:
                if response.status_code >= 400:
                    await response.aread()
                    self._check(response, label)
                async for line in response.aiter_lines():
                    yield line


class HTTPProvider(VendorProvider):
    """A provider over :class:`HTTPTransport` (Gemini, Ollama): the IO hooks, written once.

    A subclass sets ``_http`` and names its endpoint in :meth:`_path`; with
    ``_sse = True`` a stream's events are server-sent events, otherwise its lines.
    """

    _http: HTTPTransport
    _sse = False

    def _path(self, request: LLMRequest, stream: bool) -> str:
        raise NotImplementedError

    def _send(self, body: Any, request: LLMRequest) -> Any:
        label = f"{self.label} completion"
        return self._http.post(self._path(request, False), body, request.timeout, label)

    async def _asend(self, body: Any, request: LLMRequest) -> Any:
        label = f"{self.label} completion"
        return await self._http.apost(self._path(request, False), body, request.timeout, label)

    @contextmanager
    def _open_stream(self, body: Any, request: LLMRequest) -> Iterator[Iterator[str]]:
        label = f"{self.label} stream"
        lines = self._http.stream_lines(self._path(request, True), body, request.timeout, label)
        with closing(lines):
            yield iter_sse_data(lines) if self._sse else lines

    @asynccontextmanager
    async def _aopen_stream(
        self, body: Any, request: LLMRequest
    ) -> AsyncIterator[AsyncIterator[str]]:
        label = f"{self.label} stream"
        lines = self._http.astream_lines(self._path(request, True), body, request.timeout, label)
        async with aclosing(lines):
            if not self._sse:
                yield lines
                return
            async with aclosing(aiter_sse_data(lines)) as events:
                yield events


class JSONStreamState:
    """A stream of JSON events (SSE data or NDJSON lines) read into text, tool calls and usage.

    :meth:`feed` decodes each event and hands it to :meth:`read`, which a vendor
    implements: it returns the event's text, extends ``calls``, sets ``usage``
    and sets ``done`` on the vendor's end-of-reply marker. :meth:`finish` then
    releases the calls and usage, or fails if the stream stopped before the end.
    """

    __slots__ = ("calls", "done", "label", "provider", "request", "texts", "usage")

    def __init__(self, provider: HTTPProvider, request: LLMRequest) -> None:
        self.provider = provider
        self.request = request
        self.label = f"{provider.label} stream"
        self.calls: list[ToolCall] = []
        self.texts: list[str] = []
        self.usage: UsageStats | None = None
        self.done = False

    def feed(self, raw: str) -> str:
        if not raw.strip():
            return ""
        try:
            data = json.loads(raw)
        except ValueError as exc:
            raise malformed_error(self.label, self.provider.name, str(exc)[:200]) from None
        text = self.read(data)
        if text:
            self.texts.append(text)
        return text

    def read(self, data: Any) -> str:
        raise NotImplementedError

    def finish(self) -> list[StreamItem]:
        provider = self.provider
        if not self.done:
            raise truncated_error(self.label, provider.name)
        return finished_items(provider.name, self.request, self.calls, self.texts, self.usage)
