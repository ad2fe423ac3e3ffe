"""Type hints compiled into checkers that emit JSON schema and validate LLM values.

Each annotation is compiled once, when a tool is defined, into a small
:class:`TypeSpec` tree. At call time validation is then a chain of direct
``isinstance`` checks, so a tool with plain ``str``/``int``/``float``/``bool``
parameters validates in well under a microsecond per argument.

Schema choices (the agent loop and the providers rely on them):

* ``str``/``int``/``float``/``bool``/``list``/``dict`` map to the JSON types
  ``string``/``integer``/``number``/``boolean``/``array``/``object``.
* ``Optional[X]`` (also ``X | None``) adds ``"null"`` to X's ``type`` (``{"type":
  ["integer", "null"]}``) and ``None`` to its ``enum``; where X has no single
  ``type`` (a union) it becomes ``anyOf`` with ``{"type": "null"}``.
* ``Union[A, B]`` is ``anyOf``; ``Literal`` and ``Enum`` classes are ``enum``;
  ``list[X]`` has ``items``; ``tuple[X, ...]`` too and ``tuple[A, B]`` has
  ``prefixItems``; ``dict[str, X]`` has ``additionalProperties``.
* A pydantic ``BaseModel`` is its own JSON schema with ``$ref`` inlined and
  ``title`` keys dropped, so the schema is self-contained inside a tool.

Validation is strict where Python is loose: ``bool`` is not an ``int``; an
``int`` is accepted for ``float``; ``None`` only where the hint allows it.
pydantic is imported only when an annotation involves it (a model or ``Field``;
see ``_pydantic.py``).
``set`` is deliberately unsupported: JSON has no sets and the order is lost.
"""

from __future__ import annotations

import collections.abc
import enum
import sys
import types
import typing
from typing import Any

__all__ = [
    "Mismatch",
    "TypeSpec",
    "UnsupportedTypeError",
    "annotation_description",
    "compile_type",
    "enum_contains",
    "format_choices",
    "jsonable",
    "make_nullable",
    "optional",
]

_NoneType = type(None)


class UnsupportedTypeError(TypeError):
    """An annotation this module cannot turn into a JSON schema."""


class Mismatch(Exception):
    """A value does not fit its spec; ``path`` locates it inside nested values.

    ``kind`` is ``"type"`` (wrong type), ``"enum"`` (not an allowed value) or
    ``"value"`` (anything else; ``detail`` says what).
    """

    def __init__(
        self,
        kind: str,
        expected: str,
        got: Any,
        detail: str = "",
        choices: tuple[Any, ...] | list[Any] = (),
    ) -> None:
        super().__init__(kind, expected, detail)
        self.kind = kind
        self.expected = expected
        self.got = got
        self.detail = detail
        self.choices = choices
        self.path: list[str] = []

    def at(self, segment: str) -> Mismatch:
        self.path.insert(0, segment)
        return self


class TypeSpec:
    """A compiled annotation: JSON schema, validation and coercion of one value."""

    display: str = "Any"
    #: True if ``validate`` may return a different object than it received.
    coerces: bool = False
    #: True if ``None`` is an accepted value.
    nullable: bool = False
    #: The plain Python type behind the hint (``int`` for ``Optional[int]``), for hints.
    plain_type: type | None = None
    #: Values accepted when the spec is an enumeration (``Literal`` or ``Enum``).
    choices: tuple[Any, ...] | None = None

    def json_schema(self) -> dict[str, Any]:
        return {}

    def validate(self, value: Any) -> Any:
        """Return the value to pass to the function, or raise :class:`Mismatch`."""
        return value


class _AnySpec(TypeSpec):
    nullable = True


class _PlainSpec(TypeSpec):
    """``str``, ``int``, ``float``, ``bool``, bare ``list``/``dict`` and ``None``."""

    def __init__(self, py_type: type, json_type: str, accept: tuple[type, ...]) -> None:
        self.plain_type = py_type
        self.display = "None" if py_type is _NoneType else py_type.__name__
        self.nullable = py_type is _NoneType
        self._json_type = json_type
        self._accept = accept
        # bool subclasses int, but an LLM sending true for a count is a mistake
        self._reject_bool = bool not in accept and int in accept

    def json_schema(self) -> dict[str, Any]:
        return {"type": self._json_type}

    def validate(self, value: Any) -> Any:
        if isinstance(value, self._accept) and not (self._reject_bool and value.__class__ is bool):
            return value
        raise Mismatch("type", self.display, value)


