"""Loading SDKs on demand, one async client per event loop, one TLS context per process.

SDKs are imported when a provider is built, never on ``import selectools``;
a missing one raises an ``ImportError`` that names the extra to install.

Async HTTP clients pool connections that belong to the event loop that opened
them. A notebook runs ``await agent.arun()`` on the kernel's loop while
``agent.run()`` may use a private loop in a worker thread, and tests call
``asyncio.run`` many times, so an async client is made per running loop
(:class:`PerLoop`) instead of once per provider. A client selectools made is
closed on its own loop when that loop shuts down (``asyncio.run`` finalizes the
loop's async generators, and a small sentinel generator per client closes it in
its ``finally``), so its sockets are not left for the garbage collector.

Building a TLS context costs about 30 ms, far more than the rest of a client,
so every client selectools builds shares one context per HTTP library
(:func:`shared_ssl_context`); it reads ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``
once, when first needed.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import threading
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from types import ModuleType
from typing import Any, Generic, TypeVar

from .._install import install_hint
from ._base import VendorProvider
from ._errors import map_sdk_error, translated_errors
from ._secret import Secret
from .base import LLMRequest

__all__ = [
    "PerLoop",
    "SDKProvider",
    "close_async_client",
    "close_with",
    "reply_transport",
    "require",
    "sdk_http_client",
    "shared_ssl_context",
]

T = TypeVar("T")

_HTTP_LIBRARIES = ("httpx2", "httpx")
_ssl_contexts: dict[str, Any] = {}
_ssl_lock = threading.Lock()


def require(module: str, extra: str, provider: str) -> ModuleType:
    """Import ``module`` or explain how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"{provider} needs the '{module.split('.')[0]}' package, which is not installed. "
            f"Install it with: {install_hint(extra)}"
        ) from exc


def shared_ssl_context(http: ModuleType) -> Any:
    """The process-wide TLS context for ``http`` (the ``httpx`` or ``httpx2`` module)."""
    with _ssl_lock:
        context = _ssl_contexts.get(http.__name__)
        if context is None:
            context = http.create_ssl_context()
            _ssl_contexts[http.__name__] = context
        return context


def sdk_http_client(sdk: ModuleType, *, asynchronous: bool) -> Any:
    """The SDK's default HTTP client over :func:`reply_transport` (``None``: let the SDK).

    Built with the shared TLS context.
    """
    factory = getattr(
        sdk, "DefaultAsyncHttpxClient" if asynchronous else "DefaultHttpxClient", None
    )
    if not isinstance(factory, type):
        return None
    library = next(
        (
            root
            for cls in factory.__mro__
            if (root := cls.__module__.split(".")[0]) in _HTTP_LIBRARIES
        ),
        None,
    )
    if library is None:
        return None
    http = importlib.import_module(library)
    transport = reply_transport(http, shared_ssl_context(http), asynchronous=asynchronous)
    return factory(transport=transport)


def reply_transport(http: ModuleType, context: Any, *, asynchronous: bool) -> Any:
    """An ``http`` (httpx or httpx2) transport whose request timeout is a total deadline.

    It covers a reply's connection and headers (and a body that is not an event
    stream); see :mod:`selectools._net_deadline`: a server that sends its
    headers a byte at a time never trips a per-read timeout.
    """
    from .._net_deadline import reply_transport as build

    return build(http, context, asynchronous=asynchronous)


def close_with(owner: object, client: Any) -> None:
    """Close a sync client selectools made when ``owner`` is garbage-collected (or at exit)."""
    weakref.finalize(owner, client.close)


async def close_async_client(client: Any) -> None:
    """Close an ``httpx.AsyncClient`` (``aclose``) or an async SDK client (``close``)."""
    closer = getattr(client, "aclose", None) or client.close
    await closer()


class PerLoop(Generic[T]):
    """A value built lazily for each running event loop (or one fixed value if given).

    ``close`` (an async function) releases a value built here when its loop shuts
    down; a fixed value belongs to the caller and is never closed.
    """

    def __init__(
        self,
        factory: Callable[[], T],
        fixed: T | None = None,
        close: Callable[[T], Awaitable[object]] | None = None,
    ) -> None:
        self._factory = factory
        self._fixed = fixed
        self._close = close
        self._by_loop: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, tuple[T, AsyncIterator[None] | None]
        ] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    async def get(self) -> T:
        if self._fixed is not None:
            return self._fixed
        loop = asyncio.get_running_loop()
        with self._lock:
            entry = self._by_loop.get(loop)
            if entry is not None:
                return entry[0]
            value = self._factory()
            sentinel = _closer(value, self._close) if self._close is not None else None
            self._by_loop[loop] = (value, sentinel)
        if sentinel is not None:
            await sentinel.__anext__()  # now the loop finalizes it at shutdown
        return value


