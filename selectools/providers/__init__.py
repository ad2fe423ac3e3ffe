"""LLM providers. Network providers are imported lazily, so their SDKs load only when used."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .base import Provider, ProviderError
from .stubs import LocalProvider

__all__ = [
    "AnthropicProvider",
    "AzureOpenAIProvider",
    "FallbackProvider",
    "GeminiProvider",
    "LocalProvider",
    "OllamaProvider",
    "OpenAIProvider",
    "Provider",
    "ProviderError",
]

_LAZY: dict[str, str] = {
    "OpenAIProvider": ".openai_provider",
    "AzureOpenAIProvider": ".azure_openai_provider",
    "AnthropicProvider": ".anthropic_provider",
    "GeminiProvider": ".gemini_provider",
    "OllamaProvider": ".ollama_provider",
    "FallbackProvider": ".fallback",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'selectools.providers' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name, __name__), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .anthropic_provider import AnthropicProvider
    from .azure_openai_provider import AzureOpenAIProvider
    from .fallback import FallbackProvider
    from .gemini_provider import GeminiProvider
    from .ollama_provider import OllamaProvider
    from .openai_provider import OpenAIProvider
