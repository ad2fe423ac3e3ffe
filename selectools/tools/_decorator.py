"""``@tool``: turn a plain function into a :class:`Tool` from its signature and docstring.

Works bare (``@tool``), empty (``@tool()``) and with options. The result is a
Tool that is still callable like the function.

Parameters filled in at call time are hidden from the LLM's schema:
``injected_kwargs`` (fixed values), ``injected`` (names), and the keys a
``config_injector`` supplies. When ``config_injector`` is given without
``injected=``, it is called ONCE while the tool is being defined to learn its
keys; if that probe raises, a ToolValidationError asks for ``injected=[...]``.

A function with neither a docstring nor ``description=`` gets a generated
description (``"Tool search(query)"``); ``description=""`` is an error.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from types import FrameType
from typing import TYPE_CHECKING, Any, overload

from ..exceptions import ToolValidationError
from ..stability import stable
from ._docstrings import parse_docstring
from ._inference import infer_parameters, unwrap_callable
from ._options import ConfigInjector, ToolOptions, tool_options
from ._parameter import ToolParameter
from ._tool import Tool

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._options import ToolKeywords

__all__ = ["decorate", "make_tool", "tool"]

_DEFAULT = ToolOptions()


def caller_frame(depth: int) -> FrameType | None:
    """The frame ``depth`` levels above the caller (to resolve locally defined hint types)."""
    getframe = getattr(sys, "_getframe", None)
    if getframe is None:  # pragma: no cover - non-CPython
        return None
    try:
        frame: FrameType = getframe(depth + 1)
        return frame
    except ValueError:  # pragma: no cover - stack shallower than expected
        return None


def _probe_injector(injector: ConfigInjector, tool_name: str) -> set[str]:
    try:
        supplied = injector()
    except Exception as exc:
        raise ToolValidationError(
            tool_name=tool_name,
            param_name="config_injector",
            issue=(
                f"config_injector raised {type(exc).__name__}: {exc} when called at definition"
                " time to learn which parameters it supplies"
            ),
            suggestion="Name them explicitly: @tool(config_injector=..., injected=['user_id', ...])",
        ) from exc
    if supplied is None:
        return set()
    if not isinstance(supplied, Mapping):
        raise ToolValidationError(
            tool_name=tool_name,
            param_name="config_injector",
            issue=f"config_injector must return a dict, got {type(supplied).__name__}",
            suggestion="Return a dict of keyword arguments, e.g. {'user_id': 123}",
        )
    return {str(k) for k in supplied}


def make_tool(
    func: Callable[..., Any], frame: FrameType | None = None, options: ToolOptions = _DEFAULT
) -> Tool:
    """Build a Tool from ``func``; ``frame`` is where it was decorated."""
    if isinstance(func, Tool):
        func = func.function
    if not callable(func):
        raise TypeError(
            f"@tool expects a function, got {type(func).__name__}; "
            "pass options as keywords, e.g. @tool(description='...')"
        )
    tool_name = options.name or getattr(func, "__name__", "") or ""
    doc = parse_docstring(getattr(unwrap_callable(func), "__doc__", None))
    injected = options.injected
    if isinstance(injected, str):
        injected = [injected]
    hidden = set(options.injected_kwargs or {}) | set(injected or ())
    injector = options.config_injector
    if injector is not None and injected is None and callable(injector):
        hidden |= _probe_injector(injector, tool_name)
    parameters = infer_parameters(
        func,
        tool_name=tool_name,
        param_metadata=options.param_metadata,
        doc_params=doc.params,
        hidden=hidden,
        frame=frame,
    )
    description = options.description
    if description is None:
        description = doc.description or _generated_description(tool_name, parameters)
    return Tool(tool_name, description, parameters, func, options=options)


def _generated_description(name: str, parameters: list[ToolParameter]) -> str:
    """What the model reads for a function with neither a docstring nor ``description=``.

    The OTEL and LANGFUSE pages decorate such functions; the name and the
    parameter names are all we know. An explicit empty ``description=""`` is
    still refused by :class:`Tool` (a deliberate choice, not an omission).
    """
    listing = ", ".join(p.name for p in parameters)
    return f"Tool {name}({listing})"


def decorate(
    func: Callable[..., Any] | None,
    options: ToolOptions,
    then: Callable[[Tool], Tool] | None = None,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """The body of ``@tool`` and ``@registry.tool``: bare or as a decorator factory.

    Must be called directly by the public decorator: the frame two levels up
    (bare use) or the decorator's caller is where local hint types resolve.
    ``then`` (registration) is applied to the built tool.
    """
    if func is not None:
        made = make_tool(func, caller_frame(2), options)
        return then(made) if then is not None else made

    def decorator(fn: Callable[..., Any]) -> Tool:
        made = make_tool(fn, caller_frame(1), options)
        return then(made) if then is not None else made

    return decorator


@overload
def tool(func: Callable[..., Any], /) -> Tool: ...


@overload
def tool(**options: Unpack[ToolKeywords]) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    func: Callable[..., Any] | None = None, /, **options: Any
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Make a Tool of a function: ``@tool``, ``@tool()`` or ``@tool(description=...)``.

    The keywords are the fields of :class:`~selectools.tools.ToolOptions`:
    ``name``, ``description``, ``param_metadata``, ``streaming``,
    ``terminal``, ``requires_approval``, ``screen_output``,
    ``config_injector``, ``injected`` and ``injected_kwargs``.
    """
    return decorate(func, tool_options("@tool()", options))


stable(tool)
