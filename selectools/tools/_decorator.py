"""``@tool``: turn a plain function into a :class:`Tool` from its signature and docstring.

Works bare (``@tool``), empty (``@tool()``) and with options. The result is a
Tool that is still callable like the function.

Parameters filled in at call time are hidden from the LLM's schema:
``injected_kwargs`` (fixed values), ``injected`` (names), and the keys a
``config_injector`` supplies. When ``config_injector`` is given without
``injected=``, it is called ONCE while the tool is being defined to learn its
keys; if that probe raises, a ToolValidationError asks for ``injected=[...]``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Mapping
from types import FrameType
from typing import Any, overload

from ..exceptions import ToolValidationError
from ._docstrings import parse_docstring
from ._inference import infer_parameters, unwrap_callable
from ._tool import Tool

__all__ = ["make_tool", "tool"]

ConfigInjector = Callable[[], Mapping[str, Any] | None]


def caller_frame(depth: int) -> FrameType | None:
    """The frame ``depth`` levels above the caller (to resolve locally defined hint types)."""
    getframe = getattr(sys, "_getframe", None)
    if getframe is None:  # pragma: no cover - non-CPython
        return None
    try:
        return getframe(depth + 1)
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
    func: Callable[..., Any],
    frame: FrameType | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    param_metadata: Mapping[str, Any] | None = None,
    streaming: bool | None = None,
    screen_output: bool = False,
    terminal: bool = False,
    requires_approval: bool = False,
    config_injector: ConfigInjector | None = None,
    injected: Collection[str] | str | None = None,
    injected_kwargs: Mapping[str, Any] | None = None,
) -> Tool:
    """Build a Tool from ``func``; ``frame`` is where it was decorated."""
    if isinstance(func, Tool):
        func = func.function
    if not callable(func):
        raise TypeError(
            f"@tool expects a function, got {type(func).__name__}; "
            "pass options as keywords, e.g. @tool(description='...')"
        )
    tool_name = name or getattr(func, "__name__", "") or ""
    doc = parse_docstring(getattr(unwrap_callable(func), "__doc__", None))
    if isinstance(injected, str):
        injected = [injected]
    hidden = set(injected_kwargs or {}) | set(injected or ())
    if config_injector is not None and injected is None and callable(config_injector):
        hidden |= _probe_injector(config_injector, tool_name)
    parameters = infer_parameters(
        func,
        tool_name=tool_name,
        param_metadata=param_metadata,
        doc_params=doc.params,
        hidden=hidden,
        frame=frame,
    )
    return Tool(
        tool_name,
        description if description is not None else doc.description,
        parameters,
        func,
        injected_kwargs=injected_kwargs,
        config_injector=config_injector,
        streaming=bool(streaming),
        screen_output=screen_output,
        terminal=terminal,
        requires_approval=requires_approval,
    )


@overload
def tool(func: Callable[..., Any], /) -> Tool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    param_metadata: Mapping[str, Any] | None = None,
    streaming: bool | None = None,
    screen_output: bool = False,
    terminal: bool = False,
    requires_approval: bool = False,
    config_injector: ConfigInjector | None = None,
    injected: Collection[str] | str | None = None,
    injected_kwargs: Mapping[str, Any] | None = None,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    func: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    param_metadata: Mapping[str, Any] | None = None,
    streaming: bool | None = None,
    screen_output: bool = False,
    terminal: bool = False,
    requires_approval: bool = False,
    config_injector: ConfigInjector | None = None,
    injected: Collection[str] | str | None = None,
    injected_kwargs: Mapping[str, Any] | None = None,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Make a Tool of a function: ``@tool``, ``@tool()`` or ``@tool(description=...)``.

    Options: ``name`` (default: the function's name), ``description`` (default:
    the docstring before its ``Args:`` section), ``param_metadata``
    (``{"x": {"description": ..., "enum": [...]}}``), ``streaming`` (default:
    True for generator functions), ``screen_output``, ``terminal``,
    ``requires_approval``, ``injected_kwargs`` (fixed hidden arguments),
    ``config_injector`` (a callable returning hidden arguments at each call;
    probed once now unless ``injected`` names its keys).
    """
    options: dict[str, Any] = {
        "name": name,
        "description": description,
        "param_metadata": param_metadata,
        "streaming": streaming,
        "screen_output": screen_output,
        "terminal": terminal,
        "requires_approval": requires_approval,
        "config_injector": config_injector,
        "injected": injected,
        "injected_kwargs": injected_kwargs,
    }
    if func is not None:
        return make_tool(func, caller_frame(1), **options)

    def decorator(fn: Callable[..., Any]) -> Tool:
        return make_tool(fn, caller_frame(1), **options)

    return decorator
