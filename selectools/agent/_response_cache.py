"""The loop's use of ``AgentConfig(cache=...)``: look up before a model call, store after.

In-process caches (``in_process = True``, like :class:`~selectools.cache.InMemoryCache`)
are called directly; any other backend (Redis…) goes through a
:class:`CallBlocking` effect so async runs never block their event loop. A cache
that fails is reported (an ``error`` step and ``on_error``) and treated as a miss:
caching never breaks a run. Entries are copied in and out, so a cached message
is never shared with, or changed by, a run.
"""

from __future__ import annotations

import copy
from collections.abc import Generator
from functools import partial
from typing import TYPE_CHECKING, Any

from ..trace import StepType, now
from ..types import Message, ReplyText
from ..usage import UsageStats
from ._effects import CallBlocking, LLMRequest

if TYPE_CHECKING:
    from ._context import RunContext

__all__ = ["cache_lookup", "cache_store"]


def _call(cache: Any, method: str, *args: Any) -> Generator[Any, Any, Any]:
    fn = getattr(cache, method)
    if getattr(cache, "in_process", False):
        return fn(*args)
    return (yield CallBlocking(partial(fn, *args)))


def _failed(ctx: RunContext, action: str, exc: Exception) -> None:
    ctx.fail(f"cache_{action}", exc, f"cache {action} failed: {type(exc).__name__}: {exc}")


def cache_lookup(
    ctx: RunContext, cache: Any, request: LLMRequest
) -> Generator[Any, Any, tuple[str, Message | None]]:
    """The request's key and, on a hit, the cached message (usage counted, events sent)."""
    from ..cache._keys import CacheKeyBuilder  # loaded once a cache is configured and asked

    key = CacheKeyBuilder.build(
        request.model, request.system_prompt, request.messages, request.tools, request.temperature
    )
    started = now()
    try:
        entry = yield from _call(cache, "get", key)
    except Exception as exc:
        _failed(ctx, "get", exc)
        return key, None
    if entry is None:
        return key, None
    if getattr(cache, "in_process", False):
        entry = copy.deepcopy(entry)
    message, usage = entry
    if not isinstance(message, Message) or not isinstance(usage, UsageStats):
        _failed(ctx, "get", TypeError(f"cache entry is not (Message, UsageStats): {entry!r:.80}"))
        return key, None
    ctx.add_usage(usage)
    ctx.last_usage = usage
    ctx.provider_used = usage.provider or ctx.provider_name
    model = usage.model or ctx.model
    ctx.record(
        StepType.CACHE_HIT,
        started,
        f"{model}: cache hit ({usage.total_tokens} tokens replayed)",
        {"response": ReplyText(message), "usage": usage, "cached": True},
        model=model,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        cost_usd=usage.cost_usd,
    )
    return key, message


def cache_store(
    ctx: RunContext, cache: Any, key: str, message: Message, usage: UsageStats
) -> Generator[Any, Any, None]:
    value = (
        (copy.deepcopy(message), copy.deepcopy(usage))
        if getattr(cache, "in_process", False)
        else (message, usage)
    )
    try:
        yield from _call(cache, "set", key, value)
    except Exception as exc:
        _failed(ctx, "set", exc)
