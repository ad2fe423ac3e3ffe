import pickle

import pytest

from selectools import (
    MemoryLimitExceededError,
    ProviderConfigurationError,
    ProviderError,
    SelectoolsError,
    ToolExecutionError,
    ToolValidationError,
)
from selectools.providers.base import ProviderError as ProviderErrorFromBase

RULE = "=" * 60


@pytest.mark.parametrize(
    "cls",
    [
        ToolValidationError,
        ToolExecutionError,
        ProviderConfigurationError,
        MemoryLimitExceededError,
        ProviderError,
    ],
)
def test_every_error_is_a_selectools_error(cls):
    assert issubclass(cls, SelectoolsError)


def test_provider_error_is_importable_from_providers_base():
    assert ProviderErrorFromBase is ProviderError


def test_tool_validation_error_layout_and_attributes():
    err = ToolValidationError(
        tool_name="search",
        param_name="limit",
        issue="Expected int, got str",
        suggestion="Pass an integer value for 'limit'",
    )
    text = str(err)
    assert (err.tool_name, err.param_name, err.issue) == (
        "search",
        "limit",
        "Expected int, got str",
    )
    assert err.suggestion == "Pass an integer value for 'limit'"
    assert f"{RULE}\n❌ Tool Validation Error: 'search'\n{RULE}" in text
    assert (
        "Parameter: limit\nIssue: Expected int, got str\n\n💡 Suggestion: Pass an integer value for 'limit'"
        in text
    )
    assert text.rstrip().endswith(RULE)


def test_tool_execution_error_keeps_the_original_and_params():
    original = ConnectionError("Could not reach api.example.com")
    err = ToolExecutionError("fetch_data", original, {"url": "https://api.example.com/data"})
    text = str(err)
    assert err.error is original
    assert "❌ Tool Execution Failed: 'fetch_data'" in text
    assert "Error: ConnectionError: Could not reach api.example.com" in text
    assert "Parameters: {'url': 'https://api.example.com/data'}" in text
    assert "💡 Check that:\n  - All required parameters are provided" in text


def test_provider_configuration_error_names_the_variable():
    err = ProviderConfigurationError("OpenAI", "API key", "OPENAI_API_KEY")
    text = str(err)
    assert (err.provider_name, err.missing_config, err.env_var) == (
        "OpenAI",
        "API key",
        "OPENAI_API_KEY",
    )
    assert "❌ Provider Configuration Error: 'OpenAI'" in text
    assert "export OPENAI_API_KEY='your-api-key'" in text
    assert "provider = OpenAIProvider(api_key='your-api-key')" in text


def test_memory_limit_error():
    err = MemoryLimitExceededError(current=40, limit=20, limit_type="messages")
    text = str(err)
    assert "⚠️  Memory Limit Exceeded" in text
    assert "Limit Type: messages\nCurrent: 40\nLimit: 20" in text
    assert "ConversationMemory(max_messages=40)" in text


def test_provider_error_rate_limit_detection():
    assert ProviderError("HTTP 429 Too Many Requests").is_rate_limit
    assert ProviderError("Rate limit reached").is_rate_limit
    assert ProviderError("oops", status_code=429).is_rate_limit
    assert not ProviderError("server error", status_code=500).is_rate_limit


@pytest.mark.parametrize(
    "error",
    [
        ToolValidationError("t", "p", "issue", "fix", ["a"]),
        ToolExecutionError("t", ValueError("x"), {"a": 1}),
        ProviderConfigurationError("OpenAI", "API key", "OPENAI_API_KEY"),
        ProviderError("boom", provider="openai", status_code=503, retry_after=2.0),
        MemoryLimitExceededError(3, 2),
    ],
)
def test_errors_survive_pickling(error):
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert str(copy) == str(error)
