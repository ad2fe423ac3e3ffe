"""Call any provider, whatever part of the protocol it implements.

The agent drivers and :class:`~selectools.providers.FallbackProvider` both call
providers through these four functions, so the rules live here once:

* **complete** uses ``complete``; a provider with only ``acomplete`` runs it on
  a private loop in a worker thread (never the caller's loop).
* **acomplete** uses ``acomplete``; a provider with only ``complete`` runs it in
  a worker thread.
* **Streaming.** A provider streams with a method when it has that method and
  does not set ``supports_streaming = False``: the flag defaults to ``True``
  whenever ``stream``/``astream`` exists. A provider that cannot stream is
  asked for its whole reply, which is handed out as stream items (text, tool
  calls, usage).
* **Tool calls are never lost.** The PROVIDERS page documents ``stream()`` as
  yielding text only (``astream()`` yields text and :class:`ToolCall`), so when
  tools are in play a sync stream is trusted only if the class says it carries
  tool calls (``stream_tool_calls = True``; every selectools provider and
  :class:`~selectools.testing.ScriptedProvider` do). Otherwise the sync stream
  is served by ``astream`` (bridged on a worker-thread loop) or, failing that,
  by ``complete``; without tools a text-only ``stream()`` is used as it is.
* **Fast path.** Providers built on :class:`._base.RequestProvider` get the
  :class:`LLMRequest` itself, without keyword arguments being built and spread
  (unless a subclass overrides a public method: then that method is called).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, TypeGuard

from .._async_bridge import iterate_sync, run_sync
from ..types import text_content
from ._base import RequestProvider
from .base import LLMRequest, StreamItem

if TYPE_CHECKING:
    from ..types import Message
    from ..usage import UsageStats

__all__ = ["acomplete", "as_items", "astream", "complete", "is_provider", "stream"]


def is_provider(obj: Any) -> bool:
    """Whether ``obj`` can answer a request (it has ``complete`` or ``acomplete``)."""
    return not isinstance(obj, type) and (
        callable(getattr(obj, "complete", None)) or callable(getattr(obj, "acomplete", None))
    )


def _fast(provider: Any) -> TypeGuard[RequestProvider]:
    return isinstance(provider, RequestProvider) and not provider._keyword_overrides


# A user's provider is duck-typed (any object with complete/acomplete): its replies are
# taken to be what the Provider protocol declares, hence the annotated locals below.
def complete(provider: Any, request: LLMRequest) -> tuple[Message, UsageStats]:
    if _fast(provider):
        return provider._complete(request)
    method = getattr(provider, "complete", None)
    reply: tuple[Message, UsageStats]
    if method is not None:
        reply = request.call(method)
    else:
        reply = run_sync(request.call(provider.acomplete))
    return reply


async def acomplete(provider: Any, request: LLMRequest) -> tuple[Message, UsageStats]:
    if _fast(provider):
        return await provider._acomplete(request)
    method = getattr(provider, "acomplete", None)
    if method is not None:
        reply: tuple[Message, UsageStats] = await method(**request.kwargs())
        return reply
    import asyncio

    return await asyncio.to_thread(provider.complete, **request.kwargs())


def _streams(provider: Any, method: str) -> bool:
    return hasattr(provider, method) and getattr(provider, "supports_streaming", True) is not False


def _sync_stream_fits(provider: Any, request: LLMRequest) -> bool:
    """Whether ``provider.stream`` can serve ``request`` without losing tool calls."""
    return _streams(provider, "stream") and (
        not request.tools or bool(getattr(provider, "stream_tool_calls", False))
    )


def stream(provider: Any, request: LLMRequest) -> Iterator[StreamItem]:
    """The provider's reply to ``request`` as stream items, from sync code."""
    if _fast(provider):
        return provider._stream(request)
    if _sync_stream_fits(provider, request):
        return iter(provider.stream(**request.kwargs()))
    if _streams(provider, "astream"):
        return iterate_sync(lambda: provider.astream(**request.kwargs()))
    return _whole_reply(provider, request)


def _whole_reply(provider: Any, request: LLMRequest) -> Iterator[StreamItem]:
    yield from as_items(*complete(provider, request))


def astream(provider: Any, request: LLMRequest) -> AsyncIterator[StreamItem]:
    """The provider's reply to ``request`` as stream items, from async code."""
    if _fast(provider):
        return provider._astream(request)
    return _astream_any(provider, request)


async def _astream_any(provider: Any, request: LLMRequest) -> AsyncIterator[StreamItem]:
    if _streams(provider, "astream"):
        async for item in provider.astream(**request.kwargs()):
            yield item
        return
    if _sync_stream_fits(provider, request):
        import asyncio

        items = iter(provider.stream(**request.kwargs()))
        done = object()
        while True:
            item = await asyncio.to_thread(next, items, done)
            if item is done:
                return
            yield item
    for item in as_items(*await acomplete(provider, request)):
        yield item


def as_items(message: Message, usage: UsageStats | None) -> Iterator[StreamItem]:
    """A whole reply as stream items: its text, its tool calls, its usage."""
    text = text_content(message)
    if text:
        yield text
    yield from message.tool_calls or ()
    if usage is not None:
        yield usage
