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

import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .._current_run import emit_to_current_run
from ..exceptions import ProviderError
from ..types import Message, text_content
from ..usage import UsageStats
from . import _adapt
from ._base import RequestProvider
from ._specs import provider_spec
from .base import AnyProvider, LLMRequest, StreamItem, estimate_usage, provider_label

__all__ = ["FallbackProvider"]


@dataclass
class _Circuit:
    failures: int = 0
    opened_at: float | None = None


class FallbackProvider(RequestProvider):
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
            if not _adapt.is_provider(provider):
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
        self.supports_native_tools = any(
            getattr(p, "supports_native_tools", False) for p in providers
        )

    def __repr__(self) -> str:
        inner = ", ".join(repr(p) for p in self.providers)
        return f"FallbackProvider([{inner}], max_failures={self.max_failures})"

    # -- circuit breaker -------------------------------------------------------------
    def _name(self, index: int) -> str:
        return provider_label(self.providers[index])

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
    def _for(self, index: int, request: LLMRequest) -> LLMRequest:
        """The request for provider ``index``: its own model unless ours fits it."""
        provider = self.providers[index]
        model = request.model
        own = getattr(provider, "default_model", None)
        if own and (not model or model == self.default_model or _foreign(model, provider)):
            return replace(request, model=own)
        return request

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

    def _attempts(self, request: LLMRequest) -> Iterator[_Attempt]:
        """One attempt per provider whose circuit is closed; raises when all failed.

        The caller reports each attempt's outcome (``failed``/``answered``) and
        stops iterating once one answered.
        """
        failures: list[tuple[int, BaseException]] = []
        order = self._order()
        for index in order:
            yield _Attempt(self, index, self._for(index, request), failures, order)
        raise self._all_down(failures)

    # -- the protocol (keyword methods from RequestProvider) ----------------------------
    def _complete(self, request: LLMRequest) -> tuple[Message, UsageStats]:
        for attempt in self._attempts(request):
            try:
                reply = _adapt.complete(attempt.provider, attempt.request)
            except Exception as error:
                attempt.failed(error, started=False)
                continue
            return attempt.answered(*reply)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _acomplete(self, request: LLMRequest) -> tuple[Message, UsageStats]:
        for attempt in self._attempts(request):
            try:
                reply = await _adapt.acomplete(attempt.provider, attempt.request)
            except Exception as error:
                attempt.failed(error, started=False)
                continue
            return attempt.answered(*reply)
        raise AssertionError("unreachable")  # pragma: no cover

    def _stream(self, request: LLMRequest) -> Iterator[StreamItem]:
        for attempt in self._attempts(request):
            try:
                for item in _adapt.stream(attempt.provider, attempt.request):
                    if attempt.passes(item):
                        yield item
            except Exception as error:
                attempt.failed(error, started=attempt.started)
                continue
            yield attempt.streamed()
            return

    async def _astream(self, request: LLMRequest) -> AsyncIterator[StreamItem]:
        for attempt in self._attempts(request):
            try:
                async for item in _adapt.astream(attempt.provider, attempt.request):
                    if attempt.passes(item):
                        yield item
            except Exception as error:
                attempt.failed(error, started=attempt.started)
                continue
            yield attempt.streamed()
            return


class _Attempt:
    """One provider's try at a request: failure bookkeeping, usage attribution."""

    __slots__ = (
        "failures",
        "index",
        "order",
        "owner",
        "provider",
        "request",
        "started",
        "texts",
        "usage",
    )

    def __init__(
        self,
        owner: FallbackProvider,
        index: int,
        request: LLMRequest,
        failures: list[tuple[int, BaseException]],
        order: list[int],
    ) -> None:
        self.owner = owner
        self.index = index
        self.provider = owner.providers[index]
        self.request = request
        self.failures = failures
        self.order = order
        self.started = False
        self.texts: list[str] = []
        self.usage: UsageStats | None = None

    def failed(self, error: Exception, *, started: bool) -> None:
        """Record the failure; re-raise it unless the next provider should be tried.

        Only a fall-through error moves on, and for a stream only before its first
        item: once output went out, switching providers would splice two answers.
        """
        owner = self.owner
        if not owner._falls_through(error):
            raise error
        owner._failed(self.index)
        if started:
            raise error
        self.failures.append((self.index, error))
        owner._switch(self.index, error, self.order)

    def answered(self, message: Message, usage: UsageStats | None) -> tuple[Message, UsageStats]:
        self.owner._succeeded(self.index)
        return message, self._attributed(usage, text_content(message))

    def passes(self, item: StreamItem) -> bool:
        """Note a streamed item; usage is held back to be attributed at the end."""
        if isinstance(item, UsageStats):
            self.usage = item
            return False
        if isinstance(item, str):
            self.texts.append(item)
        self.started = True
        return True

    def streamed(self) -> UsageStats:
        self.owner._succeeded(self.index)
        return self._attributed(self.usage, "".join(self.texts))

    def _attributed(self, usage: UsageStats | None, text: str) -> UsageStats:
        request = self.request
        name = self.owner._name(self.index)
        usage = usage or estimate_usage(
            request.model, name, request.system_prompt, request.messages, text
        )
        if not usage.provider:
            usage.provider = name
        return usage


def _foreign(model: str, provider: AnyProvider) -> bool:
    """Whether the registry assigns ``model`` to a vendor other than ``provider``'s."""
    from ..models import MODELS_BY_ID

    info = MODELS_BY_ID.get(model)
    spec = provider_spec(provider_label(provider))
    family = spec.family if spec is not None else None
    return info is not None and family is not None and info.provider != family