_PLAIN: dict[Any, _PlainSpec] = {
    str: _PlainSpec(str, "string", (str,)),
    int: _PlainSpec(int, "integer", (int,)),
    float: _PlainSpec(float, "number", (int, float)),
    bool: _PlainSpec(bool, "boolean", (bool,)),
    list: _PlainSpec(list, "array", (list,)),
    dict: _PlainSpec(dict, "object", (dict,)),
    _NoneType: _PlainSpec(_NoneType, "null", (_NoneType,)),
}


class _OptionalSpec(TypeSpec):
    nullable = True

    def __init__(self, inner: TypeSpec) -> None:
        self.inner = inner
        self.display = f"{inner.display} | None"
        self.coerces = inner.coerces
        self.plain_type = inner.plain_type
        self.choices = inner.choices

    def json_schema(self) -> dict[str, Any]:
        return make_nullable(self.inner.json_schema())

    def validate(self, value: Any) -> Any:
        if value is None:
            return None
        return self.inner.validate(value)


def optional(spec: TypeSpec) -> TypeSpec:
    """``spec`` widened to accept ``None`` (unchanged if it already does)."""
    return spec if spec.nullable else _OptionalSpec(spec)


def make_nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """Return ``schema`` widened to also accept ``null`` (see the module docstring)."""
    if not schema:
        return schema
    out = dict(schema)
    if "anyOf" in out:
        out["anyOf"] = [*out["anyOf"], {"type": "null"}]
        return out
    json_type = out.get("type")
    if isinstance(json_type, str):
        out["type"] = [json_type, "null"] if json_type != "null" else "null"
    elif isinstance(json_type, list):
        out["type"] = json_type if "null" in json_type else [*json_type, "null"]
    elif "enum" not in out:
        return {"anyOf": [schema, {"type": "null"}]}
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


class _UnionSpec(TypeSpec):
    def __init__(self, options: list[TypeSpec]) -> None:
        self.options = options
        self.display = " | ".join(o.display for o in options)
        self.coerces = any(o.coerces for o in options)

    def json_schema(self) -> dict[str, Any]:
        return {"anyOf": [o.json_schema() for o in self.options]}

    def validate(self, value: Any) -> Any:
        for option in self.options:
            try:
                return option.validate(value)
            except Mismatch:
                continue
        raise Mismatch("type", self.display, value)


def _same(a: Any, b: Any) -> bool:
    """Equality for enumerations, except that ``True`` never matches ``1``."""
    return bool(a == b) and (a.__class__ is bool) == (b.__class__ is bool)


def enum_contains(choices: tuple[Any, ...] | list[Any], value: Any) -> bool:
    """True if ``value`` is one of ``choices`` (``True`` never matches ``1``)."""
    return any(_same(choice, value) for choice in choices)


def format_choices(choices: tuple[Any, ...] | list[Any]) -> str:
    return ", ".join(repr(jsonable(c, strict=False)) for c in choices)


_JSON_TYPE_OF: dict[type, str] = {
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    _NoneType: "null",
}


def _enum_schema(values: list[Any]) -> dict[str, Any]:
    kinds = {_JSON_TYPE_OF.get(type(v)) for v in values}
    if kinds == {"integer", "number"}:
        kinds = {"number"}
    schema: dict[str, Any] = {}
    if len(kinds) == 1 and None not in kinds:
        schema["type"] = kinds.pop()
    schema["enum"] = values
    return schema


class _LiteralSpec(TypeSpec):
    def __init__(self, values: tuple[Any, ...]) -> None:
        for v in values:
            if not isinstance(v, (str, int, float, bool, enum.Enum)) and v is not None:
                raise UnsupportedTypeError(f"Literal value {v!r} is not JSON")
        self.choices = values
        self.nullable = None in values
        self.coerces = any(isinstance(v, enum.Enum) for v in values)
        self.display = f"Literal[{', '.join(repr(v) for v in values)}]"
        self._json_values = [jsonable(v) for v in values]

    def json_schema(self) -> dict[str, Any]:
        return _enum_schema(list(self._json_values))

    def validate(self, value: Any) -> Any:
        assert self.choices is not None
        for choice, json_value in zip(self.choices, self._json_values, strict=True):
            if _same(choice, value):
                return choice if isinstance(choice, enum.Enum) else value
            if self.coerces and _same(json_value, value):
                return choice
        raise Mismatch("enum", format_choices(self.choices), value, choices=self.choices)


