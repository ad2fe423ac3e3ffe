"""``ToolRegistry``: a named, ordered collection of tools.

Registering a name that is already present replaces that tool in place:
notebook cells get re-run, and re-running ``@registry.tool`` must not fail.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import Any, overload

from ._decorator import ConfigInjector, caller_frame, make_tool
from ._tool import Tool

__all__ = ["ToolRegistry"]


class ToolRegistry:
    """Tools kept in registration order, looked up by name."""

    def __init__(self, tools: Iterable[Tool | Callable[..., Any]] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for item in tools:
            self.register(item)

    @overload
    def tool(self, func: Callable[..., Any], /) -> Tool: ...

    @overload
    def tool(
        self,
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
    ) -> Callable[[Callable[..., Any]], Tool]: ...

    def tool(
        self,
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
        """Like :func:`selectools.tool`, and registers the result."""
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
            return self.register(make_tool(func, caller_frame(1), **options))

        def decorator(fn: Callable[..., Any]) -> Tool:
            return self.register(make_tool(fn, caller_frame(1), **options))

        return decorator

    def register(self, tool: Tool | Callable[..., Any]) -> Tool:
        """Add a Tool (a plain function is made into one first) and return it."""
        if not isinstance(tool, Tool):
            tool = make_tool(tool, caller_frame(1))
        self._tools[tool.name] = tool
        return tool

    def all(self) -> list[Tool]:
        """Every tool, in registration order (a new list)."""
        return list(self._tools.values())

    def get(self, name: str) -> Tool:
        try:
            return self._tools[name]
        except KeyError:
            raise KeyError(self._unknown(name)) from None

    def remove(self, name: str) -> Tool:
        try:
            return self._tools.pop(name)
        except KeyError:
            raise KeyError(self._unknown(name)) from None

    def _unknown(self, name: str) -> str:
        import difflib

        listing = ", ".join(f"'{n}'" for n in self._tools) or "none"
        message = f"No tool named {name!r}. Available tools: {listing}"
        match = difflib.get_close_matches(str(name), list(self._tools), n=1)
        return f"{message}. Did you mean '{match[0]}'?" if match else message

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def __contains__(self, item: object) -> bool:
        if isinstance(item, Tool):
            return self._tools.get(item.name) is item
        return item in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __repr__(self) -> str:
        return f"ToolRegistry({self.names!r})"
