"""Tool.validate: order of checks, exact messages, nested values, coercion."""

from __future__ import annotations

import copy
import enum
from typing import Annotated, Any, Literal, Optional

import pytest
from pydantic import BaseModel, Field

from selectools.exceptions import ToolExecutionError, ToolValidationError
from selectools.tools import Tool, ToolParameter, tool


@tool(
    description="Get current weather for a location",
    param_metadata={
        "location": {"description": "City name or coordinates"},
        "units": {"description": "Temperature units", "enum": ["celsius", "fahrenheit"]},
    },
)
def get_weather(location: str, units: str = "celsius") -> str:
    return f"Weather in {location}: 72°{units[0].upper()}"


@tool(description="Add numbers")
def add(a: int, b: int) -> str:
    return str(a + b)


def error(t: Tool, params: Any) -> ToolValidationError:
    with pytest.raises(ToolValidationError) as info:
        t.validate(params)
    return info.value


def test_documented_unexpected_parameter_box() -> None:
    err = error(get_weather, {"loction": "Paris"})
    assert str(err) == (
        "\n============================================================\n"
        "❌ Tool Validation Error: 'get_weather'\n"
        "============================================================\n"
        "\n"
        "Parameter: loction\n"
        "Issue: Unexpected parameter(s)\n"
        "\n"
        "💡 Suggestion: 'loction' -> Did you mean 'location'?\n"
        "Expected parameters: 'location', 'units'\n"
        "\n"
        "============================================================"
    )
    assert err.tool_name == "get_weather"
    assert err.expected == ["location", "units"]


def test_several_unexpected_parameters_sorted_with_suggestions() -> None:
    err = error(add, {"a": 1, "b": 2, "zzz": 1, "bb": 2})
    assert err.param_name == "bb, zzz"
    assert err.suggestion == "'bb' -> Did you mean 'b'?; 'zzz' is not a valid parameter"


def test_missing_required_parameter() -> None:
    err = error(add, {"a": 2})
    assert err.issue == "Missing required parameter"
    assert err.param_name == "b"
    assert err.suggestion == "Required parameters: 'a', 'b'"
    assert "Missing required parameter" in str(err)


def test_all_missing_names_are_reported() -> None:
    assert error(add, {}).param_name == "a, b"


def test_unexpected_is_checked_before_missing() -> None:
    assert error(add, {"c": 1}).issue == "Unexpected parameter(s)"


def test_missing_is_checked_before_types() -> None:
    assert error(add, {"a": "x"}).issue == "Missing required parameter"


def test_int_given_a_string_suggests_int() -> None:
    err = error(add, {"a": "42", "b": 1})
    assert err.param_name == "a"
    assert err.issue == "Parameter 'a' must be of type int, got str"
    assert err.suggestion == "Try: a=int('42')"


def test_str_given_a_number_suggests_str() -> None:
    err = error(get_weather, {"location": 42})
    assert err.suggestion == "Try: location=str(42)"


def test_other_type_errors_name_the_expected_type() -> None:
    err = error(add, {"a": 1.5, "b": 1})
    assert err.issue == "Parameter 'a' must be of type int, got float"
    assert err.suggestion == "Expected type: int"


def test_float_given_a_string_suggests_float() -> None:
    @tool(description="d")
    def f(x: float):
        return x

    assert error(f, {"x": "2.5"}).suggestion == "Try: x=float('2.5')"


def test_enum_constraint() -> None:
    err = error(get_weather, {"location": "Paris", "units": "kelvin"})
    assert err.param_name == "units"
    assert err.issue == "Parameter 'units' must be one of 'celsius', 'fahrenheit', got 'kelvin'"
    assert err.suggestion == "Allowed values: 'celsius', 'fahrenheit'"
    err = error(get_weather, {"location": "Paris", "units": "celcius"})
    assert err.suggestion == "Did you mean 'celsius'? Allowed values: 'celsius', 'fahrenheit'"
    get_weather.validate({"location": "Paris", "units": "fahrenheit"})


