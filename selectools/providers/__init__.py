"""LLM providers. Network providers are imported lazily, so their SDKs load only when used.

The shipped providers are listed once, in :mod:`._specs`; the lazy exports here
are derived from that table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ._specs import PROVIDER_SPECS

_LAZY: dict[str, str] = {
    **dict.fromkeys(("AnyProvider", "AsyncProvider", "LLMRequest", "Provider"), ".base"),
    "ProviderError": "..exceptions",
    "FallbackProvider": ".fallback",
    **{spec.class_name: f".{spec.module}" for spec in PROVIDER_SPECS},
}

__all__ = [  # the keys of _LAZY (a test checks)
    "AnthropicProvider",
    "AnyProvider",
    "AsyncProvider",
    "AzureOpenAIProvider",
    "FallbackProvider",
    "GeminiProvider",
    "LLMRequest",
    "LocalProvider",
    "OllamaProvider",
    "OpenAIProvider",
    "Provider",
    "ProviderError",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from ..exceptions import ProviderError
    from .anthropic_provider import AnthropicProvider
    from .azure_openai_provider import AzureOpenAIProvider
    from .base import AnyProvider, AsyncProvider, LLMRequest, Provider
    from .fallback import FallbackProvider
    from .gemini_provider import GeminiProvider
    from .ollama_provider import OllamaProvider
    from .openai_provider import OpenAIProvider
    from .stubs import LocalProvider
