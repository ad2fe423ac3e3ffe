"""Views of an agent and its tools: settings, tool signatures, parameters and schema."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._display import Renderers
from ..providers.base import provider_label
from ..tools import Tool, ToolLike
from ..tools._parameter import placeholder_description
from . import _html as h
from .core import agent_usage_html

if TYPE_CHECKING:
    from ..agent import Agent

__all__ = ["RENDERERS"]


# -- Tool -------------------------------------------------------------------------
def _described(name: str, text: str) -> str:
    """A parameter's description, or "" when nobody wrote one (not the model's placeholder)."""
    return "" if text == placeholder_description(name) else text


def _parameters(tool: ToolLike) -> list[tuple[str, str, bool, str]]:
    """``(name, type, required, description)`` per parameter; from the schema for any ToolLike."""
    if isinstance(tool, Tool):
        return [
            (p.name, p.spec.display, p.required, _described(p.name, p.description))
            for p in tool.parameters
        ]
    parameters = tool.schema().get("parameters") or {}
    required = set(parameters.get("required") or ())
    return [
        (
            str(name),
            str(prop.get("type", "any")),
            name in required,
            _described(str(name), str(prop.get("description", ""))),
        )
        for name, prop in (parameters.get("properties") or {}).items()
    ]


def _signature(tool: ToolLike) -> str:
    params = ", ".join(
        f"{name}: {kind}" + ("" if required else " = …")
        for name, kind, required, _ in _parameters(tool)
    )
    return f"{tool.name}({params})"


def _flags(tool: ToolLike) -> list[str]:
    names = ("terminal", "requires_approval", "streaming", "is_async")
    return [name.replace("_", " ") for name in names if getattr(tool, name, False)]


def _tool_text(tool: ToolLike) -> str:
    flags = "".join(f" [{flag}]" for flag in _flags(tool))
    return f"Tool {_signature(tool)}{flags}: {h.one_line(tool.description, 120)}"


def _tool_html(tool: ToolLike) -> str:
    head = f"{h.badge('tool', 'info')} <code>{h.esc(_signature(tool))}</code> " + "".join(
        h.badge(flag) + " " for flag in _flags(tool)
    )
    rows = [
        [
            f"<code>{h.esc(name)}</code>",
            h.esc(kind),
            "yes" if required else "no",
            h.esc(text) if text else h.muted("—"),
        ]
        for name, kind, required, text in _parameters(tool)
    ]
    body = f"<div>{h.esc(tool.description)}</div>"
    if rows:
        body += h.table(["parameter", "type", "required", "description"], rows)
    source = getattr(tool, "source", None)
    if source:
        body += h.details("Source", h.pre(source))
    body += h.details("JSON schema", h.pre(h.json_text(tool.schema(), indent=2)))
    return h.box(f"<div>{head}</div>{body}", "tool", "info")


# -- Agent ------------------------------------------------------------------------
def _agent_text(agent: Agent) -> str:
    tools = ", ".join(t.name for t in agent.tools) or "none"
    return (
        f"Agent {agent.name!r} · provider {provider_label(agent.provider)} · model {agent.model} · "
        f"tools: {tools}"
    )


def _agent_html(agent: Agent) -> str:
    config = agent.config
    head = (
        f"{h.badge('agent', 'info')} <b>{h.esc(agent.name)}</b> "
        f"{h.muted(f'{provider_label(agent.provider)} · {agent.model}')}"
    )
    tools = " ".join(f"<code>{h.esc(t.name)}</code>" for t in agent.tools) or h.muted("none")
    rows = [
        ["tools", tools],
        ["max iterations", str(config.max_iterations)],
        ["temperature", str(config.temperature)],
        ["memory", h.esc(type(agent.memory).__name__) if agent.memory is not None else "none"],
    ]
    body = h.table(["setting", ""], rows)
    if config.system_prompt:
        body += h.details("System prompt", h.pre(config.system_prompt))
    if agent.tools:
        body += h.details(
            h.esc(f"Tools ({len(agent.tools)})"), "".join(_tool_html(t) for t in agent.tools)
        )
    body += h.details("Usage so far", agent_usage_html(agent.usage))
    return h.box(f"<div>{head}</div>{body}", "agent", "info")


RENDERERS: dict[str, Renderers] = {
    "selectools.agent.core.Agent": {"text": _agent_text, "html": _agent_html},
    "selectools.tools._tool.Tool": {"text": _tool_text, "html": _tool_html},
}
