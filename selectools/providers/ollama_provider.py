"""``OllamaProvider``: local models through Ollama's REST API (``/api/chat``) with ``httpx``.

No key, no cost: usage comes from ``prompt_eval_count`` / ``eval_count`` and
is priced at zero unless the registry says otherwise. Messages use the shape
shared with OpenAI (:class:`_OpenAICompatibleBase`), with Ollama's
differences: images go in an ``images`` list of base64 strings (Ollama cannot
fetch URLs, so an image URL is an error asking for a local file), tool-call
arguments are JSON objects, and a tool result names its tool (``tool_name``).
Streaming reads NDJSON lines; tool calls are handed out only after the final
``"done": true`` line.

The host comes from ``host=``, ``OLLAMA_HOST`` (``localhost:11434`` or
``0.0.0.0`` forms are accepted) or ``http://localhost:11434``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from .._env import env_value
from ..exceptions import ProviderError
from ..types import Message, Role, ToolCall, text_content
from ..usage import UsageStats
from ._arguments import decode_arguments
from ._content import message_parts, unsupported
from ._errors import malformed_error
from ._http import HTTPProvider, HTTPTransport, JSONStreamState
from ._openai_compatible import _OpenAICompatibleBase
from ._secret import safe_url
from .base import LLMRequest, estimate_usage

if TYPE_CHECKING:
    pass

__all__ = ["OllamaProvider"]

DEFAULT_HOST = "http://localhost:11434"


def normalize_host(host: str) -> str:
    """``OLLAMA_HOST`` spellings (``0.0.0.0``, ``localhost:11434``, a bare host) as a URL."""
    host = host.strip().rstrip("/")
    if "://" not in host:
        host = f"http://{host}"
    scheme, _, rest = host.partition("://")
    address, slash, path = rest.partition("/")
    if address.startswith("0.0.0.0"):
        address = "127.0.0.1" + address[len("0.0.0.0") :]
    if ":" not in address.rsplit("]", 1)[-1]:
        address += ":11434" if scheme == "http" else ""
    return f"{scheme}://{address}{slash}{path}"


class OllamaProvider(_OpenAICompatibleBase, HTTPProvider):
    """Models served by a local (or remote) Ollama. ``model=`` is an alias of ``default_model``."""

    name = "ollama"
    label = "Ollama"

    def __init__(
        self,
        host: str | None = None,
        default_model: str = "llama3.2",
        *,
        model: str | None = None,
        timeout: float | None = None,
        keep_alive: str | None = None,
        http_client: Any = None,
        async_http_client: Any = None,
    ) -> None:
        self.default_model = model or default_model
        self.host = normalize_host(host or env_value("OLLAMA_HOST") or DEFAULT_HOST)
        self.keep_alive = keep_alive
        self.timeout = timeout
        self._http = HTTPTransport(
            provider=self.name,
            extra="ollama",
            owner="OllamaProvider",
            base_url=self.host,
            headers={},
            secret=None,
            timeout=timeout,
            http_client=http_client,
            async_http_client=async_http_client,
        )

    def __repr__(self) -> str:
        return f"OllamaProvider(host={safe_url(self.host)!r}, default_model={self.default_model!r})"

    # -- hooks of _OpenAICompatibleBase -------------------------------------------------
    def _format_user(self, message: Message) -> dict[str, Any]:
        texts: list[str] = []
        images: list[str] = []
        for part in message_parts(message):
            if part.kind == "text":
                texts.append(part.text)
            elif part.kind == "audio":
                raise unsupported(self.label, "audio input", "Ollama chat takes text and images")
            elif part.url:
                raise unsupported(
                    self.label,
                    f"an image by URL ({part.url})",
                    "Ollama takes images as data only; download it and pass a local path, "
                    "e.g. image_message('photo.png', prompt)",
                )
            else:
                images.append(str(part.data))
        entry: dict[str, Any] = {"role": message.role.value, "content": "".join(texts)}
        if images:
            entry["images"] = images
        return entry

    def _format_assistant(self, message: Message) -> dict[str, Any]:
        entry = super()._format_assistant(message)
        entry["content"] = entry["content"] or ""
        return entry

    def _format_tool_call(self, call: ToolCall) -> dict[str, Any]:
        return {"function": {"name": call.tool_name, "arguments": call.parameters}}

    def _format_tool_result(self, message: Message) -> dict[str, Any]:
        entry: dict[str, Any] = {"role": "tool", "content": text_content(message)}
        if message.tool_name:
            entry["tool_name"] = message.tool_name
        return entry

    # -- request / response ------------------------------------------------------------
    def _prepare(self, request: LLMRequest, stream: bool) -> dict[str, Any]:
        options: dict[str, Any] = {"num_predict": request.max_tokens}
        if request.temperature is not None:
            options["temperature"] = request.temperature
        body: dict[str, Any] = {
            "model": request.model,
            "messages": self._format_messages(request.system_prompt, request.messages),
            "stream": stream,
            "options": options,
        }
        if request.tools:
            body["tools"] = self._tool_specs(request.tools)
        if self.keep_alive is not None:
            body["keep_alive"] = self.keep_alive
        return body

    def _path(self, request: LLMRequest, stream: bool) -> str:
        return "/api/chat"

    @staticmethod
    def _calls(raw_calls: Any) -> list[ToolCall]:
        calls = []
        for raw in raw_calls if isinstance(raw_calls, list) else ():
            function = raw.get("function") if isinstance(raw, dict) else None
            if not isinstance(function, dict):
                continue
            arguments, error = decode_arguments(function.get("arguments"))
            call_id = raw.get("id") or f"ollama_call_{os.urandom(6).hex()}"
            calls.append(
                ToolCall(
                    tool_name=str(function.get("name", "")),
                    parameters=arguments,
                    id=str(call_id),
                    error=error,
                )
            )
        return calls

    def _line_usage(self, model: str, data: dict[str, Any]) -> UsageStats | None:
        if "prompt_eval_count" not in data and "eval_count" not in data:
            return None
        return self._usage(
            model, int(data.get("prompt_eval_count") or 0), int(data.get("eval_count") or 0)
        )

    def _parse(self, data: Any, request: LLMRequest) -> tuple[Message, UsageStats]:
        model = request.model
        label = f"{self.label} completion"
        if not isinstance(data, dict) or not isinstance(data.get("message"), dict):
            raise malformed_error(label, self.name, "no message in the reply")
        reply = data["message"]
        text = str(reply.get("content") or "")
        calls = self._calls(reply.get("tool_calls"))
        message = Message(role=Role.ASSISTANT, content=text, tool_calls=calls or None)
        usage = self._line_usage(model, data)
        return message, usage or estimate_usage(
            model, self.name, request.system_prompt, request.messages, text
        )

    def _stream_state(self, request: LLMRequest) -> _StreamState:
        return _StreamState(self, request)


class _StreamState(JSONStreamState):
    """Reads NDJSON chat lines into text, tool calls and usage."""

    __slots__ = ()
    provider: OllamaProvider

    def read(self, data: Any) -> str:
        provider = self.provider
        if not isinstance(data, dict):
            raise malformed_error(self.label, provider.name, "a line is not a JSON object")
        if "error" in data:
            raise ProviderError(
                f"{self.label} failed: Ollama reported an error mid-stream: {data['error']}",
                provider=provider.name,
                retryable=True,
            )
        raw = data.get("message")
        message: dict[str, Any] = raw if isinstance(raw, dict) else {}
        self.calls.extend(provider._calls(message.get("tool_calls")))
        if data.get("done"):
            self.done = True
            self.usage = provider._line_usage(self.request.model, data)
        return str(message.get("content") or "")
