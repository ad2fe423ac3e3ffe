"""The provider protocol implemented once: keyword methods outside, small vendor hooks inside.

:class:`RequestProvider` turns the documented keyword calls (``complete``,
``acomplete``, ``stream``, ``astream``) into one :class:`~.base.LLMRequest` and
hands it to ``_complete``/``_acomplete``/``_stream``/``_astream``. The agent's
adapter (:mod:`._adapt`) calls those directly, so a selectools provider never
pays for building and spreading keyword arguments on the hot path.

:class:`VendorProvider` implements the four request methods over the hooks a
network vendor differs in:

* ``_prepare(request, stream)`` builds the request body (pure);
* ``_send(body, request)`` / ``_asend`` perform a whole call;
* ``_parse(response, request)`` reads the reply into ``(Message, UsageStats)``;
* ``_open_stream(body, request)`` / ``_aopen_stream`` are context managers that
  open a stream, yield its events, close it however the caller leaves, and map
  the vendor's errors to :class:`~selectools.exceptions.ProviderError`;
* ``_stream_state(request)`` returns an object with ``feed(event) -> str`` (the
  text delta, possibly ``""``) and ``finish() -> list[StreamItem]``.

Streams yield text as it arrives and the finished tool calls and usage only
from ``finish()``, after a clean end: a connection that drops mid-call never
yields a half-built :class:`~selectools.types.ToolCall`.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from .base import LLMRequest, StreamItem, estimate_usage

if TYPE_CHECKING:
    from ..tools import ToolLike
    from ..types import Message, ToolCall
    from ..usage import UsageStats

__all__ = ["RequestProvider", "StreamState", "VendorProvider", "finished_items"]

#: a request past its deadline still gets this long (seconds), so it fails as a timeout
_LEAST_TIMEOUT = 0.01


class StreamState(Protocol):
    """Assembles one stream's events into text deltas, then tool calls and usage."""

    def feed(self, event: Any) -> str: ...

    def finish(self) -> list[StreamItem]: ...


class RequestProvider:
    """The documented keyword protocol over four methods that take one :class:`LLMRequest`."""

    name: str = ""
    default_model: str | None = ""
    supports_streaming = True
    supports_async = True
    supports_native_tools = False
    stream_tool_calls = True  # our sync streams carry ToolCalls (see _adapt)
    # the public methods a subclass overrides; the adapter's fast path is taken only
    # when there are none, so a user's override of ``complete`` is always called
    _keyword_overrides: frozenset[str] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._keyword_overrides = frozenset(
            name for name in _KEYWORD_METHODS if getattr(cls, name) is not _SHELL[name]
        )

    def _as_request(
        self,
        model: str,
        system_prompt: str,
        messages: list[Message],
        tools: Sequence[ToolLike] | None,
        temperature: float,
        max_tokens: int,
        timeout: float | None,
    ) -> LLMRequest:
        return LLMRequest(
            model or self.default_model or "",
            system_prompt,
            messages,
            list(tools) if tools else None,
            temperature,
            max_tokens,
            timeout,
        )

    def complete(
        self,
        *,
        model: str = "",
        system_prompt: str = "",
        messages: list[Message],
        tools: Sequence[ToolLike] | None = None,
        temperature: float = 0.0,
        max_tokens: int = 1000,
        timeout: float | None = None,
    ) -> tuple[Message, UsageStats]:
        return self._complete(
            self._as_request(
                model, system_prompt, messages, tools, temperature, max_tokens, timeout
            )
        )

    async def acomplete(
        self,
        *,
        model: str = "",
        system_prompt: str = "",
        messages: list[Message],
        tools: Sequence[ToolLike] | None = None,
        temperature: float = 0.0,
        max_tokens: int = 1000,
        timeout: float | None = None,
    ) -> tuple[Message, UsageStats]:
        return await self._acomplete(
            self._as_request(
                model, system_prompt, messages, tools, temperature, max_tokens, timeout
            )
        )

    def stream(
        self,
        *,
        model: str = "",
        system_prompt: str = "",
        messages: list[Message],
        tools: Sequence[ToolLike] | None = None,
        temperature: float = 0.0,
        max_tokens: int = 1000,
        timeout: float | None = None,
    ) -> Iterator[StreamItem]:
        """Yield text deltas, then the finished tool calls, then the call's usage."""
        return self._stream(
            self._as_request(
                model, system_prompt, messages, tools, temperature, max_tokens, timeout
            )
        )

    def astream(
        self,
        *,
        model: str = "",
        system_prompt: str = "",
        messages: list[Message],
        tools: Sequence[ToolLike] | None = None,
        temperature: float = 0.0,
        max_tokens: int = 1000,
        timeout: float | None = None,
    ) -> AsyncIterator[StreamItem]:
        """Async :meth:`stream`."""
        return self._astream(
            self._as_request(
                model, system_prompt, messages, tools, temperature, max_tokens, timeout
            )
        )

    # -- what a subclass implements --------------------------------------------------
    def _complete(self, request: LLMRequest) -> tuple[Message, UsageStats]:
        raise NotImplementedError

    async def _acomplete(self, request: LLMRequest) -> tuple[Message, UsageStats]:
        raise NotImplementedError

    def _stream(self, request: LLMRequest) -> Iterator[StreamItem]:
        raise NotImplementedError

    def _astream(self, request: LLMRequest) -> AsyncIterator[StreamItem]:
        raise NotImplementedError


