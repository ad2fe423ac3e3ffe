"""``LocalProvider``: an offline stub that echoes, for learning the API and for tests.

It makes no network call and costs nothing. It answers with the results of the
tools that just ran, or else with the user's last message. It never asks for a
tool itself; use :class:`selectools.testing.ScriptedProvider` to script tool calls.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator, Sequence

from ..types import Message, Role, text_content
from ..usage import UsageStats
from ._base import RequestProvider
from .base import LLMRequest, StreamItem

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


class LocalProvider(RequestProvider):
    """Echo stub: no network, no cost, deterministic."""

    name = "local"
    default_model = "local"

    def __init__(self, **unexpected: object) -> None:
        if unexpected:
            names = ", ".join(sorted(unexpected))
            raise TypeError(
                f"LocalProvider() takes no arguments (got {names}): it only echoes. To script "
                "replies, use selectools.testing.ScriptedProvider([...]), e.g. "
                'ScriptedProvider(["first reply", "second reply"])'
            )
        super().__init__()

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

    def _complete(self, request: LLMRequest) -> tuple[Message, UsageStats]:
        messages = request.messages
        text = _echo(messages)
        return Message(Role.ASSISTANT, text), self._usage(
            request.model, request.system_prompt, messages, text
        )

    def _reply(self, request: LLMRequest) -> tuple[Message, UsageStats]:
        """The echo; through ``complete`` when a subclass overrides it, as documented."""
        if "complete" in self._keyword_overrides:
            return self.complete(**request.kwargs())
        return self._complete(request)

    async def _acomplete(self, request: LLMRequest) -> tuple[Message, UsageStats]:
        return self._reply(request)

    def _stream(self, request: LLMRequest) -> Iterator[StreamItem]:
        message, usage = self._reply(request)
        yield from _WORD.findall(text_content(message))
        yield usage

    async def _astream(self, request: LLMRequest) -> AsyncIterator[StreamItem]:
        import asyncio

        for item in self._stream(request):
            yield item
            await asyncio.sleep(0)
