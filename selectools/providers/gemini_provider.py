"""``GeminiProvider``: Google's Gemini API over plain HTTPS with ``httpx``.

``POST /v1beta/models/{model}:generateContent`` (and ``:streamGenerateContent
?alt=sse``) with ``functionDeclarations`` tools, ``functionCall`` /
``functionResponse`` parts, ``inlineData`` images and ``usageMetadata``. The
system prompt goes in ``systemInstruction`` (the API's dedicated field) rather
than as a first user turn. Tool schemas are rewritten into the subset Gemini
accepts (see :mod:`._gemini_schema`).

The key is sent in the ``x-goog-api-key`` header, never in the URL, so it
cannot leak through a logged URL or an exception message. It comes from
``api_key=``, ``GEMINI_API_KEY``, ``GOOGLE_API_KEY`` or ``.env``; the base URL
from ``base_url=``, ``GEMINI_BASE_URL`` / ``GOOGLE_GEMINI_BASE_URL`` or the
public endpoint.

Gemini 3 models return a ``thoughtSignature`` with each function call and
require it back on the next turn. A ``ToolCall`` has no field for it, so the
provider remembers signatures (and Gemini's own call ids) by call id, for the
most recent 2048 calls, and echoes them when the conversation is sent again.
"""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from .._env import env_value
from ..exceptions import ProviderConfigurationError, ProviderError
from ..types import Message, Role, ToolCall, text_content
from ..usage import UsageStats
from ._arguments import decode_arguments
from ._content import alternating_turns, message_parts
from ._errors import malformed_error
from ._gemini_schema import gemini_parameters
from ._http import HTTPProvider, HTTPTransport, JSONStreamState
from ._secret import Secret, safe_url
from ._specs import SPECS
from .base import LLMRequest, estimate_usage

if TYPE_CHECKING:
    pass

