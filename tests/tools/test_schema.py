"""JSON schema inferred from type hints: one exact dict per supported form."""

from __future__ import annotations

import enum
import typing
from typing import Annotated, Any, Literal, Optional, Union

import pytest
from pydantic import BaseModel, Field

from selectools.exceptions import ToolValidationError
from selectools.tools import Tool, ToolParameter, tool


def prop(t: Tool, name: str) -> dict[str, Any]:
    return t.schema()["parameters"]["properties"][name]


def schema_of(annotation: Any) -> dict[str, Any]:
    """The property schema (without description) of a required parameter of this type."""
    out = ToolParameter("x", annotation, "d").to_schema()
    assert out.pop("description") == "d"
    return out


class Color(str, enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (list, {"type": "array"}),
        (dict, {"type": "object"}),
        (typing.List, {"type": "array"}),  # noqa: UP006
        (list[str], {"type": "array", "items": {"type": "string"}}),
        (typing.List[int], {"type": "array", "items": {"type": "integer"}}),  # noqa: UP006
        (
            list[list[int]],
            {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
        ),
        (list[Any], {"type": "array"}),
        (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
        (dict[str, Any], {"type": "object"}),
        (typing.Dict[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),  # noqa: UP006
        (tuple, {"type": "array"}),
        (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
        (
            tuple[int, str],
            {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
            },
        ),
        (Optional[int], {"type": ["integer", "null"]}),  # noqa: UP045
        (int | None, {"type": ["integer", "null"]}),
        (list[str] | None, {"type": ["array", "null"], "items": {"type": "string"}}),
        (Union[int, str], {"anyOf": [{"type": "integer"}, {"type": "string"}]}),  # noqa: UP007
        (
            int | str | None,
            {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]},
        ),
        (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
        (Literal[1, 2], {"type": "integer", "enum": [1, 2]}),
        (Literal[True], {"type": "boolean", "enum": [True]}),
        (Literal[1, "a"], {"enum": [1, "a"]}),
        (Literal["a", "b"] | None, {"type": ["string", "null"], "enum": ["a", "b", None]}),
        (Color, {"type": "string", "enum": ["red", "blue"]}),
        (Level, {"type": "integer", "enum": [1, 2]}),
        (list[Color], {"type": "array", "items": {"type": "string", "enum": ["red", "blue"]}}),
        (Annotated[int, "how many"], {"type": "integer"}),
        (Any, {}),
        (typing.NewType("UserId", int), {"type": "integer"}),
    ],
)
def test_type_hint_schemas(annotation: Any, expected: dict[str, Any]) -> None:
    assert schema_of(annotation) == expected


def test_type_comes_first_then_description() -> None:
    param = ToolParameter("units", str, "Units", enum=["c", "f"])
    assert list(param.to_schema()) == ["type", "description", "enum"]
    assert param.to_schema() == {"type": "string", "description": "Units", "enum": ["c", "f"]}


def test_decorator_full_schema_with_defaults() -> None:
    @tool
    def search(query: str, limit: int = 10, tags: list[str] | None = None, exact: bool = False):
        """Search the catalogue."""
        return query

    assert search.schema() == {
        "name": "search",
        "description": "Search the catalogue.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Parameter 'query'"},
                "limit": {"type": "integer", "description": "Parameter 'limit'", "default": 10},
                "tags": {
                    "type": ["array", "null"],
                    "description": "Parameter 'tags'",
                    "items": {"type": "string"},
                    "default": None,
                },
                "exact": {"type": "boolean", "description": "Parameter 'exact'", "default": False},
            },
            "required": ["query"],
        },
    }


def test_unannotated_parameters_are_strings_and_private_ones_are_skipped() -> None:
    @tool(description="d")
    def f(a, b=3, _secret: int = 0, *args, **kwargs):
        return a

    props = f.schema()["parameters"]["properties"]
    assert props == {
        "a": {"type": "string", "description": "Parameter 'a'"},
        "b": {"type": "string", "description": "Parameter 'b'", "default": 3},
    }
    assert f.schema()["parameters"]["required"] == ["a"]


def test_enum_default_is_emitted_as_its_value() -> None:
    @tool(description="d")
    def paint(color: Color = Color.BLUE, level: Level = Level.HIGH):
        return color

    assert prop(paint, "color") == {
        "type": "string",
        "description": "Parameter 'color'",
        "enum": ["red", "blue"],
        "default": "blue",
    }
    assert prop(paint, "level")["default"] == 2


def test_default_that_is_not_json_is_left_out() -> None:
    sentinel = object()

    @tool(description="d")
    def f(x: Any = sentinel):
        return x

    assert prop(f, "x") == {"description": "Parameter 'x'"}
    assert f.schema()["parameters"]["required"] == []


def test_default_none_makes_the_parameter_nullable() -> None:
    @tool(description="d")
    def f(x: int = None):  # type: ignore[assignment]  # noqa: RUF013
        return x

    assert prop(f, "x") == {
        "type": ["integer", "null"],
        "description": "Parameter 'x'",
        "default": None,
    }
    assert f.execute({"x": None}) == ""


