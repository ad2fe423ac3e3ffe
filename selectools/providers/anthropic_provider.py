"""``AnthropicProvider``: Claude models through the official ``anthropic`` SDK (Messages API).

The system prompt travels in ``system=``; tool calls are ``tool_use`` blocks
and their results ``tool_result`` blocks in a user turn (consecutive results,
as from parallel calls, share one turn; any two adjacent turns of the same role
are merged, since the API requires alternation). Images become base64 or URL
``image`` blocks. Streaming reads the raw SSE events and assembles each tool
call from its ``input_json_delta`` fragments; calls are handed out only after
``message_stop``, so a dropped stream never yields a half-built call. The
Messages API version the SDK speaks has no ``temperature`` parameter, so the
agent's temperature is not sent.

The SDK's own retries are off (the agent retries); every SDK or transport
exception becomes a :class:`~selectools.exceptions.ProviderError`. The key
comes from ``api_key=``, ``ANTHROPIC_API_KEY`` or ``.env``; the base URL from
``base_url=``, ``ANTHROPIC_BASE_URL`` or the SDK default.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..types import Message, Role, ToolCall, text_content
from ..usage import UsageStats
from ._arguments import decode_arguments
from ._clients import SDKProvider, require
from ._content import alternating_turns, message_parts, unsupported
from ._errors import malformed_error, truncated_error
from ._secret import safe_url
from .base import LLMRequest, StreamItem

if TYPE_CHECKING:
    from ..tools import ToolLike

__all__ = ["AnthropicProvider"]


class AnthropicProvider(SDKProvider):
    """Claude chat models. ``model=`` is an alias of ``default_model``."""

    name = "anthropic"
    label = "Anthropic"
    _spec = "anthropic"

    def __init__(
        self,
        api_key: str | None = None,
        default_model: str = "claude-sonnet-4-6",
        *,
        model: str | None = None,
        base_url: str | None = None,
        timeout: float | None = None,
        default_headers: dict[str, str] | None = None,
        client: Any = None,
        async_client: Any = None,
        http_client: Any = None,
        async_http_client: Any = None,
    ) -> None:
        self._sdk = require("anthropic", "anthropic", "AnthropicProvider")
        self.default_model = model or default_model
        self._connect(
            api_key,
            base_url,
            timeout,
            {"default_headers": default_headers},
            ("Anthropic", "AsyncAnthropic"),
            (client, async_client, http_client, async_http_client),
        )

    def __repr__(self) -> str:
        where = f", base_url={safe_url(self.base_url)!r}" if self.base_url else ""
        return f"AnthropicProvider(default_model={self.default_model!r}{where})"

    # -- request building --------------------------------------------------------
    def _user_blocks(self, message: Message) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        for part in message_parts(message):
            if part.kind == "text":
                blocks.append({"type": "text", "text": part.text})
            elif part.kind == "image":
                source: dict[str, Any]
                if part.url:
                    source = {"type": "url", "url": part.url}
                else:
                    source = {
                        "type": "base64",
                        "media_type": part.media_type or "image/jpeg",
                        "data": part.data,
                    }
                blocks.append({"type": "image", "source": source})
            else:
                raise unsupported(self.label, "audio input", "Claude takes text and images only")
        return blocks

    def _turn(self, message: Message) -> tuple[str, list[dict[str, Any]]]:
        if message.role is Role.TOOL:
            if message.tool_call_id:
                result: dict[str, Any] = {
                    "type": "tool_result",
                    "tool_use_id": message.tool_call_id,
                    "content": text_content(message),
                }
                if message.is_error:
                    result["is_error"] = True
                return "user", [result]
            # A result with no call to answer (hand-written history): plain assistant text.
            return "assistant", [{"type": "text", "text": text_content(message)}]
        if message.role is Role.ASSISTANT:
            blocks: list[dict[str, Any]] = []
            text = text_content(message)
            if text:
                blocks.append({"type": "text", "text": text})
            for call in message.tool_calls or ():
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call.id,
                        "name": call.tool_name,
                        "input": call.parameters,
                    }
                )
            return "assistant", blocks
        return "user", self._user_blocks(message)

    def _format_messages(
        self, system_prompt: str, messages: Sequence[Message]
    ) -> tuple[str, list[dict[str, Any]]]:
        """``(system, turns)``: system messages join the system prompt; same-role turns merge."""
        system, turns = alternating_turns(system_prompt, messages, self._turn, "content")
        return "\n\n".join(s for s in system if s), turns

    @staticmethod
    def _tool_specs(tools: Sequence[ToolLike]) -> list[dict[str, Any]]:
        specs = []
        for tool in tools:
            schema = tool.schema()
            specs.append(
                {
                    "name": schema["name"],
                    "description": schema.get("description", ""),
                    "input_schema": schema["parameters"],
                }
            )
        return specs

    def _prepare(self, request: LLMRequest, stream: bool) -> dict[str, Any]:
        system, turns = self._format_messages(request.system_prompt, request.messages)
        body: dict[str, Any] = {
            "model": request.model,
            "messages": turns,
            "max_tokens": request.max_tokens,
        }
        if system:
            body["system"] = system
        if request.tools:
            body["tools"] = self._tool_specs(request.tools)
        if request.timeout is not None:
            body["timeout"] = request.timeout
        if stream:
            body["stream"] = True
        return body

    def _create(self, client: Any, body: dict[str, Any]) -> Any:
        return client.messages.create(**body)

    # -- responses ---------------------------------------------------------------
    def _usage(self, model: str, usage: Any, output_tokens: int | None = None) -> UsageStats:
        # Anthropic's input_tokens leave out the cached ones; ours count all input.
        read = getattr(usage, "cache_read_input_tokens", 0) or 0
        written = getattr(usage, "cache_creation_input_tokens", 0) or 0
        prompt = (getattr(usage, "input_tokens", 0) or 0) + read + written
        completion = output_tokens if output_tokens is not None else usage.output_tokens or 0
        return UsageStats.priced(
            model,
            self.name,
            prompt,
            completion,
            cache_read_tokens=read,
            cache_write_tokens=written,
        )

    def _parse(self, response: Any, request: LLMRequest) -> tuple[Message, UsageStats]:
        content = getattr(response, "content", None)
        if content is None:
            raise malformed_error(f"{self.label} completion", self.name, "no content in the reply")
        texts: list[str] = []
        calls: list[ToolCall] = []
        for block in content:
            kind = getattr(block, "type", None)
            if kind == "text":
                texts.append(block.text)
            elif kind == "tool_use":
                arguments, error = decode_arguments(block.input)
                calls.append(
                    ToolCall(tool_name=block.name, parameters=arguments, id=block.id, error=error)
                )
        message = Message(role=Role.ASSISTANT, content="".join(texts), tool_calls=calls or None)
        return message, self._usage(request.model, response.usage)

    def _stream_state(self, request: LLMRequest) -> _StreamState:
        return _StreamState(self, request.model)


class _StreamState:
    """Assembles raw Messages-API stream events into text, tool calls and usage."""

    __slots__ = ("blocks", "input_usage", "model", "output_tokens", "provider", "stopped")

    def __init__(self, provider: AnthropicProvider, model: str) -> None:
        self.provider = provider
        self.model = model
        self.blocks: dict[int, dict[str, str]] = {}
        self.input_usage: Any = None
        self.output_tokens: int | None = None
        self.stopped = False

    def feed(self, event: Any) -> str:
        kind = getattr(event, "type", None)
        if kind == "message_start":
            self.input_usage = event.message.usage
        elif kind == "content_block_start":
            block = event.content_block
            if getattr(block, "type", None) == "tool_use":
                self.blocks[event.index] = {"id": block.id, "name": block.name, "json": ""}
        elif kind == "content_block_delta":
            delta = event.delta
            delta_kind = getattr(delta, "type", None)
            if delta_kind == "text_delta":
                return str(delta.text)
            if delta_kind == "input_json_delta" and event.index in self.blocks:
                self.blocks[event.index]["json"] += delta.partial_json
        elif kind == "message_delta":
            usage = getattr(event, "usage", None)
            if usage is not None and getattr(usage, "output_tokens", None) is not None:
                self.output_tokens = usage.output_tokens
        elif kind == "message_stop":
            self.stopped = True
        return ""

    def finish(self) -> list[StreamItem]:
        provider = self.provider
        if not self.stopped:
            raise truncated_error(f"{provider.label} stream", provider.name)
        items: list[StreamItem] = []
        for index in sorted(self.blocks):
            block = self.blocks[index]
            arguments, error = decode_arguments(block["json"])
            items.append(
                ToolCall(tool_name=block["name"], parameters=arguments, id=block["id"], error=error)
            )
        if self.input_usage is not None:
            items.append(provider._usage(self.model, self.input_usage, self.output_tokens))
        return items
