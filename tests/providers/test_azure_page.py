"""The AZURE_OPENAI page: the environment fallbacks, and a fix hint that names the missing setting.

A missing deployment must point at ``AZURE_OPENAI_DEPLOYMENT`` and
``azure_deployment=``, not at an API key; the endpoint likewise at
``azure_endpoint=``. With the three variables the page lists,
``AzureOpenAIProvider()`` answers through the deployment (fake LLM server).
"""

from __future__ import annotations

import pickle

import pytest

from selectools import Agent, AzureOpenAIProvider, ProviderConfigurationError

ENDPOINT = "https://my-resource.openai.azure.com"


@pytest.fixture
def no_azure_env(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    for name in ("AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_DEPLOYMENT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env of the checkout


def _fix(error: ProviderConfigurationError) -> str:
    return str(error).split("How to fix:", 1)[1]


def test_a_missing_deployment_names_its_variable_and_argument(no_azure_env) -> None:
    with pytest.raises(ProviderConfigurationError) as caught:
        AzureOpenAIProvider(azure_endpoint=ENDPOINT, api_key="k")
    fix = _fix(caught.value)
    assert "export AZURE_OPENAI_DEPLOYMENT='your-deployment-name'" in fix
    assert "AzureOpenAIProvider(azure_deployment='your-deployment-name')" in fix
    assert "api_key" not in fix and "your-api-key" not in fix
    again = pickle.loads(pickle.dumps(caught.value))
    assert str(again) == str(caught.value)


def test_a_missing_endpoint_names_its_variable_and_argument(no_azure_env) -> None:
    with pytest.raises(ProviderConfigurationError) as caught:
        AzureOpenAIProvider(api_key="k", azure_deployment="gpt-4o")
    fix = _fix(caught.value)
    assert "export AZURE_OPENAI_ENDPOINT='https://<resource>.openai.azure.com'" in fix
    assert "AzureOpenAIProvider(azure_endpoint='https://<resource>.openai.azure.com')" in fix
    assert "api_key" not in fix


def test_a_missing_key_still_asks_for_the_key(no_azure_env) -> None:
    with pytest.raises(ProviderConfigurationError) as caught:
        AzureOpenAIProvider(azure_endpoint=ENDPOINT, azure_deployment="gpt-4o")
    fix = _fix(caught.value)
    assert "export AZURE_OPENAI_API_KEY='your-api-key'" in fix
    assert "AzureOpenAIProvider(api_key='your-api-key')" in fix


def test_the_pages_environment_variables_are_enough(no_azure_env, monkeypatch, server) -> None:
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", server.azure_endpoint)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-key")
    monkeypatch.setenv("AZURE_OPENAI_DEPLOYMENT", "my-gpt4o")
    server.add("Hello from Azure.")
    provider = AzureOpenAIProvider()  # reads everything from the environment
    assert provider.default_model == "my-gpt4o"
    assert Agent(provider=provider).run("hi").content == "Hello from Azure."
    (request,) = server.requests
    assert request.vendor == "azure"
    assert "/openai/deployments/my-gpt4o/" in request.path
    assert request.header("api-key") == "azure-key"
