"""``FallbackProvider``: try providers in priority order, with a circuit breaker per provider.

A provider that fails with a timeout, a connection error, HTTP 429 or a 5xx (a
*retryable* :class:`ProviderError`) is skipped and the next one tried; any
other error (a bad request, a wrong key) is raised at once, since the next
provider would not fix it. After ``max_failures`` consecutive failures a
provider's circuit opens and it is skipped for ``cooldown_seconds``; then one
request is let through, and a success closes the circuit again.

Streams fall through only while nothing has been yielded: once text has reached
the caller, a failure is raised (switching providers mid-answer would splice two
replies). Every usage report names the provider that actually answered, so
``AgentResult.provider_used`` is right. Model names belong to vendors: when the
agent leaves the model at its default, or names a model the registry assigns to
another vendor (``gpt-4o-mini`` for the Anthropic fallback), each provider uses
its own ``default_model``; any other model name is passed on unchanged.

Each switch calls ``on_fallback(name, error)`` and emits ``on_provider_fallback``
to the observers of the run in progress. When every provider is down the error
lists what happened to each.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .._current_run import emit_to_current_run
from ..exceptions import ProviderError
from ..types import Message, text_content
from ..usage import UsageStats
from .base import StreamItem, estimate_usage

__all__ = ["FallbackProvider"]

# provider name -> the vendor its models are registered under in selectools.models
_FAMILIES = {
    "openai": "openai",
    "azure_openai": "openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "ollama": "ollama",
}


@dataclass
class _Circuit:
    failures: int = 0
    opened_at: float | None = None


class FallbackProvider:
    """Providers tried in order; see the module docstring."""

    name = "fallback"

    def __init__(
        self,
        providers: Sequence[Any],
        max_failures: int = 3,
        cooldown_seconds: float = 60.0,
        on_fallback: Callable[[str, BaseException], Any] | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        providers = list(providers)
        if not providers:
            raise ValueError("FallbackProvider needs at least one provider")
        for provider in providers:
            if not (hasattr(provider, "complete") or hasattr(provider, "acomplete")):
                raise TypeError(
                    f"FallbackProvider: {provider!r} is not a provider (it has no complete() "
                    "or acomplete() method)"
                )
        if not isinstance(max_failures, int) or max_failures < 1:
            raise ValueError(f"max_failures must be an int >= 1, got {max_failures!r}")
        if cooldown_seconds < 0:
            raise ValueError(f"cooldown_seconds must be >= 0, got {cooldown_seconds!r}")
        self.providers = providers
        self.max_failures = max_failures
        self.cooldown_seconds = cooldown_seconds
        self.on_fallback = on_fallback
        self._clock = clock
        self._circuits = [_Circuit() for _ in providers]
        self._lock = threading.Lock()
        first = providers[0]
        self.default_model: str = str(getattr(first, "default_model", "") or "")
        self.supports_streaming = any(getattr(p, "supports_streaming", False) for p in providers)
        self.supports_async = any(getattr(p, "supports_async", False) for p in providers)
        self.supports_native_tools = any(
            getattr(p, "supports_native_tools", False) for p in providers
        )

    def __repr__(self) -> str:
        inner = ", ".join(repr(p) for p in self.providers)
        return f"FallbackProvider([{inner}], max_failures={self.max_failures})"

    # -- circuit breaker -------------------------------------------------------------
    def _name(self, index: int) -> str:
        return str(getattr(self.providers[index], "name", type(self.providers[index]).__name__))

    def circuit_open(self, index: int) -> bool:
        """Whether provider ``index`` is being skipped right now."""
        with self._lock:
            circuit = self._circuits[index]
            if circuit.opened_at is None:
                return False
            return self._clock() - circuit.opened_at < self.cooldown_seconds

    def _reopens_in(self, index: int) -> float:
        with self._lock:
            opened = self._circuits[index].opened_at
        return max(self.cooldown_seconds - (self._clock() - (opened or 0.0)), 0.0)

    def _succeeded(self, index: int) -> None:
        with self._lock:
            self._circuits[index] = _Circuit()

    def _failed(self, index: int) -> None:
        with self._lock:
            circuit = self._circuits[index]
            circuit.failures += 1
            if circuit.failures >= self.max_failures:
                circuit.opened_at = self._clock()

    # -- the attempt loop ------------------------------------------------------------
    def _kwargs(self, index: int, kwargs: dict[str, Any]) -> dict[str, Any]:
        """The call's arguments for provider ``index``: its own model unless ours fits it."""
        provider = self.providers[index]
        model = kwargs.get("model") or ""
        own = getattr(provider, "default_model", None)
        if own and (not model or model == self.default_model or _foreign(model, provider)):
            return {**kwargs, "model": own}
        return kwargs

    @staticmethod
    def _falls_through(error: BaseException) -> bool:
        if isinstance(error, ProviderError):
            return error.retryable
        return isinstance(error, (TimeoutError, ConnectionError))

    def _switch(self, index: int, error: BaseException, order: list[int]) -> None:
        position = order.index(index)
        if position + 1 >= len(order):
            return
        failed, following = self._name(index), self._name(order[position + 1])
        if self.on_fallback is not None:
            self.on_fallback(failed, error)
        emit_to_current_run("on_provider_fallback", failed, following, error)

    def _order(self) -> list[int]:
        return [i for i in range(len(self.providers)) if not self.circuit_open(i)]

    def _all_down(self, failures: list[tuple[int, BaseException]]) -> ProviderError:
        lines = []
        attempted = {index for index, _ in failures}
        for index, error in failures:
            lines.append(f"{self._name(index)}: {error}")
        for index in range(len(self.providers)):
            if index not in attempted:
                lines.append(
                    f"{self._name(index)}: skipped, circuit open "
                    f"(retried in {self._reopens_in(index):.0f}s)"
                )
        last = failures[-1][1] if failures else None
        retry_after = (
            None if failures else min(self._reopens_in(i) for i in range(len(self.providers)))
        )
        return ProviderError(
            f"All {len(self.providers)} providers failed:\n  " + "\n  ".join(lines),
            provider=self.name,
            status_code=getattr(last, "status_code", None),
            retry_after=getattr(last, "retry_after", None) if last is not None else retry_after,
            retryable=self._falls_through(last) if last is not None else True,
        )

    def _answered(self, index: int, usage: UsageStats | None, fallback: UsageStats) -> UsageStats:
        usage = usage or fallback
        if not usage.provider:
            usage.provider = self._name(index)
        return usage

    # -- the protocol ------------------------------------------------------------------
    def complete(self, **kwargs: Any) -> tuple[Message, UsageStats]:
        failures: list[tuple[int, BaseException]] = []
        order = self._order()
        for index in order:
            provider = self.providers[index]
            call = self._kwargs(index, kwargs)
            try:
                if hasattr(provider, "complete"):
                    message, usage = provider.complete(**call)
                else:
                    message, usage = _run_coroutine(provider.acomplete(**call))
            except Exception as error:
                if not self._falls_through(error):
                    raise
                self._failed(index)
                failures.append((index, error))
                self._switch(index, error, order)
                continue
            self._succeeded(index)
            return message, self._answered(index, usage, self._estimate(index, call, message))
        raise self._all_down(failures)

    async def acomplete(self, **kwargs: Any) -> tuple[Message, UsageStats]:
        failures: list[tuple[int, BaseException]] = []
        order = self._order()
        for index in order:
            provider = self.providers[index]
            call = self._kwargs(index, kwargs)
            try:
                if hasattr(provider, "acomplete"):
                    message, usage = await provider.acomplete(**call)
                else:
                    message, usage = await asyncio.to_thread(provider.complete, **call)
            except Exception as error:
                if not self._falls_through(error):
                    raise
                self._failed(index)
                failures.append((index, error))
                self._switch(index, error, order)
                continue
            self._succeeded(index)
            return message, self._answered(index, usage, self._estimate(index, call, message))
        raise self._all_down(failures)

    def stream(self, **kwargs: Any) -> Iterator[StreamItem]:
        failures: list[tuple[int, BaseException]] = []
        order = self._order()
        for index in order:
            call = self._kwargs(index, kwargs)
            items = self._child_stream(index, call)
            texts: list[str] = []
            usage: UsageStats | None = None
            started = False
            try:
                for item in items:
                    if isinstance(item, UsageStats):
                        usage = item
                        continue
                    if isinstance(item, str):
                        texts.append(item)
                    started = True
                    yield item
            except Exception as error:
                if not self._stream_falls_through(index, error, started, failures, order):
                    raise
                continue
            self._succeeded(index)
            yield self._answered(index, usage, self._estimate(index, call, "".join(texts)))
            return
        raise self._all_down(failures)

    async def astream(self, **kwargs: Any) -> AsyncIterator[StreamItem]:
        failures: list[tuple[int, BaseException]] = []
        order = self._order()
        for index in order:
            call = self._kwargs(index, kwargs)
            texts: list[str] = []
            usage: UsageStats | None = None
            started = False
            try:
                async for item in self._child_astream(index, call):
                    if isinstance(item, UsageStats):
                        usage = item
                        continue
                    if isinstance(item, str):
                        texts.append(item)
                    started = True
                    yield item
            except Exception as error:
                if not self._stream_falls_through(index, error, started, failures, order):
                    raise
                continue
            self._succeeded(index)
            yield self._answered(index, usage, self._estimate(index, call, "".join(texts)))
            return
        raise self._all_down(failures)

    def _stream_falls_through(
        self,
        index: int,
        error: Exception,
        started: bool,
        failures: list[tuple[int, BaseException]],
        order: list[int],
    ) -> bool:
        """After a child's stream failed: record it, and whether to try the next provider.

        Only a fall-through error before the first item moves on; once output went
        out, switching providers would splice two answers, so the error is raised.
        """
        if self._falls_through(error):
            self._failed(index)
        else:
            return False
        if started:
            return False
        failures.append((index, error))
        self._switch(index, error, order)
        return True

    # -- adapting children -------------------------------------------------------------
    def _estimate(self, index: int, call: dict[str, Any], reply: Message | str) -> UsageStats:
        text = reply if isinstance(reply, str) else text_content(reply)
        return estimate_usage(
            call.get("model") or "",
            self._name(index),
            call.get("system_prompt", ""),
            call.get("messages", []),
            text,
        )

    def _child_stream(self, index: int, call: dict[str, Any]) -> Iterator[StreamItem]:
        provider = self.providers[index]
        if getattr(provider, "supports_streaming", False) and hasattr(provider, "stream"):
            yield from provider.stream(**call)
            return
        if hasattr(provider, "complete"):
            message, usage = provider.complete(**call)
        else:
            message, usage = _run_coroutine(provider.acomplete(**call))
        yield from _as_items(message, usage)

    async def _child_astream(self, index: int, call: dict[str, Any]) -> AsyncIterator[StreamItem]:
        provider = self.providers[index]
        if getattr(provider, "supports_streaming", False) and hasattr(provider, "astream"):
            async for item in provider.astream(**call):
                yield item
            return
        if hasattr(provider, "acomplete"):
            message, usage = await provider.acomplete(**call)
        elif getattr(provider, "supports_streaming", False) and hasattr(provider, "stream"):
            for item in await asyncio.to_thread(lambda: list(provider.stream(**call))):
                yield item
            return
        else:
            message, usage = await asyncio.to_thread(provider.complete, **call)
        for item in _as_items(message, usage):
            yield item


def _foreign(model: str, provider: Any) -> bool:
    """Whether the registry assigns ``model`` to a vendor other than ``provider``'s."""
    from ..models import MODELS_BY_ID

    info = MODELS_BY_ID.get(model)
    family = _FAMILIES.get(str(getattr(provider, "name", "")))
    return info is not None and family is not None and info.provider != family


def _as_items(message: Message, usage: UsageStats | None) -> Iterator[StreamItem]:
    """A complete reply as stream items: its text, its tool calls, its usage."""
    text = text_content(message)
    if text:
        yield text
    yield from message.tool_calls or ()
    if usage is not None:
        yield usage


def _run_coroutine(coroutine: Any) -> Any:
    from .._async_bridge import run_sync

    return run_sync(coroutine)