class _EnumSpec(TypeSpec):
    """An ``Enum`` class: the LLM sends a member's value, the function gets the member."""

    coerces = True

    def __init__(self, cls: type[enum.Enum]) -> None:
        self.cls = cls
        self.display = cls.__name__
        members = list(cls)
        self._values = [m.value for m in members]
        for v in self._values:
            if not isinstance(v, (str, int, float, bool)) and v is not None:
                raise UnsupportedTypeError(f"{cls.__name__} has a value {v!r} that is not JSON")
        self._members = members
        self.choices = tuple(self._values)
        self.nullable = None in self._values

    def json_schema(self) -> dict[str, Any]:
        return _enum_schema(list(self._values))

    def validate(self, value: Any) -> Any:
        if isinstance(value, self.cls):
            return value
        for member, member_value in zip(self._members, self._values, strict=True):
            if _same(member_value, value):
                return member
        raise Mismatch("enum", format_choices(self._values), value, choices=self._values)


class _ListSpec(TypeSpec):
    """``list[X]`` (and ``Sequence[X]``, ``tuple[X, ...]``); ``container`` is what the function gets."""

    def __init__(
        self, item: TypeSpec | None, container: type, accept: tuple[type, ...], name: str
    ) -> None:
        self.item = item
        self.container = container
        self._accept = accept
        self.plain_type = container
        if item is None:
            self.display = name
        elif container is tuple:
            self.display = f"tuple[{item.display}, ...]"
        else:
            self.display = f"{name}[{item.display}]"
        self.coerces = (item is not None and item.coerces) or container is tuple

    def json_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "array"}
        if self.item is not None and not isinstance(self.item, _AnySpec):
            schema["items"] = self.item.json_schema()
        return schema

    def validate(self, value: Any) -> Any:
        if not isinstance(value, self._accept):
            raise Mismatch("type", self.display, value)
        seq: Any = value
        item = self.item
        if item is None or isinstance(item, _AnySpec):
            return self.container(seq) if self.coerces else value
        if not item.coerces:
            for i, v in enumerate(seq):
                try:
                    item.validate(v)
                except Mismatch as m:
                    raise m.at(f"[{i}]") from None
            return self.container(seq) if self.container is tuple else value
        out = []
        for i, v in enumerate(seq):
            try:
                out.append(item.validate(v))
            except Mismatch as m:
                raise m.at(f"[{i}]") from None
        return self.container(out)


class _FixedTupleSpec(TypeSpec):
    coerces = True
    plain_type = tuple

    def __init__(self, items: list[TypeSpec]) -> None:
        self.items = items
        self.display = f"tuple[{', '.join(i.display for i in items)}]"

    def json_schema(self) -> dict[str, Any]:
        n = len(self.items)
        return {
            "type": "array",
            "prefixItems": [i.json_schema() for i in self.items],
            "minItems": n,
            "maxItems": n,
        }

    def validate(self, value: Any) -> Any:
        if not isinstance(value, (list, tuple)):
            raise Mismatch("type", self.display, value)
        if len(value) != len(self.items):
            detail = f"must have exactly {len(self.items)} items, got {len(value)}"
            raise Mismatch("value", self.display, value, detail)
        out = []
        for i, (spec, v) in enumerate(zip(self.items, value, strict=True)):
            try:
                out.append(spec.validate(v))
            except Mismatch as m:
                raise m.at(f"[{i}]") from None
        return tuple(out)


class _DictSpec(TypeSpec):
    """``dict[str, X]``: JSON object keys are always strings."""

    plain_type = dict

    def __init__(self, value: TypeSpec) -> None:
        self.value = value
        self.display = f"dict[str, {value.display}]"
        self.coerces = value.coerces

    def json_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object"}
        if not isinstance(self.value, _AnySpec):
            schema["additionalProperties"] = self.value.json_schema()
        return schema

    def validate(self, value: Any) -> Any:
        if not isinstance(value, dict):
            raise Mismatch("type", self.display, value)
        spec = self.value
        out: dict[str, Any] | None = {} if spec.coerces else None
        for k, v in value.items():
            if not isinstance(k, str):
                raise Mismatch("value", self.display, value, f"keys must be str, got {k!r}")
            try:
                new = spec.validate(v)
            except Mismatch as m:
                raise m.at(f"[{k!r}]") from None
            if out is not None:
                out[k] = new
        return value if out is None else out


