"""ToolRegistry: registration order, lookup, replacement on re-run."""

from __future__ import annotations

import pytest

from selectools.tools import Tool, ToolRegistry, tool


def test_registry_basics() -> None:
    registry = ToolRegistry()

    @registry.tool(description="Add numbers")
    def add(a: int, b: int) -> str:
        return str(a + b)

    @registry.tool
    def search(query: str) -> str:
        """Search the web."""
        return f"Results for: {query}"

    assert isinstance(add, Tool)
    assert add(1, 2) == "3"
    assert len(registry) == 2
    assert len(registry.all()) == 2
    assert registry.get("search").name == "search"
    assert registry.names == ["add", "search"]
    assert [t.name for t in registry] == ["add", "search"]
    assert "add" in registry
    assert add in registry
    assert "nope" not in registry
    assert repr(registry) == "ToolRegistry(['add', 'search'])"


def test_get_unknown_names_the_available_tools() -> None:
    registry = ToolRegistry()
    registry.tool(description="d")(lambda_free_add)
    with pytest.raises(KeyError) as info:
        registry.get("ad")
    assert info.value.args[0] == "No tool named 'ad'. Available tools: 'lambda_free_add'"
    with pytest.raises(KeyError) as info:
        registry.get("lambda_free_ad")
    assert info.value.args[0].endswith(". Did you mean 'lambda_free_add'?")
    with pytest.raises(KeyError, match="Available tools: none"):
        ToolRegistry().get("x")


def lambda_free_add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


def test_register_and_remove() -> None:
    def mul(a: int, b: int) -> str:
        """Multiply."""
        return str(a * b)

    registry = ToolRegistry()
    made = registry.register(mul)
    assert isinstance(made, Tool)
    existing = tool(description="Sub")(lambda_free_add)
    assert registry.register(existing) is existing
    assert registry.names == ["mul", "lambda_free_add"]
    assert registry.remove("mul") is made
    assert registry.names == ["lambda_free_add"]
    with pytest.raises(KeyError):
        registry.remove("mul")


def test_reregistering_a_name_replaces_in_place() -> None:
    registry = ToolRegistry()

    @registry.tool(description="v1")
    def first(x: str) -> str:
        return "1"

    @registry.tool(description="other")
    def second(x: str) -> str:
        return "2"

    @registry.tool(description="v2")
    def first(x: str) -> str:  # noqa: F811 - a re-run notebook cell
        return "1b"

    assert registry.names == ["first", "second"]
    assert registry.get("first").description == "v2"
    assert registry.get("first").execute({"x": ""}) == "1b"


def test_registries_concatenate_and_accept_initial_tools() -> None:
    math_registry = ToolRegistry()
    web_registry = ToolRegistry([lambda_free_add])

    @math_registry.tool(description="Add")
    def add(a: int, b: int) -> str:
        return str(a + b)

    all_tools = math_registry.all() + web_registry.all()
    assert [t.name for t in all_tools] == ["add", "lambda_free_add"]
    all_tools.clear()
    assert len(math_registry) == 1


def _named_tool(name: str):
    def echo(text: str) -> str:
        return text

    return tool(name=name, description=f"{name} echoes")(echo)


def test_a_handed_out_mapping_keeps_its_tools_while_the_registry_changes():
    registry = ToolRegistry([_named_tool("a"), _named_tool("b")])
    before = registry.mapping()
    registry.register(_named_tool("c"))
    registry.register(_named_tool("d"))
    removed = registry.remove("a")
    assert list(before) == ["a", "b"] and before["a"] is removed
    after = registry.mapping()
    assert list(after) == ["b", "c", "d"]
    registry.register(_named_tool("b"))  # replacing keeps the order, in a new mapping
    assert list(after) == ["b", "c", "d"] and after["b"] is not registry.get("b")
    assert list(registry.mapping()) == ["b", "c", "d"]
