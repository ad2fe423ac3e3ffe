"""Tools: functions an agent's LLM can call, with JSON schema, validation and execution.

``@tool`` builds a :class:`Tool` from a function's type hints and docstring
(its options are a :class:`ToolOptions`); ``Tool(...)`` with
:class:`ToolParameter` objects builds one by hand; :class:`ToolRegistry`
groups tools by name. The agent accepts any :class:`ToolLike` (a tool that is
not a function wrapper: MCP, remote, toolbox tools).
"""

from __future__ import annotations

from ._decorator import tool
from ._options import ToolOptions
from ._parameter import ToolParameter
from ._protocol import ToolLike
from ._registry import ToolRegistry
from ._tool import Tool

__all__ = ["Tool", "ToolLike", "ToolOptions", "ToolParameter", "ToolRegistry", "tool"]
