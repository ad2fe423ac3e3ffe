"""``%%tool``: turn the functions a cell defines into tools, keeping the cell's source.

The cell is parsed first (a syntax error or a cell without a function stops
here, before anything runs), then executed in the notebook namespace like any
cell, so the functions see notebook globals. Every public top-level function
(names starting with ``_`` stay plain helpers) becomes a :class:`Tool` that
replaces it in the namespace and keeps its source. If running the cell or
building any tool fails, the namespace is restored: nothing is half-defined.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from .._view._components import error_line
from ..exceptions import ToolValidationError
from ..tools import Tool, ToolOptions
from ..tools._decorator import make_tool
from .errors import NotebookUsageError

__all__ = ["define_tools"]

_MAGIC = "%%tool"


_DEFAULT = ToolOptions()


def _parse(cell: str) -> tuple[ast.Module, dict[str, str]]:
    """The cell's syntax tree and the source of each public top-level function."""
    try:
        tree = ast.parse(cell, filename="<%%tool cell>")
    except SyntaxError as exc:
        where = f"line {exc.lineno}" if exc.lineno else "the cell"
        raise NotebookUsageError(f"{_MAGIC}: syntax error in {where}: {exc.msg}") from None
    sources: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith(
            "_"
        ):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            lines = cell.splitlines()[first - 1 : node.end_lineno]
            sources[node.name] = "\n".join(lines) + "\n"
    if not sources:
        raise NotebookUsageError(
            f"{_MAGIC}: the cell defines no function; write `def name(arg: type) -> str:` "
            "with a docstring (names starting with _ stay helpers)"
        )
    return tree, sources


def _snapshot_restore(namespace: dict[str, Any]) -> Callable[[], None]:
    before = dict(namespace)

    def restore() -> None:
        for key in [k for k in namespace if k not in before]:
            del namespace[key]
        for key, value in before.items():
            if namespace.get(key, _MISSING) is not value:
                namespace[key] = value

    return restore


_MISSING = object()


def _build(name: str, value: Any, options: ToolOptions) -> Tool:
    if isinstance(value, Tool):
        if options != _DEFAULT:
            raise NotebookUsageError(
                f"{_MAGIC}: '{name}' is already a @tool; give its options to @tool(...) "
                "or drop the decorator"
            )
        return value
    if not callable(value):
        raise NotebookUsageError(
            f"{_MAGIC}: '{name}' is a {type(value).__name__} after the cell ran, not a function"
        )
    try:
        return make_tool(value, None, options)
    except ToolValidationError as exc:
        raise NotebookUsageError(f"{_MAGIC}: '{name}': {error_line(exc)}") from None


def define_tools(
    cell: str,
    namespace: dict[str, Any],
    options: ToolOptions = _DEFAULT,
    *,
    filename: str = "<%%tool cell>",
    flags: int = 0,
) -> list[Tool]:
    """Run ``cell`` in ``namespace`` and replace its public functions by tools (returned)."""
    tree, sources = _parse(cell)
    if (options.name or options.description) and len(sources) > 1:
        raise NotebookUsageError(
            f"{_MAGIC}: --name and --description need a cell with one function; this one "
            f"defines {', '.join(sources)}"
        )
    restore = _snapshot_restore(namespace)
    try:
        try:
            exec(compile(tree, filename, "exec", flags=flags, dont_inherit=True), namespace)
        except Exception as exc:
            raise NotebookUsageError(f"{_MAGIC}: the cell raised {error_line(exc)}") from None
        tools = []
        for name, source in sources.items():
            built = _build(name, namespace.get(name), options)
            built.source = source
            tools.append(built)
    except BaseException:
        restore()
        raise
    for name, built in zip(sources, tools, strict=True):
        namespace[name] = built
    return tools
