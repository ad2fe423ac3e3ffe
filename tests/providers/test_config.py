"""Where providers find their keys and URLs, and the errors when something is missing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from selectools import (
    AnthropicProvider,
    AzureOpenAIProvider,
    GeminiProvider,
    OllamaProvider,
    OpenAIProvider,
    ProviderConfigurationError,
)
from selectools.embeddings import (
    GeminiEmbeddingProvider,
    OllamaEmbeddingProvider,
    OpenAIEmbedder,
    OpenAIEmbeddingProvider,
    OpenAIEmbeddings,
)
from selectools.providers.ollama_provider import normalize_host
from selectools.types import Message, Role

ROOT = Path(__file__).resolve().parents[2]
HI = [Message(role=Role.USER, content="hi")]


@pytest.mark.parametrize(
    ("build", "variable"),
    [
        (OpenAIProvider, "OPENAI_API_KEY"),
        (AnthropicProvider, "ANTHROPIC_API_KEY"),
        (GeminiProvider, "GEMINI_API_KEY"),
        (OpenAIEmbeddingProvider, "OPENAI_API_KEY"),
        (GeminiEmbeddingProvider, "GEMINI_API_KEY"),
    ],
)
def test_missing_key_names_the_variable_to_set(build, variable):
    with pytest.raises(ProviderConfigurationError) as caught:
        build()
    assert caught.value.env_var == variable
    assert f"export {variable}=" in str(caught.value)


def test_azure_names_each_missing_setting(monkeypatch):
    with pytest.raises(ProviderConfigurationError, match="AZURE_OPENAI_ENDPOINT"):
        AzureOpenAIProvider(api_key="k", azure_deployment="d")
    with pytest.raises(ProviderConfigurationError, match="AZURE_OPENAI_DEPLOYMENT"):
        AzureOpenAIProvider(azure_endpoint="https://x.openai.azure.com", api_key="k")
    with pytest.raises(ProviderConfigurationError, match="AZURE_OPENAI_API_KEY"):
        AzureOpenAIProvider(azure_endpoint="https://x.openai.azure.com", azure_deployment="d")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://x.openai.azure.com")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "k")
    monkeypatch.setenv("AZURE_OPENAI_DEPLOYMENT", "gpt-4o")
    provider = AzureOpenAIProvider()
    assert provider.default_model == "gpt-4o" and provider.api_version == "2024-10-21"


def test_keys_and_urls_come_from_the_environment(monkeypatch, server):
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("GOOGLE_API_KEY", "google-key")
    monkeypatch.setenv("GEMINI_BASE_URL", server.gemini_base_url)
    server.add("from openai", "from gemini")
    assert OpenAIProvider().complete(messages=HI)[0].content == "from openai"
    assert server.last_request.header("authorization") == "Bearer env-key"
    assert GeminiProvider().complete(messages=HI)[0].content == "from gemini"
    assert server.last_request.header("x-goog-api-key") == "google-key"


def test_a_dotenv_file_in_the_working_directory_is_read(clean_env, server):
    (clean_env / ".env").write_text(
        "# provider settings\n"
        f"export ANTHROPIC_API_KEY='from-dotenv'\n"
        f'ANTHROPIC_BASE_URL="{server.anthropic_base_url}"  \n'
    )
    server.add("hello")
    provider = AnthropicProvider()
    assert provider.complete(messages=HI)[0].content == "hello"
    assert server.last_request.header("authorization") == "Bearer from-dotenv"


def test_the_environment_wins_over_dotenv(clean_env, monkeypatch, server):
    (clean_env / ".env").write_text("OPENAI_API_KEY=from-file\n")
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    server.add("ok")
    OpenAIProvider(base_url=server.openai_base_url).complete(messages=HI)
    assert server.last_request.header("authorization") == "Bearer from-env"


def test_model_is_an_alias_of_default_model():
    assert OpenAIProvider(api_key="k", model="gpt-4o").default_model == "gpt-4o"
    assert AnthropicProvider(api_key="k", model="claude-haiku").default_model == "claude-haiku"
    assert GeminiProvider(api_key="k", model="gemini-2.0-flash").default_model == "gemini-2.0-flash"
    assert OllamaProvider(model="mistral").default_model == "mistral"


def test_documented_defaults():
    assert OpenAIProvider(api_key="k").default_model == "gpt-5-mini"
    assert GeminiProvider(api_key="k").default_model == "gemini-2.5-flash"
    assert OllamaProvider().default_model == "llama3.2"
    assert OllamaProvider().host == "http://localhost:11434"
    assert OpenAIEmbeddingProvider(api_key="k").model == "text-embedding-3-small"
    assert OpenAIEmbedder is OpenAIEmbeddingProvider is OpenAIEmbeddings


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("http://localhost:11434", "http://localhost:11434"),
        ("localhost:11434", "http://localhost:11434"),
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("0.0.0.0:8080", "http://127.0.0.1:8080"),
        ("ollama.internal", "http://ollama.internal:11434"),
        ("https://ollama.example.com/", "https://ollama.example.com"),
        ("http://gpu-box:11434/proxy/", "http://gpu-box:11434/proxy"),
    ],
)
def test_ollama_host_spellings(given, expected):
    assert normalize_host(given) == expected


def test_ollama_host_from_the_environment(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "0.0.0.0:9999")
    assert OllamaProvider().host == "http://127.0.0.1:9999"
    assert OllamaEmbeddingProvider().host == "http://127.0.0.1:9999"


def test_reprs_are_short_and_deterministic(server):
    assert repr(OpenAIProvider(api_key="k")) == "OpenAIProvider(default_model='gpt-5-mini')"
    provider = AnthropicProvider(api_key="k", base_url="https://u:p@proxy.test/anthropic?x=1")
    assert repr(provider) == (
        "AnthropicProvider(default_model='claude-sonnet-4-6', "
        "base_url='https://proxy.test/anthropic')"
    )
    assert repr(OllamaProvider()) == (
        "OllamaProvider(host='http://localhost:11434', default_model='llama3.2')"
    )


def _run_python(code: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", **(env_extra or {})}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, check=False
    )


def test_importing_providers_and_embeddings_loads_no_sdk():
    code = (
        "import sys, json, selectools, selectools.providers, selectools.embeddings, "
        "selectools.testing\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    loaded = set(json.loads(_run_python(code).stdout.splitlines()[-1]))
    assert not loaded & {"openai", "anthropic", "httpx", "httpx2", "http.server"}


def test_a_missing_sdk_names_the_extra_to_install():
    code = (
        "import sys\n"
        "sys.modules['openai'] = None\n"
        "sys.modules['httpx'] = None\n"
        "from selectools import OpenAIProvider, GeminiProvider\n"
        "for build in (lambda: OpenAIProvider(api_key='k'), lambda: GeminiProvider(api_key='k')):\n"
        "    try:\n"
        "        build()\n"
        "    except ImportError as exc:\n"
        "        print(exc)\n"
    )
    output = _run_python(code).stdout
    # the extra's own packages, never the other project that owns "selectools" on the index
    assert "pip install \"openai>=1.30\" (the 'openai' extra of selectools-jupyter)" in output
    assert "pip install \"httpx>=0.27\" (the 'gemini' extra of selectools-jupyter)" in output
    assert "selectools[" not in output
