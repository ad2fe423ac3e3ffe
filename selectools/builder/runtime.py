"""What a builder workflow is made of at run time: the helpers its exported scripts call.

A script the builder writes (and :func:`selectools.builder.to_graph`) builds an
ordinary :class:`~selectools.orchestration.AgentGraph` from these helpers, so the
rules of a workflow live in one place:

- :func:`agent` / :func:`agent_tool`: an ``Agent`` from a provider name, model,
  system prompt and tools (dotted paths under ``selectools.toolbox``, or tools);
- :func:`loop`: a pass-through node that counts passes and picks its ``body`` or
  ``done`` port; :func:`human_input`: a node that pauses the graph with an
  ``InterruptRequest`` and picks the port named by the answer;
- :func:`route`: the router after a node: the first edge of the node's port whose
  condition label occurs in the output (case-insensitive, whole word), else the
  port's edge with no condition, else a ``GraphExecutionError`` naming the node;
- :func:`run_cli`: the scripts' ``__main__``: run on ``sys.argv``'s prompt, answer
  interrupts (a terminal asks; otherwise the default option is taken).

Providers: ``""`` means "pick from the environment" (the first provider with a key,
else the offline ``local`` one); the ``SELECTOOLS_PROVIDER`` environment variable,
when set, overrides every agent's provider (``SELECTOOLS_PROVIDER=local`` runs a
script offline).
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Callable, Generator, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..exceptions import GraphExecutionError

if TYPE_CHECKING:
    from ..agent.core import Agent
    from ..orchestration import AgentGraph, GraphState
    from ..tools import Tool

__all__ = [
    "PROVIDER_ENV",
    "agent",
    "agent_tool",
    "human_input",
    "loop",
    "mentions",
    "port_key",
    "provider_named",
    "resolve_tool",
    "route",
    "run_cli",
]

#: the environment variable that overrides every agent's provider
PROVIDER_ENV = "SELECTOOLS_PROVIDER"
#: the only place a workflow's dotted tool paths may point into
TOOL_PACKAGE = "selectools.toolbox."
_PROVIDERS: dict[str, Any] = {}


def provider_named(name: str = "") -> Any:
    """The provider object for a workflow's provider name (one per name and process)."""
    chosen = os.environ.get(PROVIDER_ENV) or name or "auto"
    if chosen not in _PROVIDERS:
        from ..templates import make_provider

        _PROVIDERS[chosen] = make_provider(chosen)
    return _PROVIDERS[chosen]


def resolve_tool(spec: Any) -> Any:
    """A tool object: ``spec`` itself, or the ``@tool`` a ``selectools.toolbox`` dotted path names.

    Only the toolbox is reachable by name: a workflow document is data, and a
    name must not import arbitrary modules.
    """
    if not isinstance(spec, str):
        return spec
    from ..tools import Tool

    module_name, _, attr = spec.rpartition(".")
    if not spec.startswith(TOOL_PACKAGE) or not module_name or not attr.isidentifier():
        raise ValueError(
            f"tool {spec!r}: a workflow names tools by dotted path inside selectools.toolbox "
            "(e.g. selectools.toolbox.datetime_tools.get_current_time) or by an Agent Tool's name"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"tool {spec!r}: cannot import {module_name} ({exc})") from None
    value = getattr(module, attr, None)
    if not isinstance(value, Tool):
        raise ValueError(f"tool {spec!r}: {module_name} has no @tool named {attr!r}")
    return value


def agent(
    name: str,
    *,
    provider: Any = "",
    model: str = "",
    system_prompt: str = "",
    tools: Iterable[Any] = (),
) -> Agent:
    """An Agent node: ``provider`` is a provider name (see the module docstring) or object."""
    from ..agent.config import AgentConfig
    from ..agent.core import Agent

    options: dict[str, Any] = {"name": name}
    if model:
        options["model"] = model
    if system_prompt:
        options["system_prompt"] = system_prompt
    made = provider_named(provider) if isinstance(provider, str) else provider
    built = Agent(
        tools=[resolve_tool(t) for t in tools] or None, provider=made, config=AgentConfig(**options)
    )
    # what the canvas shows for this agent (selectools.builder.from_graph reads it back)
    built.builder_provider = provider if isinstance(provider, str) else ""  # type: ignore[attr-defined]
    built.builder_model = model  # type: ignore[attr-defined]
    return built


def agent_tool(
    name: str,
    *,
    description: str = "",
    provider: Any = "",
    model: str = "",
    system_prompt: str = "",
    tools: Iterable[Any] = (),
) -> Tool:
    """An agent wrapped as a tool: the calling agent sends a request, gets the answer."""
    from ..tools import Tool, ToolParameter

    inner = agent(name, provider=provider, model=model, system_prompt=system_prompt, tools=tools)

    def ask(request: str) -> str:
        return inner.run(request).content

    ask.builder_node = {  # type: ignore[attr-defined]
        "type": "agent_tool",
        "name": name,
        "description": description,
        "provider": provider if isinstance(provider, str) else "",
        "model": model,
        "system_prompt": system_prompt,
        "tools": [t if isinstance(t, str) else t.name for t in tools],
    }

    return Tool(
        name,
        description or f"Ask the {name} agent",
        [ToolParameter("request", str, "what to ask the agent")],
        ask,
    )