async def _closer(value: T, close: Callable[[T], Awaitable[object]]) -> AsyncIterator[None]:
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            await close(value)


class SDKProvider(VendorProvider):
    """A provider over an official SDK (openai, anthropic): the IO hooks, written once.

    A subclass sets ``_sdk`` (via :func:`require`), ``_secret`` and its clients
    with :meth:`_bind_clients`, and names the one SDK call in :meth:`_create`.
    The SDK's own retries are off (the agent retries); its exceptions become
    :class:`~selectools.exceptions.ProviderError` through ``map_sdk_error``.
    """

    _spec: str  # its row in the provider table (_specs.py)
    _sdk: ModuleType
    _secret: Secret
    base_url: str | None
    _client: Any
    _async_clients: PerLoop[Any]

    def _connect(
        self,
        api_key: str | None,
        base_url: str | None,
        timeout: float | None,
        options: dict[str, Any],
        classes: tuple[str, str],
        injected: tuple[Any, Any, Any, Any],
    ) -> None:
        """Resolve key and base URL (``<VENDOR>_BASE_URL``), then build the SDK clients.

        The key comes from ``api_key`` or the variables in the provider table;
        ``classes`` names the SDK's sync and async client classes; ``injected``
        is ``(client, async_client, http_client, async_http_client)``.
        """
        from .._env import env_value
        from ..exceptions import ProviderConfigurationError
        from ._specs import SPECS

        key_env = SPECS[self._spec].key_env
        key = api_key or env_value(*key_env)
        if not key and injected[0] is None:
            raise ProviderConfigurationError(
                self.label,
                "API key",
                key_env[0],
                hint=f"Or add {key_env[0]}=... to a .env file in the working directory.",
            )
        self._secret = Secret(key or "")
        self.base_url = base_url or env_value(f"{self._spec.upper()}_BASE_URL")
        self.timeout = timeout
        options = {"api_key": key or "unused", "max_retries": 0, **options}
        if self.base_url:
            options["base_url"] = self.base_url
        if timeout is not None:
            options["timeout"] = timeout
        sync_class, async_class = (getattr(self._sdk, name) for name in classes)
        self._bind_clients(
            lambda http: sync_class(**options, http_client=http),
            lambda http: async_class(**options, http_client=http),
            *injected,
        )

    def _bind_clients(
        self,
        make_sync: Callable[[Any], Any],
        make_async: Callable[[Any], Any],
        client: Any,
        async_client: Any,
        http_client: Any,
        async_http_client: Any,
    ) -> None:
        """Build (or adopt injected) sync and per-loop async SDK clients."""
        sdk = self._sdk
        if client is None:
            client = make_sync(http_client or sdk_http_client(sdk, asynchronous=False))
            if http_client is None:
                close_with(self, client)
        self._client = client
        self._async_clients = PerLoop(
            lambda: make_async(async_http_client or sdk_http_client(sdk, asynchronous=True)),
            fixed=async_client,
            close=close_async_client if async_http_client is None else None,
        )

    def _create(self, client: Any, body: dict[str, Any]) -> Any:
        """The SDK call (``client.chat.completions.create(**body)`` and the like)."""
        raise NotImplementedError

    def _errors(self, request: LLMRequest, stream: bool) -> contextlib.AbstractContextManager[None]:
        label = f"{self.label} {'stream' if stream else 'completion'}"
        return translated_errors(
            lambda exc: map_sdk_error(
                exc,
                self._sdk,
                label=label,
                provider=self.name,
                timeout=request.timeout,
                secret=self._secret,
            ),
            self._secret,
        )

    def _send(self, body: Any, request: LLMRequest) -> Any:
        with self._errors(request, False):
            return self._create(self._client, body)

    async def _asend(self, body: Any, request: LLMRequest) -> Any:
        with self._errors(request, False):
            return await self._create(await self._async_clients.get(), body)

    @contextlib.contextmanager
    def _open_stream(self, body: Any, request: LLMRequest) -> Iterator[Any]:
        with self._errors(request, True):
            response = self._create(self._client, body)
            try:
                yield response
            finally:
                response.close()

    @contextlib.asynccontextmanager
    async def _aopen_stream(self, body: Any, request: LLMRequest) -> AsyncIterator[Any]:
        with self._errors(request, True):
            response = await self._create(await self._async_clients.get(), body)
            try:
                yield response
            finally:
                await response.close()
