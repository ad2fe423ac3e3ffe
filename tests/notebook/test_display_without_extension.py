"""Core values display in IPython through the display port alone: no ``%load_ext`` needed."""

from __future__ import annotations

from IPython.core.interactiveshell import InteractiveShell

from selectools import Agent
from selectools.testing import ScriptedProvider, reply, tool_call
from selectools.tools import tool
from selectools.trace import StepType


@tool()
def lookup(key: str) -> str:
    """Look a key up."""
    return key.upper()


def test_trace_steps_tool_calls_and_results_format_without_the_extension():
    ip = InteractiveShell.instance()
    assert "selectools" not in ip.extension_manager.loaded
    provider = ScriptedProvider([reply("", tool_call("lookup", key="k")), "done"])
    result = Agent(tools=[lookup], provider=provider).run("go")
    shown = [
        result.trace.filter(StepType.TOOL_EXECUTION)[0],
        result.tool_calls[0],
        result,
        result.trace,
    ]
    for value in shown:
        data, _ = ip.display_formatter.format(value)
        assert {"text/plain", "text/html"} <= set(data), type(value).__name__
        assert "lookup" in data["text/html"], type(value).__name__
