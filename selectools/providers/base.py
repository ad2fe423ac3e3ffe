"""The provider protocol every LLM adapter satisfies, the request it receives, and shared helpers.

A provider is called with keyword arguments (``model``, ``system_prompt``,
``messages``, ``tools``, ``temperature``, ``max_tokens``, ``timeout``); the
agent holds them as one :class:`LLMRequest` and spreads it at the call.
``complete`` returns ``(Message, UsageStats)``; the message carries native
``tool_calls`` when the model asked for tools. ``stream``/``astream`` yield text
deltas (``str``) and finished :class:`~selectools.types.ToolCall` objects; a
provider that knows the call's token usage may yield one
:class:`~selectools.usage.UsageStats` as the last item. A provider implements the sync half (:class:`Provider`), the async half
(:class:`AsyncProvider`) or both; :mod:`selectools.providers._adapt` calls
whichever exists. ``supports_native_tools`` (default ``False``) tells the agent
whether to pass tool schemas through ``tools=`` instead of describing them in
the prompt. As documented, a sync ``stream()`` yields text only unless the class
sets ``stream_tool_calls = True`` (all selectools providers do); see
:mod:`~selectools.providers._adapt` for how tool calls survive a text-only stream.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from ..exceptions import ProviderError
from ..types import Message, ToolCall, text_content
from ..usage import UsageStats

if TYPE_CHECKING:
    from ..tools import ToolLike

__all__ = [
    "AnyProvider",
    "AsyncProvider",
    "LLMRequest",
    "Provider",
    "ProviderError",
    "StreamItem",
    "estimate_tokens",
    "estimate_usage",
    "provider_label",
    "uses_native_tools",
]

StreamItem = str | ToolCall | UsageStats
_T = TypeVar("_T")


@dataclass(slots=True)
class LLMRequest:
    """One provider call: the keyword arguments of ``complete``/``stream`` as a value.

    ``model`` may be ``""`` for "the provider's default model". ``timeout`` is
    what a keyword provider receives; ``timeout_is_default`` marks it as the
    agent-wide ``AgentConfig.request_timeout``, which a provider's own
    ``timeout=`` overrides (the more specific setting wins). ``deadline`` is the
    ``time.monotonic()`` by which the call must end (``AgentConfig.run_timeout``);
    every timeout is cut to it.
    """

    model: str
    system_prompt: str
    messages: list[Message]
    tools: list[ToolLike] | None = None
    temperature: float = 0.0
    max_tokens: int = 1000
    timeout: float | None = None
    timeout_is_default: bool = False
    deadline: float | None = None

    def call(self, method: Callable[..., _T]) -> _T:
        """``method(**self.kwargs())`` without building the dict: how a keyword provider is called.

        Every model call of a user's provider goes through here, so the keywords
        are spelled out (same names as :meth:`kwargs`).
        """
        return method(
            model=self.model,
            system_prompt=self.system_prompt,
            messages=self.messages,
            tools=self.tools,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            timeout=self.timeout,
        )

    def kwargs(self) -> dict[str, Any]:
        """The request as the keyword arguments of the documented protocol."""
        return {
            "model": self.model,
            "system_prompt": self.system_prompt,
            "messages": self.messages,
            "tools": self.tools,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "timeout": self.timeout,
        }


@runtime_checkable
class Provider(Protocol):
    """The sync half of the protocol: ``complete`` (required) and ``stream`` (optional).

    Optional class flags the agent reads: ``supports_streaming``,
    ``supports_async``, ``supports_native_tools`` and ``stream_tool_calls``.
    """

    name: str

    def complete(
        self,
        *,
        model: str,
        system_prompt: str,
        messages: list[Message],
        tools: Sequence[ToolLike] | None = None,
        temperature: float = 0.0,
        max_tokens: int = 1000,
        timeout: float | None = None,
    ) -> tuple[Message, UsageStats]: ...


@runtime_checkable
class AsyncProvider(Protocol):
    """The async half: ``acomplete`` (required) and ``astream`` (optional, yields text and ToolCalls)."""

    name: str

    async def acomplete(
        self,
        *,
        model: str,
        system_prompt: str,
        messages: list[Message],
        tools: Sequence[ToolLike] | None = None,
        temperature: float = 0.0,
        max_tokens: int = 1000,
        timeout: float | None = None,
    ) -> tuple[Message, UsageStats]: ...


AnyProvider = Provider | AsyncProvider
"""What ``Agent(provider=...)`` accepts: a sync provider, an async one, or both."""


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


def uses_native_tools(provider: AnyProvider) -> bool:
    """Whether the agent passes tools through ``tools=`` and reads calls from ``tool_calls``.

    Otherwise the prompt carries the text contract and calls are parsed from the text.
    """
    return bool(getattr(provider, "supports_native_tools", False))


def provider_label(provider: AnyProvider) -> str:
    """How views and results name a provider: the ``name`` it reports, else its class name."""
    return str(getattr(provider, "name", "") or type(provider).__name__)