def test_type_is_checked_before_enum() -> None:
    err = error(get_weather, {"location": "Paris", "units": 3})
    assert err.issue == "Parameter 'units' must be of type str, got int"


@pytest.mark.parametrize(
    ("annotation", "good", "bad"),
    [
        (int, [0, -3, 2**70], [True, False, 1.0, "1", None]),
        (float, [1, 1.5, float("inf")], [True, "1.5", None]),
        (bool, [True, False], [0, 1, "true", None]),
        (str, ["", "x"], [1, None, b"x"]),
        (list, [[], [1, "a"]], [(), {}, "ab"]),
        (dict, [{}, {"a": 1}], [[], "x"]),
        (Optional[int], [None, 3], [True, "3"]),  # noqa: UP045
        (int | str, [1, "1"], [True, 1.5, None]),
        (Literal[1, 2], [1, 2], [True, 3, "1"]),
        (Literal[True], [True], [1]),
        (Any, [None, 1, object()], []),
        (tuple[int, ...], [[1, 2], (1,)], [[1, "2"], "12"]),
    ],
)
def test_precise_type_checks(annotation: Any, good: list[Any], bad: list[Any]) -> None:
    def f(x):
        return x

    t = Tool("f", "d", [ToolParameter("x", annotation, "X")], f)
    for value in good:
        t.validate({"x": value})
    for value in bad:
        with pytest.raises(ToolValidationError):
            t.validate({"x": value})


def test_none_only_for_optional() -> None:
    err = error(add, {"a": None, "b": 1})
    assert err.issue == "Parameter 'a' must be of type int, got NoneType"

    @tool(description="d")
    def f(a: int | None):
        return repr(a)

    assert f.execute({"a": None}) == "None"
    assert f.schema()["parameters"]["required"] == ["a"]


def test_nested_list_items_are_checked_with_a_path() -> None:
    @tool(description="d")
    def f(tags: list[str], grid: list[list[int]] | None = None):
        return ""

    err = error(f, {"tags": ["a", 2]})
    assert err.param_name == "tags"
    assert err.issue == "Parameter 'tags[1]' must be of type str, got int"
    assert err.suggestion == "Expected type: list[str]"
    err = error(f, {"tags": [], "grid": [[1], [2, "x"]]})
    assert err.issue == "Parameter 'grid[1][1]' must be of type int, got str"
    assert error(f, {"tags": "abc"}).issue == "Parameter 'tags' must be of type list[str], got str"


def test_nested_dict_values_are_checked_with_a_path() -> None:
    @tool(description="d")
    def f(scores: dict[str, float], meta: dict[str, list[int]] | None = None):
        return ""

    f.validate({"scores": {"a": 1, "b": 2.5}})
    err = error(f, {"scores": {"a": 1, "b": "high"}})
    assert err.issue == "Parameter 'scores['b']' must be of type float, got str"
    err = error(f, {"scores": {}, "meta": {"k": [1, True]}})
    assert err.issue == "Parameter 'meta['k'][1]' must be of type int, got bool"
    err = error(f, {"scores": {1: 2.0}})
    assert err.issue == "Parameter 'scores' keys must be str, got 1"


def test_fixed_tuple_length_and_coercion() -> None:
    @tool(description="d")
    def f(point: tuple[int, int]):
        return repr(point)

    assert f.execute({"point": [1, 2]}) == "(1, 2)"
    assert error(f, {"point": [1]}).issue == "Parameter 'point' must have exactly 2 items, got 1"
    assert (
        error(f, {"point": [1, "a"]}).issue == "Parameter 'point[1]' must be of type int, got str"
    )


def test_literal_values() -> None:
    @tool(description="d")
    def f(mode: Literal["fast", "slow"] = "fast"):
        return mode

    err = error(f, {"mode": "fats"})
    assert err.issue == "Parameter 'mode' must be one of 'fast', 'slow', got 'fats'"
    assert err.suggestion == "Did you mean 'fast'? Allowed values: 'fast', 'slow'"
    assert f.execute({"mode": "slow"}) == "slow"


