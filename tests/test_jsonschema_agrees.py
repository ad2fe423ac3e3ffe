"""Our structured-output validator agrees with the ``jsonschema`` package on every keyword
it claims to enforce, probe by probe, and names the keywords it does not enforce."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from selectools._jsonschema import SchemaError, unenforced_keywords, validate

# (schema, instance): each keyword with one value that passes and one that fails.
PROBES = [
    ({"type": "integer"}, 3), ({"type": "integer"}, 3.5), ({"type": "number"}, 2.0),
    ({"type": ["string", "null"]}, None), ({"enum": [1, "a"]}, 1.0), ({"enum": [1, "a"]}, True),
    ({"const": False}, 0), ({"const": {"a": 1}}, {"a": 1}),
    ({"allOf": [{"minimum": 1}, {"maximum": 3}]}, 4), ({"anyOf": [{"type": "string"}, {"minimum": 5}]}, 2),
    ({"oneOf": [{"minimum": 1}, {"minimum": 2}]}, 3), ({"oneOf": [{"minimum": 1}, {"minimum": 2}]}, 1),
    ({"not": {"type": "string"}}, "x"), ({"not": {"type": "string"}}, 1),
    ({"if": {"minimum": 10}, "then": {"multipleOf": 5}, "else": {"maximum": 3}}, 12),
    ({"if": {"minimum": 10}, "then": {"multipleOf": 5}, "else": {"maximum": 3}}, 15),
    ({"if": {"minimum": 10}, "then": {"multipleOf": 5}, "else": {"maximum": 3}}, 4),
    ({"properties": {"a": {"type": "string"}}, "required": ["a"]}, {}),
    ({"properties": {"a": {"type": "string"}}, "additionalProperties": False}, {"a": "x", "b": 1}),
    ({"patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": False}, {"x-a": 1}),
    ({"patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": False}, {"x-a": "1"}),
    ({"patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": False}, {"y": 1}),
    ({"additionalProperties": {"type": "integer"}}, {"a": 1, "b": "2"}),
    ({"propertyNames": {"maxLength": 3}}, {"abcd": 1}), ({"propertyNames": {"maxLength": 3}}, {"abc": 1}),
    ({"minProperties": 2}, {"a": 1}), ({"maxProperties": 1}, {"a": 1, "b": 2}),
    ({"dependentRequired": {"card": ["cvv"]}}, {"card": 1}), ({"dependentRequired": {"card": ["cvv"]}}, {"cvv": 1}),
    ({"prefixItems": [{"type": "integer"}, {"type": "string"}]}, [1, "a", None]),
    ({"prefixItems": [{"type": "integer"}, {"type": "string"}], "items": False}, [1, "a", None]),
    ({"prefixItems": [{"type": "integer"}, {"type": "string"}]}, [1, 2]),
    ({"items": {"type": "integer"}}, [1, 2, "3"]), ({"minItems": 2}, [1]), ({"maxItems": 1}, [1, 2]),
    ({"uniqueItems": True}, [1, 1.0]), ({"uniqueItems": True}, [1, True]), ({"uniqueItems": True}, [{"a": 1}, {"a": 1}]),
    ({"contains": {"type": "string"}}, [1, 2]), ({"contains": {"type": "string"}, "minContains": 2}, ["a", 1]),
    ({"contains": {"type": "string"}, "maxContains": 1}, ["a", "b"]),
    ({"minLength": 2}, "a"), ({"maxLength": 2}, "abc"), ({"pattern": "^a+$"}, "aab"), ({"pattern": "b"}, "abc"),
    ({"minimum": 1}, 0), ({"exclusiveMinimum": 1}, 1), ({"maximum": 1}, 2), ({"exclusiveMaximum": 1}, 1),
    ({"multipleOf": 3}, 9), ({"multipleOf": 3}, 10), ({"multipleOf": 0.1}, 0.3), ({"multipleOf": 0.5}, 2.5),
    ({"$defs": {"n": {"type": "integer"}}, "$ref": "#/$defs/n"}, "x"),
    ({"properties": {"a": {"$ref": "#"}}, "type": "object"}, {"a": {"a": 1}}),
]  # fmt: skip


@pytest.mark.parametrize(("schema", "instance"), PROBES)
def test_ours_agrees_with_jsonschema(schema, instance):
    theirs = Draft202012Validator(schema).is_valid(instance)
    try:
        validate(instance, schema)
        ours = True
    except SchemaError:
        ours = False
    assert ours == theirs, (schema, instance)


def test_the_probes_cover_both_outcomes():
    outcomes = [Draft202012Validator(s).is_valid(i) for s, i in PROBES]
    assert 15 <= sum(outcomes) <= len(PROBES) - 15


def test_it_names_the_keywords_it_does_not_enforce():
    schema = {
        "properties": {
            "when": {"type": "string", "format": "date-time"},
            "more": {"$ref": "https://example.invalid/s.json"},
            "card": {"dependentSchemas": {"a": {}}, "unevaluatedProperties": False},
        }
    }
    assert unenforced_keywords(schema) == {
        "format", "$ref (remote)", "dependentSchemas", "unevaluatedProperties"
    }  # fmt: skip
    assert unenforced_keywords({"type": "object", "properties": {"a": {"pattern": "x"}}}) == set()
