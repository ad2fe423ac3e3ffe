"""Which vendor endpoint a request path is, and what it asks for.

Paths served (POST): OpenAI ``/v1/chat/completions`` and ``/v1/embeddings``
(also without ``/v1``); Azure ``/openai/deployments/{deployment}/chat/completions``
and ``/embeddings``; Anthropic ``/v1/messages``; Gemini
``/v1beta/models/{model}:generateContent``, ``:streamGenerateContent``,
``:embedContent`` and ``:batchEmbedContents`` (``/v1/`` too); Ollama
``/api/chat`` and ``/api/embed``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ._anthropic import AnthropicDialect
from ._dialect import Dialect
from ._gemini import GeminiDialect
from ._ollama import OllamaDialect
from ._openai import OpenAIDialect

__all__ = ["Route", "embedding_inputs", "match_route"]

_OPENAI = OpenAIDialect()
_ANTHROPIC = AnthropicDialect()
_GEMINI = GeminiDialect()
_OLLAMA = OllamaDialect()

_AZURE = re.compile(r"^/openai/deployments/([^/]+)/(chat/completions|embeddings)$")
_GEMINI_PATH = re.compile(
    r"^/v1(?:beta|alpha)?/models/([^/:]+):"
    r"(generateContent|streamGenerateContent|embedContent|batchEmbedContents)$"
)


@dataclass(frozen=True)
class Route:
    vendor: str
    kind: str  # "chat" or "embeddings"
    dialect: Dialect
    model: str | None
    stream: bool


def _body_model(body: Any) -> str | None:
    model = body.get("model") if isinstance(body, dict) else None
    if isinstance(model, str):
        return model
    return None


def _stream_flag(body: Any, default: bool = False) -> bool:
    if isinstance(body, dict) and "stream" in body:
        return bool(body["stream"])
    return default


def match_route(path: str, body: Any) -> Route | None:
    """The route for ``path`` (without query string), or ``None`` if nothing serves it."""
    if path in ("/v1/chat/completions", "/chat/completions"):
        return Route("openai", "chat", _OPENAI, _body_model(body), _stream_flag(body))
    if path in ("/v1/embeddings", "/embeddings"):
        return Route("openai", "embeddings", _OPENAI, _body_model(body), False)
    azure = _AZURE.match(path)
    if azure:
        kind = "chat" if azure.group(2) == "chat/completions" else "embeddings"
        stream = _stream_flag(body) if kind == "chat" else False
        return Route("azure", kind, _OPENAI, azure.group(1), stream)
    if path == "/v1/messages":
        return Route("anthropic", "chat", _ANTHROPIC, _body_model(body), _stream_flag(body))
    gemini = _GEMINI_PATH.match(path)
    if gemini:
        method = gemini.group(2)
        kind = "chat" if method in ("generateContent", "streamGenerateContent") else "embeddings"
        stream = method == "streamGenerateContent"
        return Route("gemini", kind, _GEMINI, gemini.group(1), stream)
    if path == "/api/chat":
        # Ollama streams unless told not to.
        return Route("ollama", "chat", _OLLAMA, _body_model(body), _stream_flag(body, True))
    if path in ("/api/embed", "/api/embeddings"):
        return Route("ollama", "embeddings", _OLLAMA, _body_model(body), False)
    return None


def embedding_inputs(vendor: str, body: Any) -> list[str]:
    """The texts an embeddings request asks to embed."""
    if not isinstance(body, dict):
        return []
    if vendor == "gemini":
        requests = body.get("requests")
        contents = (
            [r.get("content", {}) for r in requests]
            if isinstance(requests, list)
            else [body.get("content", {})]
        )
        return [
            "".join(str(p.get("text", "")) for p in (c.get("parts") or []) if isinstance(p, dict))
            for c in contents
            if isinstance(c, dict)
        ]
    raw = body.get("input", body.get("prompt", ""))
    if isinstance(raw, str):
        return [raw]
    if isinstance(raw, list):
        return [item if isinstance(item, str) else str(item) for item in raw]
    return []
