"""One model call beside the conversation: a summary, a coherence check, an entity or triple extraction.

Summarize-on-trim (``agent/_summarize.py``), the coherence check
(:mod:`selectools.coherence`, ``agent/_guard.py``) and memory extraction
(:mod:`selectools.memory.entity`, :mod:`selectools.memory.knowledge_graph`,
``agent/_memory_kinds.py``) each ask a model one question with their own
instructions, often a cheaper model than the run's. They share, from here:

- which model answers (:func:`side_model`);
- the request (:func:`side_request`, built by keyword);
- the call itself, blocking (:func:`ask`), async (:func:`aask`) or as an
  effect of an agent run (:func:`ask_in_run`: a non-streaming ``CallLLM``
  whose usage is counted in the run);
- the usage a trace step records (:func:`usage_fields`): a provider that
  reports no usage gets an empty :class:`~selectools.usage.UsageStats` for
  the side call's model, so the fields are always there.

What a failure means stays with each caller: a summary or an extraction
becomes an error step, a coherence check fails open.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .agent._context import RunContext
    from .providers.base import AnyProvider, LLMRequest
    from .types import Message
    from .usage import UsageStats

__all__ = ["aask", "ask", "ask_in_run", "side_model", "side_request", "usage_fields"]


def side_model(
    provider: AnyProvider | None,
    chosen: str | None,
    run_provider: AnyProvider | None = None,
    run_model: str = "",
) -> str:
    """The model of a side call.

    ``chosen`` when set; else the run's model when the call goes to the run's
    own provider; else the provider's ``default_model``; else the run's model
    (``""`` outside a run: the provider's default).
    """
    if chosen:
        return chosen
    if provider is run_provider:
        return run_model
    return str(getattr(provider, "default_model", None) or run_model)


def side_request(
    model: str,
    instructions: str,
    messages: list[Message],
    max_tokens: int,
    timeout: float | None = None,
) -> LLMRequest:
    """The request of a side call made outside an agent run (no tools, temperature 0)."""
    from .providers.base import LLMRequest

    return LLMRequest(
        model=model,
        system_prompt=instructions,
        messages=messages,
        max_tokens=max_tokens,
        timeout=timeout,
    )


def _usage_of(usage: UsageStats | None, model: str, provider: AnyProvider) -> UsageStats:
    if usage is not None:
        return usage
    from .providers.base import provider_label
    from .usage import UsageStats

    return UsageStats(model=model, provider=provider_label(provider))


def ask(provider: AnyProvider, request: LLMRequest) -> tuple[Message, UsageStats]:
    """Make the call, blocking; the usage is always a :class:`UsageStats`."""
    from .providers._adapt import complete

    message, usage = complete(provider, request)
    return message, _usage_of(usage, request.model, provider)


async def aask(provider: AnyProvider, request: LLMRequest) -> tuple[Message, UsageStats]:
    """:func:`ask` for async code."""
    from .providers._adapt import acomplete

    message, usage = await acomplete(provider, request)
    return message, _usage_of(usage, request.model, provider)


def ask_in_run(
    ctx: RunContext, provider: AnyProvider, request: LLMRequest
) -> Generator[Any, Any, tuple[Message, UsageStats]]:
    """Make the call as an effect of the run (so sync, async and streaming runs share it).

    The reported usage counts in the run's and the agent's totals; an error
    from the provider propagates to the caller, which decides what it means.
    """
    from .agent._effects import CallLLM

    message, usage = yield CallLLM(request, False, provider)
    if usage is not None:
        ctx.add_usage(usage)
    return message, _usage_of(usage, request.model, provider)


def usage_fields(usage: UsageStats | None, model: str) -> dict[str, Any]:
    """The trace-step fields of a side call: the answering model and its tokens and cost.

    ``usage`` is ``None`` when the call failed before answering: no tokens, no cost.
    """
    if usage is None:
        return {"model": model, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0}
    return {
        "model": usage.model or model,
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "cost_usd": usage.cost_usd,
    }