def test_annotated_descriptions() -> None:
    @tool(description="d")
    def f(
        a: Annotated[int, "how many apples"],
        b: Annotated[str, Field(description="the basket")],
        c: Annotated[int, "from Annotated"] = 1,
        d: Optional[Annotated[int, "inside Optional"]] = None,  # noqa: UP045
    ):
        """Doc.

        Args:
            c: from the docstring
        """
        return a

    assert prop(f, "a") == {"type": "integer", "description": "how many apples"}
    assert prop(f, "b") == {"type": "string", "description": "the basket"}
    assert prop(f, "c")["description"] == "from Annotated"
    assert prop(f, "d") == {
        "type": ["integer", "null"],
        "description": "inside Optional",
        "default": None,
    }


def test_param_metadata_beats_annotated_and_docstring() -> None:
    @tool(param_metadata={"a": {"description": "meta"}, "b": "short form"})
    def f(a: Annotated[int, "annotated"], b: int):
        """Doc.

        Args:
            a: docstring
        """
        return a

    assert prop(f, "a")["description"] == "meta"
    assert prop(f, "b")["description"] == "short form"


def test_annotated_field_constraints_reach_the_schema() -> None:
    @tool(description="d")
    def f(n: Annotated[int, Field(description="count", ge=0, le=10)] = 1):
        return n

    assert prop(f, "n") == {
        "type": "integer",
        "description": "count",
        "minimum": 0,
        "maximum": 10,
        "default": 1,
    }


class Item(BaseModel):
    """One line of an order."""

    sku: str
    qty: int = 1


class Order(BaseModel):
    items: list[Item]
    note: str | None = None


def test_pydantic_model_schema_is_inlined_without_titles() -> None:
    @tool(description="d")
    def place(order: Order):
        return order

    assert prop(place, "order") == {
        "type": "object",
        "description": "Parameter 'order'",
        "properties": {
            "items": {
                "type": "array",
                "items": {
                    "description": "One line of an order.",
                    "properties": {
                        "sku": {"type": "string"},
                        "qty": {"type": "integer", "default": 1},
                    },
                    "required": ["sku"],
                    "type": "object",
                },
            },
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        },
        "required": ["items"],
    }
    assert "$defs" not in str(place.schema())
    assert "title" not in str(place.schema())


def test_recursive_model_does_not_loop() -> None:
    class Node(BaseModel):
        name: str
        children: list[Node] = []

    Node.model_rebuild()
    schema = schema_of(Node)
    # the cycle is cut one level down; validation still goes through the model
    assert schema["properties"]["children"]["items"] == {"type": "object"}


def test_property_named_title_survives() -> None:
    class Book(BaseModel):
        title: str

    assert schema_of(Book) == {
        "type": "object",
        "properties": {"title": {"type": "string"}},
        "required": ["title"],
    }


def test_manual_tool_parameter_accepts_rich_types() -> None:
    def f(colors: list[Color], mode: str = "a") -> str:
        return ",".join(c.value for c in colors)

    t = Tool(
        "f",
        "d",
        [
            ToolParameter("colors", list[Color], "Colours"),
            ToolParameter("mode", Literal["a", "b"], "Mode", default="a"),
        ],
        f,
    )
    assert t.schema()["parameters"]["required"] == ["colors"]
    assert prop(t, "mode") == {
        "type": "string",
        "description": "Mode",
        "enum": ["a", "b"],
        "default": "a",
    }
    assert t.execute({"colors": ["red", "blue"]}) == "red,blue"


def test_explicit_schema_override() -> None:
    param = ToolParameter("q", str, "Query", schema={"type": "string", "minLength": 3})
    assert param.to_schema() == {"type": "string", "description": "Query", "minLength": 3}


def test_schema_returns_fresh_dicts() -> None:
    @tool(description="d")
    def f(order: Order, tags: list[str]):
        return ""

    first = f.schema()
    first["parameters"]["properties"]["order"]["properties"].clear()
    first["parameters"]["required"].append("zzz")
    assert f.schema()["parameters"]["properties"]["order"]["properties"]
    assert f.schema()["parameters"]["required"] == ["order", "tags"]


@pytest.mark.parametrize(
    "annotation", [set, set[int], frozenset, dict[int, str], complex, bytes, object.__new__]
)
def test_unsupported_types_fail_at_definition(annotation: Any) -> None:
    def f(x):
        return x

    with pytest.raises(ToolValidationError) as info:
        Tool("f", "d", [ToolParameter("x", annotation, "X")], f)
    assert info.value.param_name == "x"
    assert "Unsupported parameter type" in info.value.issue


def test_unsupported_annotation_in_decorator() -> None:
    with pytest.raises(ToolValidationError, match="Unsupported parameter type"):

        @tool(description="d")
        def f(x: set[int]):
            return x


def test_enum_values_must_match_the_type() -> None:
    def f(n):
        return n

    with pytest.raises(ToolValidationError, match="Enum value 'three'"):
        Tool("f", "d", [ToolParameter("n", int, "N", enum=[1, 2, "three"])], f)
