"""@tool forms, the Tool that still behaves like the function, definition-time errors."""

from __future__ import annotations

import ast
import copy
import functools
import pickle
import subprocess
import sys
import timeit
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import selectools.tools._options
from selectools.exceptions import ToolValidationError
from selectools.tools import Tool, ToolOptions, ToolParameter, ToolRegistry, tool


@tool
def get_price(product: str, quantity: int = 1) -> float:
    """Look up the price of a product."""
    return 9.5 * quantity


def test_acceptance_basic_inference() -> None:
    @tool()
    def f(x: int, y: str = "a") -> str:
        """Do f."""
        return ""

    assert isinstance(f, Tool)
    assert f.name == "f"
    assert f.description == "Do f."
    params = f.schema()["parameters"]
    assert params["properties"]["x"]["type"] == "integer"
    assert params["properties"]["y"]["type"] == "string"
    assert params["required"] == ["x"]


def test_bare_empty_and_keyword_forms() -> None:
    def fn(a: int) -> str:
        """Fn."""
        return str(a)

    for made in (tool(fn), tool()(fn), tool(name="renamed", terminal=True)(fn)):
        assert isinstance(made, Tool)
        assert made.execute({"a": 1}) == "1"
    assert tool(name="renamed")(fn).name == "renamed"


def test_tool_is_still_callable_like_the_function() -> None:
    assert get_price("laptop") == 9.5
    assert get_price("laptop", quantity=2) == 19.0
    assert get_price.execute({"product": "laptop", "quantity": 2}) == "19.0"
    assert get_price.__name__ == "get_price"
    assert get_price.__qualname__ == "get_price"
    assert get_price.__doc__ == "Look up the price of a product."
    assert get_price.__module__ == __name__
    assert get_price.__wrapped__ is get_price.function
    assert callable(get_price)


def test_async_tool_call_returns_the_coroutine() -> None:
    import asyncio

    @tool
    async def fetch(url: str) -> str:
        """Fetch."""
        return url

    assert asyncio.run(fetch("u")) == "u"


def test_flags_and_defaults() -> None:
    @tool(description="d")
    def plain(x: str) -> str:
        return x

    assert (plain.terminal, plain.streaming, plain.requires_approval) == (False, False, False)
    assert plain.is_async is False
    assert plain.injected_kwargs == {}
    assert plain.config_injector is None

    @tool(terminal=True, requires_approval=True, streaming=True)
    def flagged(x: str) -> str:
        """Flagged."""
        return x

    assert (flagged.terminal, flagged.streaming, flagged.requires_approval) == (True, True, True)


def test_an_unknown_option_is_named_with_the_options_there_are() -> None:
    with pytest.raises(
        TypeError, match=r"unexpected option\(s\) 'screen_outputs'; its options are: name"
    ):
        tool(screen_outputs=True)
    with pytest.raises(TypeError, match=r"@registry.tool\(\) got unexpected option\(s\) 'bogus'"):
        ToolRegistry().tool(bogus=1)


def test_tool_options_are_one_value_passed_through() -> None:
    options = ToolOptions(terminal=True, requires_approval=True, injected_kwargs={"key": "k"})

    def f(x: str, key: str) -> str:
        """F."""
        return x + key

    made = Tool("f", "F.", [ToolParameter("x", str, "x")], f, options=options)
    assert (made.terminal, made.requires_approval, made.injected_kwargs) == (
        True,
        True,
        {"key": "k"},
    )
    assert made.execute({"x": "a"}) == "ak"


def test_the_typed_keywords_match_the_options() -> None:
    """``ToolKeywords`` (type checkers only) spells the same fields as ``ToolOptions``."""
    tree = ast.parse(Path(selectools.tools._options.__file__).read_text())
    keywords = next(
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and node.name == "ToolKeywords"
    )
    names = [n.target.id for n in keywords.body if isinstance(n, ast.AnnAssign)]
    assert names == [f.name for f in fields(ToolOptions)]


def test_repr_is_short_and_deterministic() -> None:
    assert repr(get_price) == "Tool(name='get_price', parameters=['product', 'quantity'])"
    assert "0x" not in repr(get_price.parameters[0])
    assert repr(get_price.parameters[1]) == (
        "ToolParameter(name='quantity', param_type=int, required=False)"
    )


def test_source_is_available_and_assignable() -> None:
    assert get_price.source is not None
    assert get_price.source.startswith("@tool\ndef get_price(")
    exec_ns: dict[str, Any] = {"tool": tool}
    exec("@tool\ndef made_in_a_cell(x: str) -> str:\n    'Doc.'\n    return x\n", exec_ns)
    cell_tool = exec_ns["made_in_a_cell"]
    assert cell_tool.source is None
    cell_tool.source = "def made_in_a_cell(x): ..."
    assert cell_tool.source == "def made_in_a_cell(x): ..."


def test_module_level_tool_pickles_by_reference() -> None:
    assert pickle.loads(pickle.dumps(get_price)) is get_price
    assert copy.deepcopy(get_price) is get_price


