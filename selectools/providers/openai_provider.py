"""``OpenAIProvider``: the OpenAI Chat Completions API through the official ``openai`` SDK.

Native tool calling (parallel calls included), streaming with tool-call deltas
assembled into :class:`~selectools.types.ToolCall` objects, token usage priced
with :mod:`selectools.pricing`, and multimodal input (``ContentPart`` lists and
the older ``image_path``/``image_base64`` fields).

Decisions worth knowing:

* The SDK's own retries are off (``max_retries=0``): the agent retries, with
  backoff and the server's ``Retry-After``, and every SDK exception becomes a
  :class:`~selectools.exceptions.ProviderError` saying whether a retry can help.
* GPT-5.x, GPT-4.1, o-series and codex models get ``max_completion_tokens``;
  other models ``max_tokens`` (``max_tokens_param=`` overrides the guess, e.g.
  for an Azure deployment with a custom name). Reasoning models (o-series,
  GPT-5.x, codex) accept only the default temperature, so none is sent to them.
* Streamed tool calls are handed out only once the stream has ended properly,
  so a connection that drops mid-call never yields a half-built call; a call
  whose arguments are not valid JSON comes back with ``ToolCall.error`` set.
* The key comes from ``api_key=``, ``OPENAI_API_KEY`` or a ``.env`` file; the
  base URL from ``base_url=``, ``OPENAI_BASE_URL`` or the SDK default.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..types import Message, Role, ToolCall, text_content
from ..usage import UsageStats
from ._arguments import decode_arguments
from ._clients import SDKProvider, require
from ._content import message_parts, unsupported
from ._errors import malformed_error, truncated_error
from ._openai_compatible import _OpenAICompatibleBase
from ._secret import safe_url
from .base import LLMRequest, StreamItem, estimate_usage

if TYPE_CHECKING:
    pass

__all__ = ["OpenAIProvider"]

_COMPLETION_TOKENS = re.compile(r"^(gpt-5|gpt-4\.1|o\d|codex)|codex")
_FIXED_TEMPERATURE = re.compile(r"^(gpt-5(?!-chat)|o\d|codex)|codex")
_AUDIO_FORMATS = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}


def _family(model: str) -> str:
    return model.strip().lower().rsplit("/", 1)[-1]


def _uses_max_completion_tokens(model: str) -> bool:
    """True for the families that reject ``max_tokens`` (GPT-5.x, GPT-4.1, o-series, codex)."""
    return bool(_COMPLETION_TOKENS.search(_family(model)))


def _fixed_temperature(model: str) -> bool:
    return bool(_FIXED_TEMPERATURE.search(_family(model)))


class OpenAIProvider(_OpenAICompatibleBase, SDKProvider):
    """OpenAI chat models (and any server that speaks the Chat Completions API).

    ``client``/``async_client`` inject ready SDK clients; ``http_client``/
    ``async_http_client`` inject the HTTP clients the SDK should use.
    ``model=`` is an alias of ``default_model``.
    """

    name = "openai"
    label = "OpenAI"
    _spec = "openai"

    def __init__(
        self,
        api_key: str | None = None,
        default_model: str = "gpt-5-mini",
        *,
        model: str | None = None,
        base_url: str | None = None,
        organization: str | None = None,
        timeout: float | None = None,
        max_tokens_param: str | None = None,
        default_headers: dict[str, str] | None = None,
        client: Any = None,
        async_client: Any = None,
        http_client: Any = None,
        async_http_client: Any = None,
    ) -> None:
        self._sdk = require("openai", "openai", "OpenAIProvider")
        self.default_model = model or default_model
        self._configure_token_param(max_tokens_param)
        self._connect(
            api_key,
            base_url,
            timeout,
            {"organization": organization, "default_headers": default_headers},
            ("OpenAI", "AsyncOpenAI"),
            (client, async_client, http_client, async_http_client),
        )

    # -- construction helpers (shared with AzureOpenAIProvider) -----------------
    def _configure_token_param(self, max_tokens_param: str | None) -> None:
        if max_tokens_param not in (None, "max_tokens", "max_completion_tokens"):
            raise ValueError(
                f"max_tokens_param must be 'max_tokens' or 'max_completion_tokens', "
                f"got {max_tokens_param!r}"
            )
        self._max_tokens_param = max_tokens_param

    def __repr__(self) -> str:
        where = f", base_url={safe_url(self.base_url)!r}" if self.base_url else ""
        return f"{type(self).__name__}(default_model={self.default_model!r}{where})"

    # -- request building --------------------------------------------------------
    def _format_user(self, message: Message) -> dict[str, Any]:
        parts = message_parts(message)
        if all(part.kind == "text" for part in parts):
            return {"role": message.role.value, "content": text_content(message)}
        content: list[dict[str, Any]] = []
        for part in parts:
            if part.kind == "text":
                content.append({"type": "text", "text": part.text})
            elif part.kind == "image":
                url = part.url or f"data:{part.media_type or 'image/jpeg'};base64,{part.data}"
                content.append({"type": "image_url", "image_url": {"url": url}})
            else:
                audio_format = _AUDIO_FORMATS.get(part.media_type or "")
                if audio_format is None:
                    raise unsupported(
                        self.label,
                        f"audio of type {part.media_type!r}",
                        "OpenAI takes WAV or MP3 audio (media_type 'audio/wav' or 'audio/mpeg')",
                    )
                content.append(
                    {
                        "type": "input_audio",
                        "input_audio": {"data": part.data, "format": audio_format},
                    }
                )
        return {"role": message.role.value, "content": content}

    def _token_param(self, model: str) -> str:
        if self._max_tokens_param:
            return self._max_tokens_param
        return "max_completion_tokens" if _uses_max_completion_tokens(model) else "max_tokens"

    def _prepare(self, request: LLMRequest, stream: bool) -> dict[str, Any]:
        model = request.model
        body: dict[str, Any] = {
            "model": model,
            "messages": self._format_messages(request.system_prompt, request.messages),
            self._token_param(model): request.max_tokens,
        }
        if request.temperature is not None and not _fixed_temperature(model):
            body["temperature"] = request.temperature
        if request.tools:
            body["tools"] = self._tool_specs(request.tools)
        if request.timeout is not None:
            body["timeout"] = request.timeout
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return body

    def _create(self, client: Any, body: dict[str, Any]) -> Any:
        return client.chat.completions.create(**body)

    # -- responses ---------------------------------------------------------------
    def _parse(self, response: Any, request: LLMRequest) -> tuple[Message, UsageStats]:
        model = request.model
        choices = getattr(response, "choices", None)
        if not choices:
            raise malformed_error(f"{self.label} completion", self.name, "no choices in the reply")
        reply = choices[0].message
        text = reply.content or getattr(reply, "refusal", None) or ""
        calls: list[ToolCall] = []
        for index, raw in enumerate(reply.tool_calls or ()):
            function = getattr(raw, "function", None)
            if function is None:
                continue
            arguments, error = decode_arguments(function.arguments)
            calls.append(
                ToolCall(
                    tool_name=function.name,
                    parameters=arguments,
                    id=raw.id or f"call_{index}",
                    error=error,
                )
            )
        message = Message(role=Role.ASSISTANT, content=text, tool_calls=calls or None)
        usage = getattr(response, "usage", None)
        if usage is None:
            return message, estimate_usage(
                model, self.name, request.system_prompt, request.messages, text
            )
        priced = getattr(response, "model", None)
        return message, self._usage(
            model,
            usage.prompt_tokens or 0,
            usage.completion_tokens or 0,
            priced,
            _cached_tokens(usage),
        )

    def _stream_state(self, request: LLMRequest) -> _StreamState:
        return _StreamState(self, request)


class _StreamState:
    """Assembles ``chat.completion.chunk`` deltas into text, tool calls and usage."""

    __slots__ = (
        "calls",
        "finished",
        "priced",
        "provider",
        "request",
        "texts",
        "usage",
    )

    def __init__(self, provider: OpenAIProvider, request: LLMRequest) -> None:
        self.provider = provider
        self.request = request
        self.calls: dict[int, dict[str, str]] = {}
        self.texts: list[str] = []
        self.finished = False
        self.usage: Any = None
        self.priced: str | None = None

    def feed(self, chunk: Any) -> str:
        if getattr(chunk, "usage", None) is not None:
            self.usage = chunk.usage
        self.priced = getattr(chunk, "model", None) or self.priced
        text = ""
        for choice in chunk.choices or ():
            if choice.index != 0:
                continue
            delta = choice.delta
            if delta is not None:
                if delta.content:
                    text += delta.content
                for part in delta.tool_calls or ():
                    index = part.index if part.index is not None else 0
                    slot = self.calls.setdefault(index, {"id": "", "name": "", "arguments": ""})
                    if part.id:
                        slot["id"] = part.id
                    function = part.function
                    if function is not None:
                        if function.name:
                            slot["name"] += function.name
                        if function.arguments:
                            slot["arguments"] += function.arguments
            if choice.finish_reason:
                self.finished = True
        if text:
            self.texts.append(text)
        return text

    def finish(self) -> list[StreamItem]:
        provider = self.provider
        if not self.finished:
            raise truncated_error(f"{provider.label} stream", provider.name)
        items: list[StreamItem] = []
        for index in sorted(self.calls):
            slot = self.calls[index]
            arguments, error = decode_arguments(slot["arguments"])
            items.append(
                ToolCall(
                    tool_name=slot["name"],
                    parameters=arguments,
                    id=slot["id"] or f"call_{index}",
                    error=error,
                )
            )
        if self.usage is not None:
            items.append(
                provider._usage(
                    self.request.model,
                    self.usage.prompt_tokens or 0,
                    self.usage.completion_tokens or 0,
                    self.priced,
                    _cached_tokens(self.usage),
                )
            )
        else:
            request = self.request
            text = "".join(self.texts)
            items.append(
                estimate_usage(
                    request.model, provider.name, request.system_prompt, request.messages, text
                )
            )
        return items


def _cached_tokens(usage: Any) -> int:
    """Prompt tokens served from OpenAI's prompt cache (``prompt_tokens_details.cached_tokens``)."""
    details = getattr(usage, "prompt_tokens_details", None)
    return int(getattr(details, "cached_tokens", 0) or 0)
