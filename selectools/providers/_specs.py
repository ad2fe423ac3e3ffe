"""The one table of providers selectools ships; everything that lists providers reads it.

From :data:`PROVIDER_SPECS` come the lazy exports of ``selectools`` and
``selectools.providers``, :class:`~selectools.providers.FallbackProvider`'s
vendor families, the key variables the providers read, and the notebook's
provider names. Adding a provider is its module, one row here, and a dialect in
the fake LLM server. It imports nothing beyond ``typing``: ``import selectools`` reads it.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["PROVIDER_SPECS", "SPECS", "ProviderSpec", "provider_spec"]


class ProviderSpec(NamedTuple):
    """One provider: how to find it, which vendor's models it serves, what it needs."""

    name: str
    """Registry name (``provider=openai`` in the notebook); also the provider's ``name``."""
    module: str
    """Module under ``selectools.providers`` that defines the class."""
    class_name: str
    family: str
    """Vendor its models are registered under in :mod:`selectools.models` (``""``: none)."""
    key_env: tuple[str, ...] = ()
    """Variables the API key is read from, in order (empty: no key needed)."""
    extra: str = ""
    """The ``pip install 'selectools[extra]'`` that brings its SDK (empty: none)."""
    offline: bool = False
    """Makes no network call (``local``)."""

    @property
    def import_path(self) -> str:
        return f"selectools.providers.{self.module}"


PROVIDER_SPECS: tuple[ProviderSpec, ...] = (
    ProviderSpec(
        "openai", "openai_provider", "OpenAIProvider", "openai", ("OPENAI_API_KEY",), "openai"
    ),
    ProviderSpec(
        "azure_openai",
        "azure_openai_provider",
        "AzureOpenAIProvider",
        "openai",
        ("AZURE_OPENAI_API_KEY",),
        "openai",
    ),
    ProviderSpec(
        "anthropic",
        "anthropic_provider",
        "AnthropicProvider",
        "anthropic",
        ("ANTHROPIC_API_KEY",),
        "anthropic",
    ),
    ProviderSpec(
        "gemini",
        "gemini_provider",
        "GeminiProvider",
        "gemini",
        ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        "gemini",
    ),
    ProviderSpec("ollama", "ollama_provider", "OllamaProvider", "ollama", (), "ollama"),
    ProviderSpec("local", "stubs", "LocalProvider", "", offline=True),
)

SPECS: dict[str, ProviderSpec] = {spec.name: spec for spec in PROVIDER_SPECS}


def provider_spec(name: str) -> ProviderSpec | None:
    """The spec registered as ``name``, if any."""
    return SPECS.get(name)
