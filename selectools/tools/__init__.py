"""Tools: functions an agent's LLM can call, with JSON schema, validation and execution.

``@tool`` builds a :class:`Tool` from a function's type hints and docstring;
``Tool(...)`` with :class:`ToolParameter` objects builds one by hand;
:class:`ToolRegistry` groups tools by name.
"""

from __future__ import annotations

from ._decorator import tool
from ._parameter import ToolParameter
from ._registry import ToolRegistry
from ._tool import Tool

__all__ = ["Tool", "ToolParameter", "ToolRegistry", "tool"]
