"""pydantic models and ``Field`` constraints as tool parameter types.

Only imported when an annotation is a pydantic model or an ``Annotated[X,
Field(...)]`` with constraints, so tools with plain types never import pydantic
(which is slow to import). Model schemas are made self-contained (``$ref``
inlined, ``title`` dropped) because they are embedded in a tool's schema.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ._schema import Mismatch, TypeSpec

__all__ = ["ConstrainedSpec", "ModelSpec", "inline_refs"]


def _pydantic_error_text(exc: Any, limit: int = 3) -> str:
    """One line from a pydantic ValidationError: ``loc: msg; loc: msg (and N more)``."""
    errors = exc.errors(include_url=False)
    parts = []
    for err in errors[:limit]:
        loc = ".".join(str(p) for p in err.get("loc", ()))
        parts.append(f"{loc}: {err['msg']}" if loc else str(err["msg"]))
    text = "; ".join(parts)
    if len(errors) > limit:
        text += f" (and {len(errors) - limit} more)"
    return text


class ModelSpec(TypeSpec):
    """A pydantic model: the LLM sends an object, the function gets a validated instance."""

    coerces = True

    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.display = cls.__name__
        self._schema = inline_refs(cls.model_json_schema())  # type: ignore[attr-defined]

    def json_schema(self) -> dict[str, Any]:
        return copy.deepcopy(self._schema)

    def validate(self, value: Any) -> Any:
        try:
            return self.cls.model_validate(value)  # type: ignore[attr-defined]
        except ValidationError as exc:
            detail = f"is not a valid {self.display}: {_pydantic_error_text(exc)}"
            raise Mismatch("value", self.display, value, detail) from None


class ConstrainedSpec(TypeSpec):
    """``Annotated[X, Field(ge=0, ...)]``: X's strict check, then pydantic's constraints."""

    def __init__(self, inner: TypeSpec, annotation: Any) -> None:
        self.inner = inner
        self.display = inner.display
        self.coerces = inner.coerces
        self.nullable = inner.nullable
        self.plain_type = inner.plain_type
        self.choices = inner.choices
        self._adapter = TypeAdapter(annotation)
        extra = inline_refs(self._adapter.json_schema())
        skip = {"type", "description", "default", "items", "properties", "anyOf", "$defs"}
        self._extra = {k: v for k, v in extra.items() if k not in skip}

    def json_schema(self) -> dict[str, Any]:
        return {**self.inner.json_schema(), **copy.deepcopy(self._extra)}

    def validate(self, value: Any) -> Any:
        value = self.inner.validate(value)
        try:
            self._adapter.validate_python(value)
        except ValidationError as exc:
            detail = f"is invalid: {_pydantic_error_text(exc)}"
            raise Mismatch("value", self.display, value, detail) from None
        return value


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Resolve ``#/$defs/...`` references in place and drop ``title`` keys.

    A tool's parameter schema is embedded in a larger document, so references
    to a root ``$defs`` would dangle. Recursive models are cut to ``{"type": "object"}``.
    """
    defs = schema.get("$defs", {})

    def walk(node: Any, stack: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [walk(n, stack) for n in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.rsplit("/", 1)[1]
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            if name in stack or name not in defs:
                return {"type": "object", **walk(siblings, stack)}
            return {**walk(defs[name], (*stack, name)), **walk(siblings, stack)}
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in ("title", "$defs"):
                continue
            if key in ("properties", "patternProperties") and isinstance(value, dict):
                out[key] = {k: walk(v, stack) for k, v in value.items()}
            else:
                out[key] = walk(value, stack)
        return out

    result: dict[str, Any] = walk(schema, ())
    return result