__all__ = ["GeminiProvider", "gemini_base_url", "gemini_key", "retry_delay"]

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
_BLOCKED = {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"}
_DELAY = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")
_MEMORY = 2048
_KEY_ENV = SPECS["gemini"].key_env


def gemini_key(api_key: str | None) -> str:
    """The key from the argument, ``GEMINI_API_KEY``, ``GOOGLE_API_KEY`` or ``.env``."""
    key = api_key or env_value(*_KEY_ENV)
    if not key:
        raise ProviderConfigurationError(
            "Gemini",
            "API key",
            _KEY_ENV[0],
            hint="GOOGLE_API_KEY works too, and so does a .env file in the working directory.",
        )
    return key


def gemini_base_url(base_url: str | None) -> str:
    return base_url or env_value("GEMINI_BASE_URL", "GOOGLE_GEMINI_BASE_URL") or DEFAULT_BASE_URL


def retry_delay(body: Any) -> float | None:
    """Seconds from a ``google.rpc.RetryInfo`` detail in an error body."""
    error = body.get("error") if isinstance(body, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    for detail in details if isinstance(details, list) else ():
        delay = detail.get("retryDelay") if isinstance(detail, dict) else None
        match = _DELAY.match(delay) if isinstance(delay, str) else None
        if match:
            return float(match.group(1))
    return None


class GeminiProvider(HTTPProvider):
    """Gemini chat models. ``model=`` is an alias of ``default_model``."""

    name = "gemini"
    label = "Gemini"
    _sse = True

    def __init__(
        self,
        api_key: str | None = None,
        default_model: str = "gemini-2.5-flash",
        *,
        model: str | None = None,
        base_url: str | None = None,
        api_version: str = "v1beta",
        timeout: float | None = None,
        http_client: Any = None,
        async_http_client: Any = None,
    ) -> None:
        key = gemini_key(api_key)
        self.default_model = model or default_model
        self.api_version = api_version.strip("/")
        self.base_url = gemini_base_url(base_url)
        self._secret = Secret(key)
        self.timeout = timeout
        self._http = HTTPTransport(
            provider=self.name,
            extra="gemini",
            owner="GeminiProvider",
            base_url=self.base_url,
            headers={"x-goog-api-key": key},
            secret=self._secret,
            timeout=timeout,
            http_client=http_client,
            async_http_client=async_http_client,
            retry_hint=retry_delay,
        )
        self._calls: OrderedDict[str, dict[str, str]] = OrderedDict()
        self._calls_lock = threading.Lock()

    def __repr__(self) -> str:
        where = (
            "" if self.base_url == DEFAULT_BASE_URL else f", base_url={safe_url(self.base_url)!r}"
        )
        return f"GeminiProvider(default_model={self.default_model!r}{where})"

    # -- call memory (ids and thought signatures) ------------------------------------
    def _remember(self, call_id: str, server_id: str | None, signature: str | None) -> None:
        meta = {k: v for k, v in (("id", server_id), ("signature", signature)) if v}
        if not meta:
            return
        with self._calls_lock:
            self._calls[call_id] = meta
            while len(self._calls) > _MEMORY:
                self._calls.popitem(last=False)

    def _recall(self, call_id: str | None) -> dict[str, str]:
        if not call_id:
            return {}
        with self._calls_lock:
            return dict(self._calls.get(call_id, {}))

    # -- request building ------------------------------------------------------------
    def _user_parts(self, message: Message) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        for part in message_parts(message):
            if part.kind == "text":
                parts.append({"text": part.text})
            elif part.url:
                mime = part.media_type or "image/jpeg"
                parts.append({"fileData": {"mimeType": mime, "fileUri": part.url}})
            else:
                mime = part.media_type or ("audio/wav" if part.kind == "audio" else "image/jpeg")
                parts.append({"inlineData": {"mimeType": mime, "data": part.data}})
        return parts

    def _turn(self, message: Message) -> tuple[str, list[dict[str, Any]]]:
        if message.role is Role.ASSISTANT:
            parts: list[dict[str, Any]] = []
            text = text_content(message)
            if text:
                parts.append({"text": text})
            for call in message.tool_calls or ():
                meta = self._recall(call.id)
                function: dict[str, Any] = {"name": call.tool_name, "args": call.parameters}
                if "id" in meta:
                    function["id"] = meta["id"]
                part: dict[str, Any] = {"functionCall": function}
                if "signature" in meta:
                    part["thoughtSignature"] = meta["signature"]
                parts.append(part)
            return "model", parts
        if message.role is Role.TOOL and message.tool_name:
            key = "error" if message.is_error else "result"
            response: dict[str, Any] = {
                "name": message.tool_name,
                "response": {key: text_content(message)},
            }
            meta = self._recall(message.tool_call_id)
            if "id" in meta:
                response["id"] = meta["id"]
            return "user", [{"functionResponse": response}]
        if message.role is Role.TOOL:
            return "user", [{"text": text_content(message)}]
        return "user", self._user_parts(message)

    def _prepare(self, request: LLMRequest, stream: bool) -> dict[str, Any]:
        tools = request.tools
        system, contents = alternating_turns(
            request.system_prompt, request.messages, self._turn, "parts"
        )
        body: dict[str, Any] = {"contents": contents}
        if system:
            body["systemInstruction"] = {"parts": [{"text": "\n\n".join(system)}]}
        if tools:
            declarations = []
            for tool in tools:
                schema = tool.schema()
                declaration: dict[str, Any] = {
                    "name": schema["name"],
                    "description": schema.get("description", ""),
                }
                parameters = gemini_parameters(schema["parameters"])
                if parameters is not None:
                    declaration["parameters"] = parameters
                declarations.append(declaration)
            body["tools"] = [{"functionDeclarations": declarations}]
        config: dict[str, Any] = {"maxOutputTokens": request.max_tokens}
        if request.temperature is not None:
            config["temperature"] = request.temperature
        body["generationConfig"] = config
        return body

    def _path(self, request: LLMRequest, stream: bool) -> str:
        model = request.model
        name = model[len("models/") :] if model.startswith("models/") else model
        method = "streamGenerateContent?alt=sse" if stream else "generateContent"
        return f"/{self.api_version}/models/{quote(name, safe='')}:{method}"

    # -- responses ---------------------------------------------------------------------
    def _call(self, function: dict[str, Any], signature: str | None) -> ToolCall:
        server_id = function.get("id") if isinstance(function.get("id"), str) else None
        call_id = server_id or f"gemini_call_{os.urandom(6).hex()}"
        arguments, error = decode_arguments(function.get("args"))
        self._remember(call_id, server_id, signature)
        return ToolCall(
            tool_name=str(function.get("name", "")), parameters=arguments, id=call_id, error=error
        )

    def _read_parts(self, data: Any, label: str) -> tuple[list[str], list[ToolCall], str | None]:
        """``(texts, calls, finish_reason)`` of one response (or stream chunk)."""
        if not isinstance(data, dict):
            raise malformed_error(label, self.name, "the reply is not a JSON object")
        candidates = data.get("candidates")
        if not candidates:
            feedback = data.get("promptFeedback") or {}
            reason = feedback.get("blockReason") if isinstance(feedback, dict) else None
            if reason:
                raise ProviderError(
                    f"{label} failed: Gemini blocked the prompt ({reason}); rephrase it",
                    provider=self.name,
                    retryable=False,
                )
            return [], [], None
        candidate = candidates[0]
        content = candidate.get("content") or {}
        texts: list[str] = []
        calls: list[ToolCall] = []
        for part in content.get("parts") or ():
            if not isinstance(part, dict) or part.get("thought"):
                continue
            if isinstance(part.get("text"), str):
                texts.append(part["text"])
            function = part.get("functionCall")
            if isinstance(function, dict):
                calls.append(self._call(function, part.get("thoughtSignature")))
        return texts, calls, candidate.get("finishReason")

    def _usage(self, model: str, metadata: Any) -> UsageStats | None:
        if not isinstance(metadata, dict):
            return None
        # promptTokenCount includes cachedContentTokenCount (the cache reads)
        prompt = int(metadata.get("promptTokenCount") or 0)
        completion = int(metadata.get("candidatesTokenCount") or 0) + int(
            metadata.get("thoughtsTokenCount") or 0
        )
        read = int(metadata.get("cachedContentTokenCount") or 0)
        return UsageStats.priced(model, self.name, prompt, completion, cache_read_tokens=read)

    def _check_blocked(
        self, label: str, texts: list[str], calls: list[ToolCall], finish: Any
    ) -> None:
        if not texts and not calls and finish in _BLOCKED:
            raise ProviderError(
                f"{label} failed: Gemini withheld the reply (finishReason={finish})",
                provider=self.name,
                retryable=False,
            )

    def _parse(self, data: Any, request: LLMRequest) -> tuple[Message, UsageStats]:
        model = request.model
        label = f"{self.label} completion"
        texts, calls, finish = self._read_parts(data, label)
        if not texts and not calls and finish is None:
            raise malformed_error(label, self.name, "no candidates in the reply")
        self._check_blocked(label, texts, calls, finish)
        text = "".join(texts)
        message = Message(role=Role.ASSISTANT, content=text, tool_calls=calls or None)
        usage = self._usage(model, data.get("usageMetadata"))
        return message, usage or estimate_usage(
            model, self.name, request.system_prompt, request.messages, text
        )

    def _stream_state(self, request: LLMRequest) -> _StreamState:
        return _StreamState(self, request)


class _StreamState(JSONStreamState):
    """Reads each streamed ``GenerateContentResponse`` into text, calls and usage."""

    __slots__ = ()
    provider: GeminiProvider

    def read(self, data: Any) -> str:
        provider = self.provider
        error = data.get("error") if isinstance(data, dict) else None
        if isinstance(error, dict):
            code = error.get("code")
            status = code if isinstance(code, int) else 500
            raise provider._http.status_failure(self.label, status, data, None)
        texts, calls, finish = provider._read_parts(data, self.label)
        self.calls.extend(calls)
        usage = provider._usage(self.request.model, data.get("usageMetadata"))
        if usage is not None:
            self.usage = usage
        if finish:
            provider._check_blocked(self.label, self.texts + texts, self.calls, finish)
            self.done = True
        return "".join(texts)
