"""Tool JSON schemas rewritten into the OpenAPI subset Gemini's ``parameters`` accepts.

Gemini rejects keys it does not know and type unions, so: ``{"type": [X,
"null"]}`` becomes ``{"type": X, "nullable": true}``; an ``anyOf`` with a null
branch likewise; other unions become ``anyOf``; ``const`` becomes a one-value
``enum``; enums must be strings, so non-string enums are dropped and their
values moved into the description; ``format`` survives only where Gemini
supports it; every other unknown key (``additionalProperties``, ``default``,
``$schema``, ``prefixItems`` …) is dropped. Objects keep ``required`` only for
properties that exist.
"""

from __future__ import annotations

from typing import Any

__all__ = ["gemini_parameters", "to_gemini_schema"]

_KEEP = {
    "description",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "title",
    "minProperties",
    "maxProperties",
}
_FORMATS = {
    "string": {"enum", "date-time"},
    "integer": {"int32", "int64"},
    "number": {"float", "double"},
}


def _split_null(types: list[Any]) -> tuple[list[str], bool]:
    named = [t for t in types if isinstance(t, str) and t != "null"]
    return named, len(named) != len(types)


def to_gemini_schema(schema: Any) -> dict[str, Any]:
    """One JSON schema node converted (recursively)."""
    if not isinstance(schema, dict):
        return {"type": "string"}
    out: dict[str, Any] = {}
    nullable = bool(schema.get("nullable"))
    kind = schema.get("type")
    if isinstance(kind, list):
        named, has_null = _split_null(kind)
        nullable = nullable or has_null
        if len(named) == 1:
            kind = named[0]
        elif named:
            rest = {k: v for k, v in schema.items() if k not in ("type", "enum", "description")}
            out["anyOf"] = [to_gemini_schema({**rest, "type": t}) for t in named]
            kind = None
        else:
            kind = None
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list):
        real = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
        nullable = nullable or len(real) != len(branches)
        if len(real) == 1:
            merged = to_gemini_schema(real[0])
            merged.update({k: v for k, v in out.items() if k != "anyOf"})
            out = merged
        elif real:
            out["anyOf"] = [to_gemini_schema(b) for b in real]
    if isinstance(kind, str):
        out["type"] = kind
    for key in _KEEP:
        if key in schema and key not in out:
            out[key] = schema[key]
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in _FORMATS.get(out.get("type", ""), set()):
        out["format"] = fmt
    _convert_enum(schema, out)
    if out.get("type") == "object" or "properties" in schema:
        properties = schema.get("properties")
        if isinstance(properties, dict) and properties:
            out["type"] = "object"
            out["properties"] = {name: to_gemini_schema(sub) for name, sub in properties.items()}
            required = [r for r in schema.get("required", []) if r in properties]
            if required:
                out["required"] = required
    if out.get("type") == "array":
        out["items"] = to_gemini_schema(schema.get("items", {"type": "string"}))
    if nullable:
        out["nullable"] = True
    return out


def _convert_enum(schema: dict[str, Any], out: dict[str, Any]) -> None:
    values = schema.get("enum")
    if "const" in schema:
        values = [schema["const"]]
    if not isinstance(values, list):
        return
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, str) for v in present):
        out["enum"] = present
        out.setdefault("type", "string")
        return
    allowed = ", ".join(repr(v) for v in present)
    note = f"One of: {allowed}."
    out["description"] = f"{out['description']} {note}" if out.get("description") else note


def gemini_parameters(schema: dict[str, Any]) -> dict[str, Any] | None:
    """A tool's ``parameters`` for Gemini, or ``None`` when it takes no arguments."""
    converted = to_gemini_schema(schema)
    if not converted.get("properties"):
        return None
    return converted
