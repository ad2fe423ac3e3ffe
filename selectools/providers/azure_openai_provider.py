"""``AzureOpenAIProvider``: OpenAI models deployed on Azure OpenAI Service.

It is :class:`OpenAIProvider` with Azure's client: only construction differs,
so completion, streaming, tool calling, multimodal input and usage are the
same code. Azure addresses models by *deployment name*; the deployment is the
provider's ``default_model`` and each request is routed to
``/openai/deployments/{model}/...``, so ``AgentConfig(model="other-deployment")``
also works. Costs are priced with the model Azure reports having served.

Settings fall back to ``AZURE_OPENAI_ENDPOINT``, ``AZURE_OPENAI_API_KEY`` and
``AZURE_OPENAI_DEPLOYMENT`` (environment or ``.env``). ``azure_ad_token``
replaces the key for Azure AD (Entra ID) authentication.
"""

from __future__ import annotations

from typing import Any

from .._env import env_value
from ..exceptions import ProviderConfigurationError
from ..stability import beta
from ._clients import require
from ._secret import Secret
from ._specs import SPECS
from .openai_provider import OpenAIProvider

__all__ = ["AzureOpenAIProvider"]


@beta
class AzureOpenAIProvider(OpenAIProvider):
    """OpenAI chat models on Azure; see the module docstring for settings."""

    name = "azure_openai"
    label = "Azure OpenAI"
    _spec = "azure_openai"
    _key_env = SPECS[_spec].key_env[0]

    def __init__(
        self,
        azure_endpoint: str | None = None,
        api_key: str | None = None,
        api_version: str = "2024-10-21",
        azure_deployment: str | None = None,
        azure_ad_token: str | None = None,
        *,
        timeout: float | None = None,
        max_tokens_param: str | None = None,
        default_headers: dict[str, str] | None = None,
        client: Any = None,
        async_client: Any = None,
        http_client: Any = None,
        async_http_client: Any = None,
    ) -> None:
        self._sdk = require("openai", "openai", "AzureOpenAIProvider")
        self._configure_token_param(max_tokens_param)
        endpoint = azure_endpoint or env_value("AZURE_OPENAI_ENDPOINT")
        deployment = azure_deployment or env_value("AZURE_OPENAI_DEPLOYMENT")
        injected = client is not None
        if not endpoint and not injected:
            raise ProviderConfigurationError(
                "AzureOpenAI",
                "endpoint (https://<resource>.openai.azure.com)",
                "AZURE_OPENAI_ENDPOINT",
                argument="azure_endpoint",
                example="https://<resource>.openai.azure.com",
            )
        if not deployment:
            raise ProviderConfigurationError(
                "AzureOpenAI",
                "deployment name",
                "AZURE_OPENAI_DEPLOYMENT",
                argument="azure_deployment",
                example="your-deployment-name",
            )
        key = api_key or (None if azure_ad_token else env_value(self._key_env))
        if not key and not azure_ad_token and not injected:
            raise ProviderConfigurationError(
                "AzureOpenAI",
                "API key (or azure_ad_token)",
                self._key_env,
                hint="For Azure AD auth pass azure_ad_token=... instead of a key.",
            )
        self.default_model = deployment
        self.base_url = endpoint
        self.api_version = api_version
        self._secret = Secret(key or azure_ad_token or "")
        options: dict[str, Any] = {
            "azure_endpoint": endpoint,
            "api_version": api_version,
            "max_retries": 0,
            "default_headers": default_headers,
        }
        if azure_ad_token:
            options["azure_ad_token"] = azure_ad_token
        else:
            options["api_key"] = key
        if timeout is not None:
            options["timeout"] = timeout
        self.timeout = timeout
        self._bind_clients(
            lambda http: self._sdk.AzureOpenAI(**options, http_client=http),
            lambda http: self._sdk.AsyncAzureOpenAI(**options, http_client=http),
            client,
            async_client,
            http_client,
            async_http_client,
        )