def port_key(node: str) -> str:
    """The ``state.data`` key where a loop or Human Input node leaves the port it chose."""
    return f"{node}.port"


def mentions(text: str, label: str) -> bool:
    """Whether ``label`` occurs in ``text`` as a whole word (case-insensitive)."""
    pattern = r"(?<!\w)" + re.escape(label.strip()) + r"(?!\w)"
    return bool(label.strip()) and re.search(pattern, text, flags=re.IGNORECASE) is not None


def _last_output(state: GraphState) -> str:
    from ..orchestration.state import STATE_KEY_LAST_OUTPUT

    value = state.data.get(STATE_KEY_LAST_OUTPUT)
    if value is None:
        return state.messages[-1].text if state.messages else ""
    return value if isinstance(value, str) else str(value)


def loop(name: str, *, max_iterations: int = 3, exit_condition: str = "") -> Callable[..., None]:
    """A loop node: ``done`` once ``exit_condition`` occurs in its input or ``body`` ran
    ``max_iterations`` times, else ``body``. The text passes through unchanged."""

    def loop_node(state: GraphState) -> None:
        passes = int(state.data.get(f"{name}.passes", 0))
        done = passes >= max_iterations or mentions(_last_output(state), exit_condition)
        state.data[f"{name}.passes"] = 0 if done else passes + 1
        state.data[port_key(name)] = "done" if done else "body"

    loop_node.__name__ = name
    loop_node.builder_node = {  # type: ignore[attr-defined]
        "type": "loop",
        "name": name,
        "max_iterations": max_iterations,
        "exit_condition": exit_condition,
    }
    return loop_node


def human_input(
    name: str,
    *,
    prompt: str = "",
    options: Sequence[str] = ("approve", "reject"),
    timeout_s: float = 300,
    default_option: str = "",
) -> Callable[..., Generator[Any, Any, None]]:
    """A Human Input node: pauses the graph; the answer (one of ``options``) picks the port.

    The interrupt's payload carries the options, the timeout and the default,
    which whoever answers uses to resume on time (the builder's server and
    :func:`run_cli` do).
    """
    from ..orchestration import InterruptRequest

    choices = list(options)
    fallback = default_option or choices[0]

    def human_node(state: GraphState) -> Generator[Any, Any, None]:
        payload = {"options": choices, "timeout_s": timeout_s, "default_option": fallback}
        answer = yield InterruptRequest(prompt=prompt, payload=payload, key=name)
        if answer not in choices:
            raise GraphExecutionError(
                f"node {name!r} was answered {answer!r}; answer one of {choices}",
                node_name=name,
            )
        state.data[port_key(name)] = answer

    human_node.__name__ = name
    human_node.builder_node = {  # type: ignore[attr-defined]
        "type": "hitl",
        "name": name,
        "prompt": prompt,
        "options": choices,
        "timeout_s": timeout_s,
        "default_option": default_option,
    }
    return human_node


def route(name: str, edges: Sequence[tuple[str, str, str]]) -> Callable[[GraphState], str]:
    """The router after node ``name``: ``edges`` are ``(port, condition, target)`` in order."""
    from ..orchestration import AgentGraph

    def router(state: GraphState) -> str:
        port = str(state.data.get(port_key(name), "out"))
        text = _last_output(state)
        mine = [(condition, target) for p, condition, target in edges if p == port]
        for condition, target in mine:
            if condition and mentions(text, condition):
                return AgentGraph.END if target == "END" else target
        for condition, target in mine:
            if not condition:
                return AgentGraph.END if target == "END" else target
        labels = [c for c, _ in mine]
        raise GraphExecutionError(
            f"node {name!r}: no edge of its {port!r} port matches the output (conditions "
            f"{labels}); add an edge with no condition as the default",
            node_name=name,
        )

    router.__name__ = f"route_{name}"
    router.builder_edges = [tuple(e) for e in edges]  # type: ignore[attr-defined]
    return router


def _answer(prompt: str, payload: Any) -> str:
    options = list(payload.get("options", [])) if isinstance(payload, dict) else []
    default = payload.get("default_option", "") if isinstance(payload, dict) else ""
    if not sys.stdin.isatty():
        print(f"[{prompt}] no terminal: taking the default {default!r}")
        return str(default)
    while True:
        given = input(f"{prompt} {options} (Enter = {default}): ").strip() or default
        if given in options:
            return str(given)


def run_cli(graph: AgentGraph, argv: Sequence[str] | None = None) -> str:
    """Run ``graph`` on the prompt in ``argv`` (default: ``sys.argv``), print and return the answer."""
    from ..orchestration import InMemoryCheckpointStore

    args = list(sys.argv[1:] if argv is None else argv)
    prompt = " ".join(args) or "Hello!"
    store = InMemoryCheckpointStore()
    result = graph.run(prompt, checkpoint_store=store)
    while result.interrupted and result.interrupt is not None and result.interrupt_id:
        answer = _answer(result.interrupt.prompt, result.interrupt.payload)
        result = graph.resume(result.interrupt_id, answer, checkpoint_store=store)
    print(result.content)
    return result.content
