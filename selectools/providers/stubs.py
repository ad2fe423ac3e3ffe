"""``LocalProvider``: an offline stub that echoes, for learning the API and for tests.

It makes no network call and costs nothing. It answers with the results of the
tools that just ran, or else with the user's last message. It never asks for a
tool itself; use :class:`selectools.testing.ScriptedProvider` to script tool calls.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ..types import Message, Role, text_content
from ..usage import UsageStats
from .base import StreamItem

if TYPE_CHECKING:
    from ..tools import Tool

__all__ = ["LocalProvider"]

_WORD = re.compile(r"\S+\s*|\s+")


def _echo(messages: Sequence[Message]) -> str:
    """Tool results after the last user turn, else that user turn's text."""
    if messages:
        last = messages[-1]
        if last.role is Role.USER and type(last.content) is str:
            return last.content  # the common case, answered without building a list
    results: list[str] = []
    for message in reversed(messages):
        if message.role is Role.TOOL:
            results.append(text_content(message))
        elif message.role is Role.USER:
            return "\n".join(reversed(results)) if results else text_content(message)
        elif results:
            break
    return "\n".join(reversed(results))


class LocalProvider:
    """Echo stub: no network, no cost, deterministic."""

    name = "local"
    supports_streaming = True
    supports_async = True
    supports_native_tools = False
    default_model = "local"

    def __repr__(self) -> str:
        return "LocalProvider()"

    def _usage(
        self, model: str, system_prompt: str, messages: Sequence[Message], text: str
    ) -> UsageStats:
        # about four characters a token (as estimate_tokens), inlined: this is the hot path
        prompt = (len(system_prompt) + 3) // 4
        for message in messages:
            content = message.content
            chars = len(content) if type(content) is str else len(text_content(message))
            prompt += (chars + 3) // 4 + 4
        completion = (len(text) + 3) // 4
        # positional: prompt, completion and total tokens, cost, model, provider
        return UsageStats(
            prompt, completion, prompt + completion, 0.0, model or self.default_model, self.name
        )

    def complete(
        self,
        *,
        model: str = "",
        system_prompt: str = "",
        messages: list[Message],
        tools: Sequence[Tool] | None = None,
        temperature: float = 0.0,
        max_tokens: int = 1000,
        timeout: float | None = None,
        **_: Any,
    ) -> tuple[Message, UsageStats]:
        text = _echo(messages)
        usage = self._usage(model, system_prompt, messages, text)
        return Message(Role.ASSISTANT, text), usage

    def stream(self, **kwargs: Any) -> Iterator[StreamItem]:
        message, usage = self.complete(**kwargs)
        yield from _WORD.findall(text_content(message))
        yield usage

    async def acomplete(self, **kwargs: Any) -> tuple[Message, UsageStats]:
        return self.complete(**kwargs)

    async def astream(self, **kwargs: Any) -> AsyncIterator[StreamItem]:
        for item in self.stream(**kwargs):
            yield item
            await asyncio.sleep(0)
