"""A small JSON Schema validator for ``response_format`` dicts.

It covers what a structured-output schema uses in practice (types, enums and
consts, object properties/required/additionalProperties, array items and sizes,
string length and pattern, numeric bounds, anyOf/oneOf/allOf and local ``$ref``
into ``$defs``/``definitions``), so a plain dict schema needs no extra package.
Keywords it does not know are ignored, as JSON Schema itself prescribes.
"""

from __future__ import annotations

import json
from typing import Any

from ._text import one_line
from ._untrusted_regex import RegexTimeoutError, UntrustedPattern

__all__ = ["SchemaError", "validate"]

_TYPE_NAMES = {
    "object": "object",
    "array": "array",
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "null": "null",
}


class SchemaError(ValueError):
    """``value`` does not match the schema; the message names the failing path."""


def validate(value: Any, schema: dict[str, Any]) -> None:
    """Raise :class:`SchemaError` when ``value`` (decoded JSON) does not match ``schema``."""
    _check(value, schema, "$", schema)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _is_type(value: Any, name: str) -> bool:
    actual = _json_type(value)
    if name == "number":
        return actual in ("integer", "number")
    if name == "integer":
        return actual == "integer" or (actual == "number" and float(value).is_integer())
    return actual == name


def _resolve(ref: str, root: dict[str, Any], path: str) -> dict[str, Any]:
    if not ref.startswith("#/"):
        raise SchemaError(f"{path}: only local $ref ('#/$defs/Name') is supported, got {ref!r}")
    node: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            raise SchemaError(f"{path}: $ref {ref!r} points to nothing in the schema")
        node = node[part]
    if not isinstance(node, dict):
        raise SchemaError(f"{path}: $ref {ref!r} is not a schema object")
    return node


def _short(value: Any) -> str:
    return one_line(json.dumps(value, default=str), 60)


def _check(value: Any, schema: Any, path: str, root: dict[str, Any]) -> None:
    if schema is True or schema == {}:
        return
    if schema is False:
        raise SchemaError(f"{path}: no value is allowed here")
    if not isinstance(schema, dict):
        raise SchemaError(f"{path}: schema must be an object, got {type(schema).__name__}")
    if "$ref" in schema:
        _check(value, _resolve(schema["$ref"], root, path), path, root)
    expected = schema.get("type")
    if expected is not None:
        names = expected if isinstance(expected, list) else [expected]
        if not any(_is_type(value, name) for name in names):
            wanted = " or ".join(_TYPE_NAMES.get(n, str(n)) for n in names)
            raise SchemaError(f"{path}: expected {wanted}, got {_json_type(value)} {_short(value)}")
    if "enum" in schema and not any(_same(value, choice) for choice in schema["enum"]):
        choices = ", ".join(_short(c) for c in schema["enum"])
        raise SchemaError(f"{path}: must be one of {choices}, got {_short(value)}")
    if "const" in schema and not _same(value, schema["const"]):
        raise SchemaError(f"{path}: must be {_short(schema['const'])}, got {_short(value)}")
    _check_combinators(value, schema, path, root)
    if isinstance(value, dict):
        _check_object(value, schema, path, root)
    elif isinstance(value, list):
        _check_array(value, schema, path, root)
    elif isinstance(value, str):
        _check_string(value, schema, path)
    elif _json_type(value) in ("integer", "number"):
        _check_number(value, schema, path)


def _same(a: Any, b: Any) -> bool:
    """JSON equality: ``True`` is not ``1``, but ``1`` is ``1.0``."""
    kind_a, kind_b = _json_type(a), _json_type(b)
    if kind_a in _NUMERIC and kind_b in _NUMERIC:
        return bool(a == b)
    return kind_a == kind_b and a == b


_NUMERIC = ("integer", "number")