_KEYWORD_METHODS = ("complete", "acomplete", "stream", "astream")
_SHELL = {name: getattr(RequestProvider, name) for name in _KEYWORD_METHODS}


class VendorProvider(RequestProvider):
    """A network provider: the request methods over the vendor hooks (module docstring)."""

    label: str = ""
    supports_native_tools = True
    #: the ``timeout=`` the provider was built with (seconds per request), if any
    timeout: float | None = None

    def _model_request(self, request: LLMRequest) -> LLMRequest:
        """The request with the default model filled in and its timeout resolved.

        A timeout passed to this call wins, then the provider's own ``timeout``,
        then the agent-wide default; the result is cut to the run's deadline.
        """
        timeout = request.timeout
        if self.timeout is not None and (timeout is None or request.timeout_is_default):
            timeout = self.timeout
        if request.deadline is not None:
            left = max(request.deadline - time.monotonic(), _LEAST_TIMEOUT)
            timeout = left if timeout is None else min(timeout, left)
        if request.model and timeout == request.timeout:
            return request
        return replace(request, model=request.model or self.default_model or "", timeout=timeout)

    def _complete(self, request: LLMRequest) -> tuple[Message, UsageStats]:
        request = self._model_request(request)
        return self._parse(self._send(self._prepare(request, False), request), request)

    async def _acomplete(self, request: LLMRequest) -> tuple[Message, UsageStats]:
        request = self._model_request(request)
        return self._parse(await self._asend(self._prepare(request, False), request), request)

    def _stream(self, request: LLMRequest) -> Iterator[StreamItem]:
        request = self._model_request(request)
        body = self._prepare(request, True)
        state = self._stream_state(request)
        with self._open_stream(body, request) as events:
            for event in events:
                text = state.feed(event)
                if text:
                    yield text
        yield from state.finish()

    async def _astream(self, request: LLMRequest) -> AsyncIterator[StreamItem]:
        request = self._model_request(request)
        body = self._prepare(request, True)
        state = self._stream_state(request)
        async with self._aopen_stream(body, request) as events:
            async for event in events:
                text = state.feed(event)
                if text:
                    yield text
        for item in state.finish():
            yield item

    # -- vendor hooks ------------------------------------------------------------------
    def _prepare(self, request: LLMRequest, stream: bool) -> Any:
        raise NotImplementedError

    def _send(self, body: Any, request: LLMRequest) -> Any:
        raise NotImplementedError

    async def _asend(self, body: Any, request: LLMRequest) -> Any:
        raise NotImplementedError

    def _parse(self, response: Any, request: LLMRequest) -> tuple[Message, UsageStats]:
        raise NotImplementedError

    def _open_stream(self, body: Any, request: LLMRequest) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _aopen_stream(self, body: Any, request: LLMRequest) -> AbstractAsyncContextManager[Any]:
        raise NotImplementedError

    def _stream_state(self, request: LLMRequest) -> StreamState:
        raise NotImplementedError


def finished_items(
    provider: str,
    request: LLMRequest,
    calls: list[ToolCall],
    texts: list[str],
    usage: UsageStats | None,
) -> list[StreamItem]:
    """A finished stream's tail: its tool calls, then its usage (estimated when unreported)."""
    items: list[StreamItem] = list(calls)
    items.append(
        usage
        or estimate_usage(
            request.model, provider, request.system_prompt, request.messages, "".join(texts)
        )
    )
    return items
