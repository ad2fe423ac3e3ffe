"""Fixtures for provider tests: a FakeLLMServer per test, a clean environment, provider factories.

Every provider is built with a real SDK / httpx client pointed at the fake
server on 127.0.0.1, so these tests exercise the actual wire protocols and
never touch the internet.
"""

from __future__ import annotations

import pytest

from selectools import (
    AgentConfig,
    AnthropicProvider,
    AzureOpenAIProvider,
    GeminiProvider,
    OllamaProvider,
    OpenAIProvider,
)
from selectools.testing import FakeLLMServer

VENDORS = ["openai", "azure", "anthropic", "gemini", "ollama"]
# What providers report as UsageStats.provider / provider_used.
PROVIDER_NAMES = {
    "openai": "openai",
    "azure": "azure_openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "ollama": "ollama",
}
KEY = "sk-test-SUPERSECRET-0123456789abcdef"

_PROVIDER_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GEMINI_BASE_URL",
    "GOOGLE_GEMINI_BASE_URL",
    "OLLAMA_HOST",
    "AZURE_OPENAI_ENDPOINT",
    "AZURE_OPENAI_API_KEY",
    "AZURE_OPENAI_DEPLOYMENT",
    "AZURE_OPENAI_AD_TOKEN",
    "OPENAI_API_VERSION",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    """No provider variable leaks in from the developer's shell, and no ./.env is read."""
    for name in _PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture(scope="session")
def shared_server():
    with FakeLLMServer() as fake:
        yield fake


@pytest.fixture
def server(shared_server):
    """The session's FakeLLMServer, with an empty script and no recorded requests."""
    shared_server.reset()
    shared_server.default = None
    shared_server.api_key = None
    return shared_server


_PROVIDERS: dict[tuple[str, str], object] = {}


def make_provider(vendor: str, server: FakeLLMServer, **options):
    """A provider of ``vendor`` talking to ``server`` (extra options go to its constructor).

    Without options the provider is built once per server and reused: building SDK
    clients costs tens of milliseconds, and providers keep no per-run state.
    """
    if options:
        return _build(vendor, server, **options)
    key = (vendor, server.url)
    if key not in _PROVIDERS:
        _PROVIDERS[key] = _build(vendor, server)
    return _PROVIDERS[key]


def _build(vendor: str, server: FakeLLMServer, **options):
    if vendor == "openai":
        return OpenAIProvider(api_key=KEY, base_url=server.openai_base_url, **options)
    if vendor == "azure":
        return AzureOpenAIProvider(
            azure_endpoint=server.azure_endpoint, api_key=KEY, azure_deployment="gpt-4o", **options
        )
    if vendor == "anthropic":
        return AnthropicProvider(api_key=KEY, base_url=server.anthropic_base_url, **options)
    if vendor == "gemini":
        return GeminiProvider(api_key=KEY, base_url=server.gemini_base_url, **options)
    if vendor == "ollama":
        return OllamaProvider(host=server.ollama_host, **options)
    raise ValueError(vendor)


def fast_config(**overrides) -> AgentConfig:
    """An AgentConfig that retries without sleeping and times out quickly."""
    options = {
        "max_iterations": 4,
        "max_retries": 2,
        "retry_backoff_seconds": 0.0,
        "rate_limit_cooldown_seconds": 0.0,
        "request_timeout": 5.0,
    }
    options.update(overrides)
    return AgentConfig(**options)
