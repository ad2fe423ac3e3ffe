"""What the TOOLS, OTEL and LANGFUSE pages promise about building a tool.

``Tool(...)`` is the page's non-decorator way to build the same object as
``@tool``, so it takes the same flags. The OTEL and LANGFUSE pages decorate a
function without a docstring with ``@tool()``: it gets a generated description,
while an explicitly empty description stays an error (the TOOLS page's
validation rule).
"""

from __future__ import annotations

from typing import Any

import pytest

from selectools import Agent, AgentConfig, Tool, ToolConfig, ToolParameter, tool
from selectools.exceptions import ToolValidationError
from selectools.testing import ScriptedProvider, tool_call


def _price(item: str) -> str:
    return f"{item}: $5"


def _price_tool(**flags: Any) -> Tool:
    return Tool(
        name="price",
        description="Look up a price",
        parameters=[ToolParameter(name="item", param_type=str, description="what to price")],
        function=_price,
        **flags,
    )


def test_tool_constructor_takes_the_decorator_flags() -> None:
    made = _price_tool(terminal=True, requires_approval=True, streaming=True, screen_output=True)
    assert (made.terminal, made.requires_approval, made.streaming, made.screen_output) == (
        True,
        True,
        True,
        True,
    )
    plain = _price_tool()
    assert (plain.terminal, plain.requires_approval, plain.streaming, plain.screen_output) == (
        False,
        False,
        False,
        False,
    )

    @tool(terminal=True, requires_approval=True)
    def price(item: str) -> str:
        """Look up a price."""
        return _price(item)

    assert (price.terminal, price.requires_approval) == (made.terminal, made.requires_approval)


def test_a_terminal_tool_built_by_hand_ends_the_run() -> None:
    provider = ScriptedProvider([tool_call("price", item="pen"), "never asked"])
    result = Agent(tools=[_price_tool(terminal=True)], provider=provider).run("price?")
    assert result.content == "pen: $5"
    assert len(provider.requests) == 1


def test_a_tool_built_by_hand_that_requires_approval_asks_first() -> None:
    asked: list[str] = []

    def handler(request: Any) -> bool:
        asked.append(request.tool_name)
        return False

    provider = ScriptedProvider([tool_call("price", item="pen"), "done"])
    config = AgentConfig(tool=ToolConfig(approval_handler=handler))
    agent = Agent(tools=[_price_tool(requires_approval=True)], provider=provider, config=config)
    result = agent.run("price?")
    assert asked == ["price"]
    assert "pen: $5" not in provider.requests[1].messages[-1].content
    assert result.content == "done"


def test_a_function_without_docstring_gets_a_generated_description() -> None:
    # the OTEL / LANGFUSE pages' main example
    @tool()
    def search(query: str) -> str:
        return f"Results for {query}"

    assert search.description == "Tool search(query)"
    assert search.schema()["description"] == "Tool search(query)"

    @tool
    def ping() -> str:
        return "pong"

    assert ping.description == "Tool ping()"
    provider = ScriptedProvider([tool_call("search", query="python"), "found"])
    assert Agent(tools=[search], provider=provider).run("find").content == "found"
    assert provider.requests[1].messages[-1].content == "Results for python"


def test_a_docstring_or_description_wins_over_the_generated_one() -> None:
    @tool()
    def documented(query: str) -> str:
        """Search the catalogue."""
        return query

    @tool(description="Search the web")
    def described(query: str) -> str:
        return query

    assert documented.description == "Search the catalogue."
    assert described.description == "Search the web"


@pytest.mark.parametrize("empty", ["", "   \n"])
def test_an_explicitly_empty_description_is_still_an_error(empty: str) -> None:
    with pytest.raises(ToolValidationError, match="description cannot be empty"):

        @tool(description=empty)
        def search(query: str) -> str:
            return query

    with pytest.raises(ToolValidationError, match="description cannot be empty"):
        Tool(name="search", description=empty, parameters=[], function=lambda: "")
