"""``ToolRegistry``: a named, ordered collection of tools.

Registering a name that is already present replaces that tool in place:
notebook cells get re-run, and re-running ``@registry.tool`` must not fail.
Any :class:`~selectools.tools.ToolLike` can be registered; a plain function is
made into a :class:`Tool` first. A name → tool mapping handed out by
:meth:`ToolRegistry.mapping` is never changed afterwards (the next write copies
it), so whoever took it (a running agent) keeps a stable view while tools are
added or removed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, overload

from ..stability import stable
from ._decorator import caller_frame, decorate, make_tool
from ._options import tool_options
from ._protocol import ToolLike
from ._tool import Tool

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._options import ToolKeywords

__all__ = ["ToolRegistry", "as_tool"]


def as_tool(item: Any, depth: int = 0) -> ToolLike:
    """``item`` itself if it is a tool (a Tool or any ToolLike), else ``@tool`` applied to it.

    ``depth``: how many frames above the caller local hint types resolve.
    Raises TypeError (from ``@tool``) for something that is neither.
    """
    if isinstance(item, (Tool, ToolLike)):
        return item
    return make_tool(item, caller_frame(depth + 1))


@stable
class ToolRegistry:
    """Tools kept in registration order, looked up by name."""

    def __init__(self, tools: Iterable[ToolLike | Callable[..., Any]] = ()) -> None:
        self._tools: dict[str, ToolLike] = {}
        #: whether :meth:`mapping` handed ``_tools`` out (the next write copies it first)
        self._shared = False
        for item in tools:
            self.register(item)

    @overload
    def tool(self, func: Callable[..., Any], /) -> Tool: ...

    @overload
    def tool(self, /, **options: Unpack[ToolKeywords]) -> Callable[[Callable[..., Any]], Tool]: ...

    def tool(
        self, func: Callable[..., Any] | None = None, /, **options: Any
    ) -> Tool | Callable[[Callable[..., Any]], Tool]:
        """:func:`selectools.tool` that also registers the tool it makes."""
        return decorate(func, tool_options("@registry.tool()", options), self._add)

    def _add(self, made: Tool) -> Tool:
        self._writable()[made.name] = made
        return made

    def register(self, tool: ToolLike | Callable[..., Any]) -> ToolLike:
        """Add a tool (a plain function is made into a Tool first) and return it."""
        made = as_tool(tool, depth=1)
        self._writable()[made.name] = made
        return made

    def _writable(self) -> dict[str, ToolLike]:
        """The mapping to write to: a copy once :meth:`mapping` has handed the current one out.

        Copying on every write made registering n tools cost n^2/2 entry copies
        (3,000 tools: 9 us a tool instead of 4); now a burst of writes copies once.
        """
        if self._shared:
            self._tools = dict(self._tools)
            self._shared = False
        return self._tools

    def all(self) -> list[ToolLike]:
        """Every tool, in registration order (a new list)."""
        return list(self._tools.values())

    def mapping(self) -> Mapping[str, ToolLike]:
        """The current name → tool mapping, in order; it is never modified afterwards."""
        self._shared = True
        return self._tools

    def get(self, name: str) -> ToolLike:
        try:
            return self._tools[name]
        except KeyError:
            raise KeyError(self._unknown(name)) from None

    def remove(self, name: str) -> ToolLike:
        if name not in self._tools:
            raise KeyError(self._unknown(name))
        return self._writable().pop(name)

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
        if isinstance(item, str):
            return item in self._tools
        name = getattr(item, "name", None)
        return isinstance(name, str) and self._tools.get(name) is item

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[ToolLike]:
        return iter(list(self._tools.values()))

    def __repr__(self) -> str:
        return f"ToolRegistry({self.names!r})"
