"""``CacheKeyBuilder``: the deterministic key a request is cached under."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..tools import ToolLike
    from ..types import Message

__all__ = ["CacheKeyBuilder"]


class CacheKeyBuilder:
    """Deterministic cache keys: ``"selectools:" + sha256`` of the request.

    Hashed: the model, the system prompt, each message's role, content, tool
    calls (name and arguments; call ids are random per run and left out), tool
    name and attached image, each
    tool's name, description and parameter schema (in order: tool order
    matters), and the temperature.
    """

    PREFIX = "selectools:"

    @staticmethod
    def build(
        model: str,
        system_prompt: str,
        messages: Sequence[Message],
        tools: Sequence[ToolLike] | None,
        temperature: float,
    ) -> str:
        payload = {
            "model": model,
            "system_prompt": system_prompt,
            "messages": [_message_fingerprint(m) for m in messages],
            "tools": [_tool_fingerprint(t) for t in tools or ()],
            "temperature": temperature,
        }
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=repr)
        return CacheKeyBuilder.PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _message_fingerprint(message: Message) -> list[Any]:
    content: Any = message.content
    if isinstance(content, list):
        content = [part.to_dict() for part in content]
    calls = [[c.tool_name, c.parameters] for c in message.tool_calls or ()]
    return [
        message.role.value,
        content,
        calls,
        message.tool_name,
        message.image_path,
        message.image_base64,
    ]


def _tool_fingerprint(tool: ToolLike) -> list[Any]:
    schema = tool.schema()
    return [schema["name"], schema["description"], schema["parameters"]]
