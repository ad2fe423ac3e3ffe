"""``ToolParameter``: one argument the LLM may pass, with its type and description."""

from __future__ import annotations

import contextlib
from typing import Any

from ..exceptions import ToolValidationError
from ..stability import stable
from ._schema import (
    TypeSpec,
    UnsupportedTypeError,
    compile_type,
    jsonable,
    make_nullable,
    optional,
)

__all__ = ["UNSET", "ToolParameter", "placeholder_description"]


def placeholder_description(name: str) -> str:
    """What the model reads for a parameter nobody described (views show it as undescribed)."""
    return f"Parameter '{name}'"


class _Unset:
    """Marker for "no default"; ``None`` is a legitimate default."""

    _instance: _Unset | None = None

    def __new__(cls) -> _Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()

SUPPORTED_TYPES_HINT = (
    "Use str, int, float, bool, list, dict, list[X], tuple[X, ...], dict[str, X], "
    "Optional[X], Union[...], Literal[...], an Enum or a pydantic BaseModel; "
    "hide other arguments from the LLM with injected_kwargs"
)


@stable
class ToolParameter:
    """One LLM-visible argument of a tool.

    ``param_type`` may be any supported annotation (``int``, ``list[str]``,
    ``Optional[X]``, ``Literal[...]``, an ``Enum``, a pydantic model, ...).
    ``required`` defaults to "no default given". ``default`` is schema
    information only: when the LLM omits the argument the function's own
    default applies. A default of ``None`` also lets the LLM send ``null``.
    ``schema`` replaces the generated JSON schema of this property (validation
    still follows ``param_type``).
    """

    __slots__ = (
        "_spec",
        "default",
        "description",
        "enum",
        "name",
        "param_type",
        "required",
        "schema",
    )

    def __init__(
        self,
        name: str,
        param_type: Any,
        description: str,
        required: bool | None = None,
        enum: list[Any] | None = None,
        default: Any = UNSET,
        schema: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.param_type = param_type
        self.description = description
        self.required = (default is UNSET) if required is None else bool(required)
        self.enum = list(enum) if enum is not None else None
        self.default = default
        self.schema = schema
        self._spec: TypeSpec | None = None

    @property
    def spec(self) -> TypeSpec:
        """The compiled type (raises ToolValidationError for an unsupported type)."""
        if self._spec is None:
            self._spec = self._compile("")
        return self._spec

    def _compile(self, tool_name: str) -> TypeSpec:
        try:
            spec = compile_type(self.param_type)
        except UnsupportedTypeError as exc:
            raise ToolValidationError(
                tool_name=tool_name,
                param_name=self.name,
                issue=f"Unsupported parameter type: {exc}",
                suggestion=SUPPORTED_TYPES_HINT,
            ) from None
        if self.default is None:
            spec = optional(spec)
        for value in self.enum or ():
            try:
                spec.validate(value)
            except Exception:
                raise ToolValidationError(
                    tool_name=tool_name,
                    param_name=self.name,
                    issue=f"Enum value {value!r} does not match the type {spec.display}",
                    suggestion="Make every enum value an instance of the parameter's type",
                ) from None
        self._spec = spec
        return spec

    def to_schema(self) -> dict[str, Any]:
        """The JSON schema of this property (``type`` first, then ``description``)."""
        base = dict(self.schema) if self.schema is not None else self.spec.json_schema()
        out: dict[str, Any] = {}
        if "type" in base:
            out["type"] = base.pop("type")
        out["description"] = self.description
        base.pop("description", None)
        out.update(base)
        if self.enum:
            values = [jsonable(v, strict=False) for v in self.enum]
            out["enum"] = values
            if "type" in out and isinstance(out["type"], list) and "null" in out["type"]:
                out = make_nullable(out)
        if self.default is not UNSET:
            # a default JSON cannot represent is left out; the function's default applies
            with contextlib.suppress(TypeError):
                out["default"] = jsonable(self.default)
        return out

    def __repr__(self) -> str:
        display = self._spec.display if self._spec is not None else _type_repr(self.param_type)
        return f"ToolParameter(name={self.name!r}, param_type={display}, required={self.required})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolParameter):
            return NotImplemented
        return all(getattr(self, a) == getattr(other, a) for a in self.__slots__ if a != "_spec")

    __hash__ = None  # type: ignore[assignment]


def _type_repr(tp: Any) -> str:
    return tp.__name__ if isinstance(tp, type) else repr(tp).replace("typing.", "")
