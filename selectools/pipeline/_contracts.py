"""Type contracts between adjacent steps: a warning at build time, never an error.

A step's input and output types come from its function's annotations (or are
given). Joining two steps whose declared types cannot meet warns with
:class:`PipelineTypeWarning`; generics compare by their origin, and what cannot
be checked (``Any``, unions, type variables) is not.
"""

from __future__ import annotations

import inspect
import typing
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._step import Step

__all__ = ["PipelineTypeWarning", "check_junction", "hints", "plain"]

_SKIP_TYPES: tuple[Any, ...] = (Any, object, None)
# PEP 484's numeric tower: an int is acceptable where a float or complex is expected.
_NUMERIC_OK = {(int, float), (int, complex), (float, complex)}


class PipelineTypeWarning(UserWarning):
    """Adjacent steps declare incompatible types (advisory: the pipeline still runs)."""


def hints(fn: Callable[..., Any]) -> tuple[Any, Any]:
    """(first parameter's annotation, return annotation) of ``fn``, ``None`` where unknown."""
    try:
        found = typing.get_type_hints(fn)
    except Exception:  # unresolvable forward references, builtins without annotations
        return None, None
    try:
        params = [
            p
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
        ]
    except (TypeError, ValueError):
        params = []
    first = found.get(params[0].name) if params else None
    return first, found.get("return")


def plain(tp: Any) -> type | None:
    """The class to compare for ``tp`` (a generic's origin), or ``None`` when not checkable."""
    if tp in _SKIP_TYPES:
        return None
    origin = typing.get_origin(tp)
    if origin is not None:
        tp = origin
    return tp if isinstance(tp, type) else None  # Union, Optional, TypeVar...: not checked


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or repr(tp)


def check_junction(left: Step, right: Step, stacklevel: int = 4) -> None:
    """Warn when ``left``'s declared output cannot be ``right``'s declared input."""
    out, inp = left._out_cls, right._in_cls
    if out is None or inp is None or issubclass(out, inp) or (out, inp) in _NUMERIC_OK:
        return
    warnings.warn(
        f"Pipeline type mismatch: {left.name!r} outputs {_type_name(left.output_type)} "
        f"but {right.name!r} expects {_type_name(right.input_type)}",
        PipelineTypeWarning,
        stacklevel=stacklevel,
    )
