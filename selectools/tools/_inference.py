"""Reading a function's signature, type hints and docstring into ToolParameters.

Rules: names starting with ``_``, ``*args``/``**kwargs`` and hidden (injected)
names are skipped; a missing annotation means ``str``; a parameter with a
default is optional. A description comes from ``param_metadata``, else
``Annotated[X, "..."]`` / ``Annotated[X, Field(description=...)]``, else the
docstring's ``Args:`` section, else ``"Parameter 'x'"``.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Collection, Mapping
from types import FrameType
from typing import Any

from ..exceptions import ToolValidationError
from ._parameter import UNSET, ToolParameter, placeholder_description
from ._schema import annotation_description

__all__ = ["infer_parameters", "unwrap_callable"]

_SKIPPED_KINDS = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def unwrap_callable(func: Any) -> Any:
    """The plain function behind partials and decorators (for globals and docstrings)."""
    while isinstance(func, functools.partial):
        func = func.func
    return inspect.unwrap(func)


def _resolve_hints(
    func: Callable[..., Any],
    signature: inspect.Signature,
    frame: FrameType | None,
    tool_name: str,
    wanted: Collection[str],
) -> dict[str, Any]:
    """Evaluate (possibly string) annotations of the parameters the LLM will see.

    ``typing.get_type_hints`` handles the usual case. It fails for types defined
    inside a function (or a test) when the module uses ``from __future__ import
    annotations``; then each annotation is retried with the decorating frame's
    locals, and only an annotation that still cannot be resolved is an error.
    """
    try:
        return typing.get_type_hints(func, include_extras=True)
    except Exception:
        pass
    globalns = getattr(unwrap_callable(func), "__globals__", {})
    localns = dict(frame.f_locals) if frame is not None else None
    hints: dict[str, Any] = {}
    for name, param in signature.parameters.items():
        if param.annotation is inspect.Parameter.empty or name not in wanted:
            continue

        def holder() -> None:  # pragma: no cover - only carries one annotation
            pass

        holder.__annotations__ = {name: param.annotation}
        try:
            hints[name] = typing.get_type_hints(holder, globalns, localns, include_extras=True)[
                name
            ]
        except Exception as exc:
            raise ToolValidationError(
                tool_name=tool_name,
                param_name=name,
                issue=f"Cannot resolve the type hint {param.annotation!r}: {exc}",
                suggestion="Define or import the type before the function is decorated",
            ) from None
    return hints


def infer_parameters(
    func: Callable[..., Any],
    *,
    tool_name: str,
    param_metadata: Mapping[str, Any] | None,
    doc_params: Mapping[str, str],
    hidden: Collection[str],
    frame: FrameType | None = None,
) -> list[ToolParameter]:
    """One ToolParameter per LLM-visible parameter of ``func``, in signature order."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise ToolValidationError(
            tool_name=tool_name,
            issue=f"Cannot read the function's signature: {exc}",
            suggestion="Build the Tool by hand with Tool(..., parameters=[ToolParameter(...)])",
        ) from None
    metadata = dict(param_metadata or {})
    visible = [
        p
        for name, p in signature.parameters.items()
        if p.kind not in _SKIPPED_KINDS and not name.startswith("_") and name not in hidden
    ]
    for p in visible:
        if p.kind is inspect.Parameter.POSITIONAL_ONLY and p.default is inspect.Parameter.empty:
            raise ToolValidationError(
                tool_name=tool_name,
                param_name=p.name,
                issue="Positional-only parameters cannot receive LLM arguments",
                suggestion="Remove the '/' from the signature or give the parameter a default",
            )
    visible = [p for p in visible if p.kind is not inspect.Parameter.POSITIONAL_ONLY]
    hints = _resolve_hints(func, signature, frame, tool_name, {p.name for p in visible})
    parameters = []
    for p in visible:
        annotation = hints.get(p.name, p.annotation)
        if annotation is inspect.Parameter.empty:
            annotation = str
        meta = metadata.get(p.name) or {}
        if isinstance(meta, str):
            meta = {"description": meta}
        description = (
            meta.get("description")
            or annotation_description(annotation)
            or doc_params.get(p.name)
            or placeholder_description(p.name)
        )
        has_default = p.default is not inspect.Parameter.empty
        parameters.append(
            ToolParameter(
                name=p.name,
                param_type=annotation,
                description=description,
                required=not has_default,
                enum=meta.get("enum"),
                default=p.default if has_default else UNSET,
            )
        )
    return parameters
