"""Tool schemas rewritten into what Gemini's functionDeclarations accept."""

from __future__ import annotations

import enum
from typing import Literal

from selectools import tool
from selectools.providers._gemini_schema import gemini_parameters, to_gemini_schema


def test_nullable_type_unions():
    assert to_gemini_schema({"type": ["integer", "null"], "description": "n"}) == {
        "type": "integer",
        "description": "n",
        "nullable": True,
    }
    assert to_gemini_schema({"anyOf": [{"type": "string"}, {"type": "null"}]}) == {
        "type": "string",
        "nullable": True,
    }


def test_multi_type_unions_become_any_of():
    converted = to_gemini_schema({"type": ["string", "integer"], "description": "id"})
    assert converted == {
        "anyOf": [{"type": "string"}, {"type": "integer"}],
        "description": "id",
    }


def test_unsupported_keys_are_dropped_and_formats_filtered():
    converted = to_gemini_schema(
        {
            "type": "object",
            "properties": {
                "when": {"type": "string", "format": "date-time"},
                "mail": {"type": "string", "format": "email", "default": "x"},
                "tags": {"type": "array", "items": {"type": "string"}, "prefixItems": []},
                "meta": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            "required": ["when", "ghost"],
            "additionalProperties": False,
            "$schema": "http://json-schema.org/draft-07/schema#",
        }
    )
    assert converted == {
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date-time"},
            "mail": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "meta": {"type": "object"},
        },
        "required": ["when"],
    }


def test_enums_must_be_strings():
    assert to_gemini_schema({"type": "string", "enum": ["a", "b", None]}) == {
        "type": "string",
        "enum": ["a", "b"],
    }
    numeric = to_gemini_schema({"type": "integer", "enum": [1, 2], "description": "Level."})
    assert numeric == {"type": "integer", "description": "Level. One of: 1, 2."}
    assert to_gemini_schema({"const": "fixed"}) == {"enum": ["fixed"], "type": "string"}


def test_a_tool_without_arguments_has_no_parameters():
    @tool()
    def now() -> str:
        """The time."""
        return "noon"

    assert gemini_parameters(now.schema()["parameters"]) is None


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


def test_real_tool_schemas_convert():
    @tool()
    def paint(color: Color, mode: Literal["fast", "slow"], layers: int | None = None) -> str:
        """Paint something."""
        return "ok"

    converted = gemini_parameters(paint.schema()["parameters"])
    assert converted is not None
    properties = converted["properties"]
    assert properties["color"]["enum"] == ["red", "blue"]
    assert properties["mode"]["enum"] == ["fast", "slow"]
    assert properties["layers"]["type"] == "integer" and properties["layers"]["nullable"] is True
    assert converted["required"] == ["color", "mode"]
