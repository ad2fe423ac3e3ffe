"""A small JSON Schema validator for ``response_format`` dicts.

Why our own: structured output needs a validator in the core, which installs no
``jsonschema``; schemas someone else wrote (MCP servers) go through ``jsonschema``
instead (:mod:`selectools._remote_schema`). It enforces the keywords structured-output
and tool schemas use, and agrees with ``jsonschema`` on each of them (a test compares the
two probe by probe):

- any value: ``type``, ``enum``, ``const``, ``allOf``/``anyOf``/``oneOf``/``not``,
  ``if``/``then``/``else``, local ``$ref`` (into ``$defs``/``definitions``);
- objects: ``properties``, ``required``, ``additionalProperties``, ``patternProperties``,
  ``propertyNames``, ``minProperties``/``maxProperties``, ``dependentRequired``;
- arrays: ``items``, ``prefixItems`` (and the older ``items: [...]`` with
  ``additionalItems``), ``minItems``/``maxItems``, ``uniqueItems``, ``contains`` with
  ``minContains``/``maxContains``;
- strings: ``minLength``/``maxLength``, ``pattern`` (under a time limit);
- numbers: ``minimum``/``maximum``, ``exclusiveMinimum``/``exclusiveMaximum``, ``multipleOf``.

It does **not** enforce :data:`UNENFORCED` (``format`` is an annotation by default in
JSON Schema too); :func:`unenforced_keywords` lists those a schema uses. Unknown keywords
are ignored, as JSON Schema prescribes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ._text import one_line
from ._untrusted_regex import RegexTimeoutError, UntrustedPattern

__all__ = ["UNENFORCED", "SchemaError", "unenforced_keywords", "validate"]

#: Keywords this validator reads past without checking (see the module docstring).
UNENFORCED = frozenset(
    {
        "format",
        "dependentSchemas",
        "dependencies",
        "unevaluatedProperties",
        "unevaluatedItems",
        "$dynamicRef",
        "$recursiveRef",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
    }
)


def unenforced_keywords(schema: Any) -> set[str]:
    """The keywords of :data:`UNENFORCED` that ``schema`` uses anywhere (a remote ``$ref``
    counts as ``"$ref (remote)"``)."""
    found: set[str] = set()
    stack = [schema]
    seen = 0
    while stack and seen < 100_000:  # bounded: a schema is data too
        node = stack.pop()
        seen += 1
        if isinstance(node, dict):
            found.update(key for key in node if key in UNENFORCED)
            ref = node.get("$ref")
            if isinstance(ref, str) and not ref.startswith("#"):
                found.add("$ref (remote)")
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


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


def _passes(value: Any, schema: Any, path: str, root: dict[str, Any]) -> bool:
    try:
        _check(value, schema, path, root)
    except SchemaError:
        return False
    return True


def _check_combinators(value: Any, schema: dict[str, Any], path: str, root: dict[str, Any]) -> None:
    for sub in schema.get("allOf", ()):
        _check(value, sub, path, root)
    if "not" in schema and _passes(value, schema["not"], path, root):
        raise SchemaError(f"{path}: {_short(value)} matches a shape that is not allowed")
    if "if" in schema:
        branch = "then" if _passes(value, schema["if"], path, root) else "else"
        if branch in schema:
            _check(value, schema[branch], path, root)
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
    required = schema.get("required", ())
    for name in [required] if isinstance(required, str) else required:
        if name not in value:
            raise SchemaError(f"{path}: missing required property {name!r}")
    low, high = schema.get("minProperties"), schema.get("maxProperties")
    if isinstance(low, int) and len(value) < low:
        raise SchemaError(f"{path}: needs at least {low} propert(ies), got {len(value)}")
    if isinstance(high, int) and len(value) > high:
        raise SchemaError(f"{path}: allows at most {high} propert(ies), got {len(value)}")
    for name, needs in (schema.get("dependentRequired") or {}).items():
        missing = [n for n in needs if n not in value] if name in value else []
        if missing:
            raise SchemaError(f"{path}: {name!r} needs {', '.join(map(repr, missing))} too")
    names = schema.get("propertyNames")
    patterns = schema.get("patternProperties") or {}
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        where = f"{path}.{name}"
        if names is not None:
            _check(name, names, f"{where} (the name)", root)
        matched = False
        if name in properties:
            matched = True
            _check(item, properties[name], where, root)
        for pattern, sub in patterns.items():
            if _search(pattern, name, path) is not None:
                matched = True
                _check(item, sub, where, root)
        if matched:
            continue
        if extra is False:
            allowed = ", ".join(repr(p) for p in properties) or "none"
            raise SchemaError(f"{path}: unexpected property {name!r} (allowed: {allowed})")
        if isinstance(extra, dict):
            _check(item, extra, where, root)


def _check_array(value: list[Any], schema: dict[str, Any], path: str, root: dict[str, Any]) -> None:
    low, high = schema.get("minItems"), schema.get("maxItems")
    if low is not None and len(value) < low:
        raise SchemaError(f"{path}: needs at least {low} item(s), got {len(value)}")
    if high is not None and len(value) > high:
        raise SchemaError(f"{path}: allows at most {high} item(s), got {len(value)}")
    items = schema.get("items")
    prefix = schema.get("prefixItems")
    rest: Any = items
    if isinstance(items, list):  # the older tuple form: items [...] + additionalItems
        prefix, rest = items, schema.get("additionalItems", True)
    if isinstance(prefix, list):
        for index, (item, sub) in enumerate(zip(value, prefix, strict=False)):
            _check(item, sub, f"{path}[{index}]", root)
    start = len(prefix) if isinstance(prefix, list) else 0
    if isinstance(rest, (dict, bool)):
        for index in range(start, len(value)):
            _check(value[index], rest, f"{path}[{index}]", root)
    if schema.get("uniqueItems") is True:
        for index in range(1, len(value)):
            if any(_same(value[index], earlier) for earlier in value[:index]):
                raise SchemaError(f"{path}: item {index} repeats an earlier item")
    if "contains" in schema:
        count = sum(_passes(item, schema["contains"], path, root) for item in value)
        least, most = schema.get("minContains", 1), schema.get("maxContains")
        if count < least:
            raise SchemaError(f"{path}: needs at least {least} item(s) of the required shape")
        if most is not None and count > most:
            raise SchemaError(f"{path}: allows at most {most} item(s) of that shape")


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
    bounds: tuple[tuple[str, Callable[[float, float], bool], str], ...] = (
        ("minimum", lambda v, b: v >= b, ">="),
        ("maximum", lambda v, b: v <= b, "<="),
        ("exclusiveMinimum", lambda v, b: v > b, ">"),
        ("exclusiveMaximum", lambda v, b: v < b, "<"),
    )
    for keyword, ok, symbol in bounds:
        bound = schema.get(keyword)
        if isinstance(bound, (int, float)) and not isinstance(bound, bool) and not ok(value, bound):
            raise SchemaError(f"{path}: must be {symbol} {bound}, got {value}")
    step = schema.get("multipleOf")
    if (
        isinstance(step, (int, float))
        and not isinstance(step, bool)
        and step > 0
        and _not_multiple(value, step)
    ):
        raise SchemaError(f"{path}: must be a multiple of {step}, got {value}")


def _not_multiple(value: float, step: float) -> bool:
    if isinstance(step, float):
        quotient = value / step
        try:
            return int(quotient) != quotient
        except OverflowError:  # a huge value over a small step: exact arithmetic instead
            return Fraction(value) % Fraction(step) != 0
    return bool(value % step)
