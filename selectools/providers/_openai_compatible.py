"""``_OpenAICompatibleBase``: the chat-message shape OpenAI and Ollama share (Template Method).

Both APIs take a list of ``{"role": ..., "content": ...}`` messages with
``system``/``user``/``assistant``/``tool`` roles, assistant ``tool_calls`` and
``{"type": "function", "function": {...}}`` tool specs. They differ in small
places, which subclasses fill in: how user content carries images
(:meth:`_format_user`), how a tool call's arguments are encoded
(:meth:`_format_tool_call`) and how a tool result names its call
(:meth:`_format_tool_result`). Transport, response parsing, pricing and error
messages stay in each provider.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..types import Message, Role, ToolCall, text_content
from ..usage import UsageStats

if TYPE_CHECKING:
    from ..tools import ToolLike

__all__ = ["_OpenAICompatibleBase"]


class _OpenAICompatibleBase:  # a mixin: formatting only, no IO
    """Message and tool formatting shared by :class:`OpenAIProvider` and :class:`OllamaProvider`."""

    name: str
    label: str

    # -- hooks -----------------------------------------------------------------
    def _format_user(self, message: Message) -> dict[str, Any]:
        return {"role": message.role.value, "content": text_content(message)}

    def _format_tool_call(self, call: ToolCall) -> dict[str, Any]:
        return {
            "id": call.id,
            "type": "function",
            "function": {"name": call.tool_name, "arguments": json.dumps(call.parameters)},
        }

    def _format_tool_result(self, message: Message) -> dict[str, Any]:
        if message.tool_call_id:
            return {
                "role": "tool",
                "tool_call_id": message.tool_call_id,
                "content": text_content(message),
            }
        # A result with no call to answer (hand-written history): plain assistant text.
        return {"role": "assistant", "content": text_content(message)}

    # -- shared ----------------------------------------------------------------
    def _format_messages(
        self, system_prompt: str, messages: Sequence[Message]
    ) -> list[dict[str, Any]]:
        payload: list[dict[str, Any]] = []
        if system_prompt:
            payload.append({"role": "system", "content": system_prompt})
        for message in messages:
            if message.role is Role.TOOL:
                payload.append(self._format_tool_result(message))
            elif message.role is Role.ASSISTANT:
                payload.append(self._format_assistant(message))
            else:
                payload.append(self._format_user(message))
        return payload

    def _format_assistant(self, message: Message) -> dict[str, Any]:
        text = text_content(message)
        entry: dict[str, Any] = {"role": "assistant", "content": text}
        if message.tool_calls:
            entry["content"] = text or None
            entry["tool_calls"] = [self._format_tool_call(call) for call in message.tool_calls]
        return entry

    @staticmethod
    def _tool_specs(tools: Sequence[ToolLike]) -> list[dict[str, Any]]:
        specs = []
        for tool in tools:
            schema = tool.schema()
            specs.append(
                {
                    "type": "function",
                    "function": {
                        "name": schema["name"],
                        "description": schema.get("description", ""),
                        "parameters": schema["parameters"],
                    },
                }
            )
        return specs

    def _usage(
        self,
        model: str,
        prompt_tokens: int,
        completion_tokens: int,
        priced_as: str | None = None,
        cache_read_tokens: int = 0,
    ) -> UsageStats:
        return UsageStats.priced(
            model,
            self.name,
            prompt_tokens,
            completion_tokens,
            cache_read_tokens=cache_read_tokens,
            priced_as=priced_as,
        )
