"""Validate arguments against a schema someone else wrote (an MCP server's ``inputSchema``).

A remote schema can use any JSON Schema keyword (``patternProperties``, ``prefixItems``
for tuples, ``if``/``then``, ``dependentSchemas`` …), so it is checked with the
``jsonschema`` package (a kept library; installed with the ``mcp`` extra), in the draft
the schema names (2020-12 when it names none). Two things are ours:

- every regex of the schema (``pattern``, ``patternProperties``, and the latter where
  ``additionalProperties`` decides which names are extra) runs through
  :class:`~selectools._untrusted_regex.UntrustedPattern`, under a time limit, because the
  server chose it and the model chose the value;
- hostile schemas and values fail as :class:`~selectools._jsonschema.SchemaError` with
  the failing path, never as ``RecursionError``, a remote ``$ref`` fetch or a crash.

A schema ``jsonschema`` itself rejects as invalid (a server's typo) is checked with our
lenient validator (:mod:`selectools._jsonschema`) instead, which enforces what it
understands; so is every schema when ``jsonschema`` is not installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ._jsonschema import SchemaError, validate as validate_locally
from ._text import one_line
from ._untrusted_regex import RegexTimeoutError, UntrustedPattern

__all__ = ["RemoteSchema"]


class RemoteSchema:
    """One remote schema, compiled once: call :meth:`check` for each value.

    The ``jsonschema`` validator is built on the first check (a tool that is never called
    costs nothing) and kept, so a call pays for validation only.
    """

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self._validator: Any = _UNBUILT

    def check(self, value: Any) -> None:
        """Raise :class:`SchemaError` when ``value`` does not match the schema."""
        if self._validator is _UNBUILT:
            self._validator = _build_validator(self.schema)
        if self._validator is None:
            validate_locally(value, self.schema)
            return
        try:
            error = _first_error(self._validator, value)
        except RecursionError:
            raise SchemaError("$: the value or the schema nests too deeply to check") from None
        except SchemaError:
            raise
        except Exception as exc:  # an unresolvable $ref, a remote $ref refused, a broken keyword
            raise SchemaError(
                f"$: the tool's schema could not be applied: {one_line(exc, 200)}"
            ) from None
        if error is not None:
            where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.path)
            raise SchemaError(f"{where}: {one_line(error.message, 300)}")


_UNBUILT = object()


def _first_error(validator: Any, value: Any) -> Any:
    from jsonschema.exceptions import best_match

    return best_match(validator.iter_errors(value))


def _build_validator(schema: dict[str, Any]) -> Any:
    try:
        from jsonschema import validators
        from jsonschema.exceptions import SchemaError as InvalidSchema
    except ImportError:
        return None
    base = validators.validator_for(schema, default=validators.Draft202012Validator)
    cls = validators.extend(
        base,
        {
            "pattern": _pattern,
            "patternProperties": _pattern_properties,
            "additionalProperties": _additional_properties,
        },
    )
    try:
        cls.check_schema(schema)
    except (InvalidSchema, RecursionError):
        return None  # the server's schema is not valid JSON Schema: check what we understand
    return cls(schema)


def _search(pattern: str, text: str) -> bool:
    try:
        return UntrustedPattern(pattern).search(text) is not None
    except RegexTimeoutError as exc:
        raise SchemaError(
            f"$: the schema's pattern {pattern!r} could not be checked: {exc}"
        ) from None
    except ValueError as exc:
        raise SchemaError(f"$: the schema's pattern {pattern!r} is unusable: {exc}") from None


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{one_line(instance, 60)!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for name, item in instance.items():
            if _search(pattern, name):
                yield from validator.descend(item, subschema, path=name, schema_path=pattern)


def _additional_properties(
    validator: Any, additional: Any, instance: Any, schema: dict[str, Any]
) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    known = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    extras = [
        name
        for name in instance
        if name not in known and not any(_search(p, name) for p in patterns)
    ]
    if validator.is_type(additional, "object"):
        for name in extras:
            yield from validator.descend(instance[name], additional, path=name)
    elif not additional and extras:
        listed = ", ".join(repr(name) for name in sorted(extras)[:5])
        yield ValidationError(f"unexpected propert{'y' if len(extras) == 1 else 'ies'} {listed}")