def test_local_types_resolve_under_future_annotations() -> None:
    class Point(BaseModel):
        x: int
        y: int

    @tool
    def norm(p: Point) -> str:
        """Norm."""
        return str(abs(p.x) + abs(p.y))

    assert norm.execute({"p": {"x": 3, "y": -4}}) == "7"
    assert norm.schema()["parameters"]["properties"]["p"]["required"] == ["x", "y"]


def test_unresolvable_hint_is_a_clear_error() -> None:
    with pytest.raises(ToolValidationError, match="Cannot resolve the type hint 'Missing'"):

        @tool(description="d")
        def f(x: Missing) -> str:  # type: ignore[name-defined]  # noqa: F821
            return ""


def test_unresolvable_return_hint_is_ignored() -> None:
    @tool(description="d")
    def f(x: int) -> NotDefinedAnywhere:  # type: ignore[name-defined]  # noqa: F821
        return x

    assert f.execute({"x": 1}) == "1"


def test_partial_and_decorating_a_tool() -> None:
    def scale(x: int, factor: int) -> str:
        """Scale x."""
        return str(x * factor)

    doubled = tool(name="double")(functools.partial(scale, factor=2))
    assert doubled.description == "Scale x."
    assert doubled.execute({"x": 4}) == "8"
    again = tool(name="again")(get_price)
    assert again.function is get_price.function


def test_positional_only_without_default_is_rejected() -> None:
    with pytest.raises(ToolValidationError, match="Positional-only"):

        @tool(description="d")
        def f(x: int, /) -> str:
            return ""


def test_options_misuse() -> None:
    with pytest.raises(TypeError, match="@tool expects a function"):
        tool("description")  # type: ignore[call-overload]


# -- definition-time errors (acceptance check 17) ------------------------------------------


def _fn(a: str, b: str = "") -> str:
    return a


@pytest.mark.parametrize(
    ("kwargs", "issue"),
    [
        ({"name": ""}, "Tool name cannot be empty"),
        ({"name": "   "}, "Tool name cannot be empty"),
        ({"description": ""}, "Tool description cannot be empty"),
        ({"description": " \n"}, "Tool description cannot be empty"),
        (
            {"parameters": [ToolParameter("a", str, "A"), ToolParameter("a", str, "A again")]},
            "Duplicate parameter name(s)",
        ),
        ({"parameters": [ToolParameter("a", set, "A")]}, "Unsupported parameter type"),
        ({"parameters": [ToolParameter("zzz", str, "Z")]}, "Parameter not found"),
        ({"parameters": [ToolParameter("", str, "A")]}, "Parameter name cannot be empty"),
        ({"parameters": [ToolParameter("a", str, "")]}, "Parameter description cannot be empty"),
        ({"injected_kwargs": {"nope": 1}}, "Injected argument not found"),
        ({"function": 42}, "Tool function is not callable"),
    ],
)
def test_definition_errors(kwargs: dict[str, Any], issue: str) -> None:
    args: dict[str, Any] = {
        "name": "t",
        "description": "d",
        "parameters": [ToolParameter("a", str, "A")],
        "function": _fn,
        **kwargs,
    }
    with pytest.raises(ToolValidationError) as info:
        Tool(**args)
    assert info.value.issue.startswith(issue)


def test_parameter_missing_from_signature_is_fine_when_injected_or_kwargs() -> None:
    def takes_kwargs(**kwargs: Any) -> str:
        return str(sorted(kwargs))

    t = Tool("t", "d", [ToolParameter("anything", str, "A")], takes_kwargs)
    assert t.execute({"anything": "x"}) == "['anything']"
    # builtins cannot be inspected: the signature check is skipped
    Tool("t", "d", [ToolParameter("x", str, "X")], max)


def test_tool_parameter_required_follows_default() -> None:
    assert ToolParameter("a", int, "A").required is True
    assert ToolParameter("a", int, "A", default=3).required is False
    assert ToolParameter("a", int, "A", required=False).required is False
    assert ToolParameter("a", int, "A", default=3, required=True).required is True
    assert ToolParameter("a", int, "A") == ToolParameter("a", int, "A")


# -- speed and lazy imports ----------------------------------------------------------------


def test_import_does_not_pull_in_pydantic_or_asyncio() -> None:
    code = (
        "import sys, selectools.tools as t\n"
        "@t.tool\n"
        "def add(a: int, b: float, c: str = 'x', d: bool = False) -> str:\n"
        "    'Add.'\n"
        "    return str(a + b)\n"
        "assert add.execute({'a': 1, 'b': 2}) == '3'\n"
        "print(sorted(m for m in ('pydantic', 'asyncio', 'difflib') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_plain_tool_validate_and_execute_is_microseconds() -> None:
    @tool(description="d")
    def add(a: int, b: float, c: str = "x", d: bool = False) -> str:
        return "ok"

    params = {"a": 1, "b": 2.5, "c": "y", "d": True}
    n = 20000
    per_call = min(timeit.repeat(lambda: add.execute(params), number=n, repeat=5)) / n
    assert per_call < 20e-6, f"{per_call * 1e6:.1f} µs per call"