def jsonable(value: Any, *, strict: bool = True) -> Any:
    """Convert a default or enum value to JSON data; raise TypeError if impossible."""
    if isinstance(value, enum.Enum):
        return jsonable(value.value, strict=strict)
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [jsonable(v, strict=strict) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: jsonable(v, strict=strict) for k, v in value.items()}
    dump = getattr(value, "model_dump", None)
    if callable(dump) and _is_model_class(type(value)):
        return dump(mode="json")
    if strict:
        raise TypeError(f"{value!r} is not JSON")
    return value


def _is_model_class(tp: Any) -> bool:
    """True for pydantic models, without importing pydantic when nothing has."""
    module = sys.modules.get("pydantic")
    if module is None or not isinstance(tp, type):
        return False
    return issubclass(tp, module.BaseModel)


def _is_field_info(meta: Any) -> bool:
    module = sys.modules.get("pydantic.fields")
    return module is not None and isinstance(meta, module.FieldInfo)


def annotation_description(tp: Any) -> str | None:
    """The description carried by ``Annotated[X, "text"]`` or ``Annotated[X, Field(description=...)]``.

    Also found one level down, in ``Optional[Annotated[X, "text"]]``.
    """
    origin = typing.get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        found = (annotation_description(arg) for arg in typing.get_args(tp))
        return next((d for d in found if d), None)
    if origin is not typing.Annotated:
        return None
    for meta in reversed(tp.__metadata__):
        if isinstance(meta, str) and meta.strip():
            return meta.strip()
        if _is_field_info(meta) and meta.description:
            return str(meta.description)
    return None


_SEQUENCE_ORIGINS = (collections.abc.Sequence, collections.abc.MutableSequence)
_MAPPING_ORIGINS = (dict, collections.abc.Mapping, collections.abc.MutableMapping)


def compile_type(tp: Any) -> TypeSpec:
    """Compile an annotation into a :class:`TypeSpec`; raise UnsupportedTypeError if unknown."""
    if tp is typing.Any or tp is object:
        return _AnySpec()
    if tp is None:
        tp = _NoneType
    try:
        plain = _PLAIN.get(tp)
    except TypeError:  # unhashable annotation object
        plain = None
    if plain is not None:
        return plain
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        inner = compile_type(tp.__origin__)
        constraints = [m for m in tp.__metadata__ if _is_field_info(m) and m.metadata]
        if constraints:
            from ._pydantic import ConstrainedSpec

            annotated: Any = typing.Annotated
            parts = (tp.__origin__, *constraints)
            return ConstrainedSpec(inner, annotated[parts])
        return inner
    if origin is typing.Union or origin is types.UnionType:
        options = [a for a in args if a is not _NoneType and a is not None]
        if len(options) == 1:
            spec = compile_type(options[0])
        else:
            spec = _UnionSpec([compile_type(a) for a in options])
        return _OptionalSpec(spec) if len(options) < len(args) and not spec.nullable else spec
    if origin is typing.Literal:
        return _LiteralSpec(args)
    if origin is list:
        return _ListSpec(compile_type(args[0]) if args else None, list, (list,), "list")
    if origin in _SEQUENCE_ORIGINS:
        item = compile_type(args[0]) if args else None
        return _ListSpec(item, list, (list, tuple), "Sequence")
    if tp is tuple or origin is tuple:
        if not args:
            return _ListSpec(None, tuple, (list, tuple), "tuple")
        if len(args) == 2 and args[1] is Ellipsis:
            return _ListSpec(compile_type(args[0]), tuple, (list, tuple), "tuple")
        if args == ((),):
            return _FixedTupleSpec([])
        return _FixedTupleSpec([compile_type(a) for a in args])
    if origin in _MAPPING_ORIGINS:
        if not args:
            return _PLAIN[dict]
        if args[0] not in (str, typing.Any):
            raise UnsupportedTypeError("dict keys must be str: JSON object keys are strings")
        return _DictSpec(compile_type(args[1]))
    supertype = getattr(tp, "__supertype__", None)  # typing.NewType
    if supertype is not None:
        return compile_type(supertype)
    if type(tp).__name__ == "TypeAliasType":  # Python 3.12 ``type X = ...``
        return compile_type(tp.__value__)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _EnumSpec(tp)
    if _is_model_class(tp):
        from ._pydantic import ModelSpec

        return ModelSpec(tp)
    raise UnsupportedTypeError(f"unsupported parameter type: {_type_name(tp)}")


def _type_name(tp: Any) -> str:
    if isinstance(tp, type):
        return tp.__qualname__
    return repr(tp)
