"""The one table of providers selectools ships; everything that lists providers reads it.

From :data:`PROVIDER_SPECS` come the lazy exports of ``selectools`` and
``selectools.providers``, :class:`~selectools.providers.FallbackProvider`'s
vendor families, the key variables the providers read, and the notebook's
provider names. Adding a provider is its module, one row here, and a dialect in
the fake LLM server. It imports nothing: ``import selectools`` reads it.
"""

from __future__ import annotations

__all__ = ["PROVIDER_SPECS", "SPECS", "ProviderSpec", "provider_spec"]


class ProviderSpec:
    """One provider: how to find it, which vendor's models it serves, what it needs.

    * ``name``: registry name (``provider=openai`` in the notebook), also the
      provider's ``name`` attribute;
    * ``module``, ``class_name``: where the class lives under ``selectools.providers``;
    * ``family``: the vendor its models are registered under in
      :mod:`selectools.models` (``""``: none);
    * ``key_env``: the variables the API key is read from, in order (empty: no key);
    * ``extra``: the ``pip install "selectools-jupyter[extra]"`` that brings its SDK;
    * ``offline``: it makes no network call.

    A plain slotted class rather than a dataclass or NamedTuple: this module is
    read on ``import selectools``, and building those costs about a millisecond.
    """

    __slots__ = ("class_name", "extra", "family", "key_env", "module", "name", "offline")

    def __init__(
        self,
        name: str,
        module: str,
        class_name: str,
        family: str,
        key_env: tuple[str, ...] = (),
        extra: str = "",
        offline: bool = False,
    ) -> None:
        self.name = name
        self.module = module
        self.class_name = class_name
        self.family = family
        self.key_env = key_env
        self.extra = extra
        self.offline = offline

    def __repr__(self) -> str:
        return f"ProviderSpec({self.name!r}, {self.class_name!r})"

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
