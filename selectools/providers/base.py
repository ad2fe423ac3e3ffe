"""The provider protocol every LLM adapter satisfies, and helpers shared by adapters.

``complete`` returns ``(Message, UsageStats)``; the message carries native
``tool_calls`` when the model asked for tools. ``stream``/``astream`` yield text
deltas (``str``) and finished :class:`~selectools.types.ToolCall` objects; a
provider that knows the call's token usage may yield one
:class:`~selectools.usage.UsageStats` as the last item. ``acomplete`` and
``astream`` are optional: the agent falls back to the sync methods in a worker
thread. ``supports_native_tools`` (default ``False``) tells the agent whether to
pass tool schemas through ``tools=`` instead of describing them in the prompt.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..exceptions import ProviderError
from ..types import Message, ToolCall, text_content
from ..usage import UsageStats

if TYPE_CHECKING:
    from ..tools import Tool

__all__ = [
    "Provider",
    "ProviderError",
    "StreamItem",
    "estimate_tokens",
    "estimate_usage",
]

StreamItem = str | ToolCall | UsageStats


@runtime_checkable
class Provider(Protocol):
    """What the agent needs from an LLM adapter."""

    name: str
    supports_streaming: bool
    supports_async: bool

    def complete(
        self,
        *,
        model: str,
        system_prompt: str,
        messages: list[Message],
        tools: Sequence[Tool] | None = None,
        temperature: float = 0.0,
        max_tokens: int = 1000,
        timeout: float | None = None,
    ) -> tuple[Message, UsageStats]: ...

    def stream(
        self,
        *,
        model: str,
        system_prompt: str,
        messages: list[Message],
        tools: Sequence[Tool] | None = None,
        temperature: float = 0.0,
        max_tokens: int = 1000,
        timeout: float | None = None,
    ) -> Iterator[StreamItem]: ...


class AsyncProvider(Protocol):
    """The optional async half of the protocol."""

    async def acomplete(self, **kwargs: Any) -> tuple[Message, UsageStats]: ...

    def astream(self, **kwargs: Any) -> AsyncIterator[StreamItem]: ...


def estimate_tokens(text: str) -> int:
    """A rough token count (about four characters a token) for providers that report none."""
    return (len(text) + 3) // 4 if text else 0


def estimate_usage(
    model: str,
    provider: str,
    system_prompt: str,
    messages: Sequence[Message],
    completion: str,
) -> UsageStats:
    """Usage estimated from text lengths, priced with the model registry."""
    prompt_tokens = estimate_tokens(system_prompt) + sum(
        estimate_tokens(text_content(m)) + 4 for m in messages
    )
    completion_tokens = estimate_tokens(completion)
    from ..pricing import calculate_cost

    return UsageStats(
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        total_tokens=prompt_tokens + completion_tokens,
        cost_usd=calculate_cost(model, prompt_tokens, completion_tokens),
        model=model,
        provider=provider,
    )