def _check_combinators(value: Any, schema: dict[str, Any], path: str, root: dict[str, Any]) -> None:
    for sub in schema.get("allOf", ()):
        _check(value, sub, path, root)
    options = schema.get("anyOf")
    if options is not None:
        errors = _failures(value, options, path, root)
        if len(errors) == len(options):
            raise SchemaError(f"{path}: matches none of the allowed shapes ({'; '.join(errors)})")
    options = schema.get("oneOf")
    if options is not None:
        errors = _failures(value, options, path, root)
        matched = len(options) - len(errors)
        if matched != 1:
            detail = "; ".join(errors) if matched == 0 else f"{matched} of them match"
            raise SchemaError(f"{path}: must match exactly one allowed shape ({detail})")


def _failures(value: Any, options: list[Any], path: str, root: dict[str, Any]) -> list[str]:
    errors = []
    for option in options:
        try:
            _check(value, option, path, root)
        except SchemaError as exc:
            errors.append(str(exc))
    return errors


def _check_object(
    value: dict[str, Any], schema: dict[str, Any], path: str, root: dict[str, Any]
) -> None:
    properties = schema.get("properties", {})
    for name in schema.get("required", ()):
        if name not in value:
            raise SchemaError(f"{path}: missing required property {name!r}")
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        where = f"{path}.{name}"
        if name in properties:
            _check(item, properties[name], where, root)
        elif extra is False:
            allowed = ", ".join(repr(p) for p in properties) or "none"
            raise SchemaError(f"{path}: unexpected property {name!r} (allowed: {allowed})")
        elif isinstance(extra, dict):
            _check(item, extra, where, root)


def _check_array(value: list[Any], schema: dict[str, Any], path: str, root: dict[str, Any]) -> None:
    low, high = schema.get("minItems"), schema.get("maxItems")
    if low is not None and len(value) < low:
        raise SchemaError(f"{path}: needs at least {low} item(s), got {len(value)}")
    if high is not None and len(value) > high:
        raise SchemaError(f"{path}: allows at most {high} item(s), got {len(value)}")
    items = schema.get("items")
    if isinstance(items, (dict, bool)):
        for index, item in enumerate(value):
            _check(item, items, f"{path}[{index}]", root)


def _check_string(value: str, schema: dict[str, Any], path: str) -> None:
    low, high = schema.get("minLength"), schema.get("maxLength")
    if low is not None and len(value) < low:
        raise SchemaError(f"{path}: must be at least {low} character(s) long")
    if high is not None and len(value) > high:
        raise SchemaError(f"{path}: must be at most {high} character(s) long")
    pattern = schema.get("pattern")
    if pattern is not None and _search(pattern, value, path) is None:
        raise SchemaError(f"{path}: {_short(value)} does not match pattern {pattern!r}")


def _search(pattern: Any, value: str, path: str) -> Any:
    """Search with the schema's pattern, which may come from a remote server: bounded in time."""
    if not isinstance(pattern, str):
        raise SchemaError(f"{path}: the schema's pattern must be a string, got {pattern!r}")
    try:
        return UntrustedPattern(pattern).search(value)
    except RegexTimeoutError as exc:
        raise SchemaError(
            f"{path}: the schema's pattern {pattern!r} could not be checked against "
            f"{_short(value)}: {exc}"
        ) from None
    except ValueError as exc:
        raise SchemaError(f"{path}: the schema's pattern is unusable: {exc}") from None


def _check_number(value: float, schema: dict[str, Any], path: str) -> None:
    bounds = (
        ("minimum", lambda v, b: v >= b, ">="),
        ("maximum", lambda v, b: v <= b, "<="),
        ("exclusiveMinimum", lambda v, b: v > b, ">"),
        ("exclusiveMaximum", lambda v, b: v < b, "<"),
    )
    for keyword, ok, symbol in bounds:
        bound = schema.get(keyword)
        if isinstance(bound, (int, float)) and not isinstance(bound, bool) and not ok(value, bound):
            raise SchemaError(f"{path}: must be {symbol} {bound}, got {value}")