class Color(str, enum.Enum):
    RED = "red"
    BLUE = "blue"


class Size(enum.Enum):
    SMALL = 1
    LARGE = 2


def test_enum_values_are_coerced_to_members() -> None:
    seen: list[Any] = []

    @tool(description="d")
    def paint(color: Color, size: Size = Size.SMALL, extra: list[Color] | None = None) -> str:
        seen.append((color, size, extra))
        return "ok"

    assert paint.execute({"color": "blue", "size": 2, "extra": ["red"]}) == "ok"
    assert seen[-1] == (Color.BLUE, Size.LARGE, [Color.RED])
    assert type(seen[-1][0]) is Color
    paint.execute({"color": Color.RED})
    assert seen[-1][0] is Color.RED
    err = error(paint, {"color": "green"})
    assert err.issue == "Parameter 'color' must be one of 'red', 'blue', got 'green'"
    assert error(paint, {"color": "red", "size": True}).param_name == "size"


class Item(BaseModel):
    sku: str
    qty: int = 1


class Order(BaseModel):
    items: list[Item]


def test_pydantic_model_is_validated_and_passed_as_instance() -> None:
    seen: list[Any] = []

    @tool(description="d")
    def place(order: Order, backup: Order | None = None, more: list[Item] | None = None) -> str:
        seen.append((order, backup, more))
        return "placed"

    assert place.execute({"order": {"items": [{"sku": "a", "qty": 2}]}, "more": [{"sku": "b"}]})
    order, backup, more = seen[-1]
    assert isinstance(order, Order)
    assert order.items[0].qty == 2
    assert backup is None
    assert more == [Item(sku="b")]
    instance = Order(items=[])
    place.execute({"order": instance})
    assert seen[-1][0] is instance


def test_pydantic_errors_are_concise() -> None:
    @tool(description="d")
    def place(order: Order):
        return ""

    err = error(place, {"order": {"items": [{"qty": "x"}]}})
    assert err.issue == (
        "Parameter 'order' is not a valid Order: items.0.sku: Field required; "
        "items.0.qty: Input should be a valid integer, unable to parse string as an integer"
    )
    assert err.suggestion == "Expected type: Order"
    err = error(place, {"order": "nope"})
    assert "Input should be a valid dictionary or instance of Order" in err.issue
    assert "https://" not in str(err)


def test_pydantic_error_list_is_truncated() -> None:
    class Wide(BaseModel):
        a: int
        b: int
        c: int
        d: int
        e: int

    @tool(description="d")
    def f(w: Wide):
        return ""

    assert error(f, {"w": {}}).issue.endswith("(and 2 more)")


def test_annotated_field_constraints_are_enforced() -> None:
    @tool(description="d")
    def f(n: Annotated[int, Field(ge=0, le=10)] = 1):
        return n

    assert f.execute({"n": 10}) == "10"
    err = error(f, {"n": 11})
    assert err.issue == "Parameter 'n' is invalid: Input should be less than or equal to 10"
    # the strict type check still comes first: no silent "5" -> 5
    assert error(f, {"n": "5"}).suggestion == "Try: n=int('5')"


def test_validation_never_mutates_the_callers_dict() -> None:
    @tool(description="d")
    def f(color: Color, order: Order, pts: tuple[int, int], tags: list[str]):
        return ""

    params = {"color": "red", "order": {"items": []}, "pts": [1, 2], "tags": ["x"]}
    before = copy.deepcopy(params)
    f.validate(params)
    f.execute(params)
    assert params == before
    assert type(params["pts"]) is list


def test_non_dict_params() -> None:
    @tool(description="d")
    def f() -> str:
        return "ok"

    assert f.execute(None) == "ok"
    assert f.execute({}) == "ok"
    err = error(f, ["a"])
    assert err.issue == "Parameters must be a JSON object, got list"


def test_validation_error_is_not_wrapped_by_execute() -> None:
    with pytest.raises(ToolValidationError) as info:
        add.execute({"a": 2})
    assert not isinstance(info.value, ToolExecutionError)
    assert info.value.param_name == "b"
