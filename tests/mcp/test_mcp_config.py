"""MCPServerConfig: documented defaults, derived names, and clear errors for bad input."""

from __future__ import annotations

import pytest

from selectools.exceptions import SelectoolsError
from selectools.mcp import (
    MCPCircuitOpenError,
    MCPConnectionError,
    MCPError,
    MCPServerConfig,
    MCPTimeoutError,
    MCPToolError,
)


def test_documented_defaults() -> None:
    config = MCPServerConfig(command="python", args=["my_server.py"])
    assert (config.transport, config.timeout, config.max_retries) == ("stdio", 30.0, 2)
    assert config.auto_reconnect is True
    assert (config.circuit_breaker_threshold, config.circuit_breaker_cooldown) == (3, 60.0)
    assert config.screen_output is True
    assert config.cache_tools is True
    assert config.headers is None
    assert config.retry_backoff == 1.0


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"command": "python", "args": ["math_server.py"]}, "math_server"),
        ({"command": "python", "args": ["-u", "servers/search.py"]}, "search"),
        ({"command": "npx", "args": ["-y", "@acme/mcp-files", "/tmp"]}, "mcp-files"),
        ({"command": "uvx", "args": ["mcp-server-fetch"]}, "mcp-server-fetch"),
        ({"command": "my-server"}, "my-server"),
        ({"url": "http://api.example.com/mcp", "transport": "streamable-http"}, "api_example_com"),
        ({"command": "python", "args": ["s.py"], "name": "my tools!"}, "my_tools"),
    ],
)
def test_names_are_readable_and_usable_as_tool_prefixes(options: dict, name: str) -> None:
    assert MCPServerConfig(**options).name == name


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "stdio transport needs command="),
        ({"url": "http://x/mcp"}, "needs transport='streamable-http'"),
        ({"transport": "sse", "url": "http://x"}, "transport must be one of"),
        ({"transport": "streamable-http"}, "needs url="),
        ({"transport": "streamable-http", "url": "ftp://x"}, "must start with http"),
        ({"command": "python", "timeout": 0}, "timeout must be > 0"),
        ({"command": "python", "max_retries": -1}, "max_retries"),
        ({"command": "python", "circuit_breaker_threshold": 0}, "circuit_breaker_threshold"),
        ({"command": "python", "args": "server.py"}, "args must be a list"),
    ],
)
def test_bad_configs_fail_where_they_are_written(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        MCPServerConfig(**options)


def test_error_hierarchy() -> None:
    assert issubclass(MCPError, SelectoolsError)
    assert issubclass(MCPConnectionError, MCPError)
    assert issubclass(MCPCircuitOpenError, MCPConnectionError)
    assert issubclass(MCPToolError, MCPError)
    assert issubclass(MCPTimeoutError, MCPToolError)


def test_mcp_client_wants_a_config() -> None:
    from selectools.mcp import MCPClient

    with pytest.raises(TypeError, match="MCPServerConfig"):
        MCPClient({"command": "python"})  # type: ignore[arg-type]
