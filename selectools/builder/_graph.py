"""A workflow document as an ``AgentGraph``, and (for graphs made that way) back.

:func:`to_graph` builds exactly what the exported script builds, with the same
:mod:`~selectools.builder.runtime` helpers. :func:`from_graph` reads a graph whose
nodes are Agents, subgraphs or the runtime's loop and Human Input nodes, routed by
static edges or the runtime's ``route``: other graphs (plain function nodes, custom
routers) are not something the canvas can show, and it says which node is in the way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import runtime
from ._codegen import flow_edges
from ._document import WorkflowError, validate
from ._pyimport import layout

if TYPE_CHECKING:
    from ..orchestration import AgentGraph

__all__ = ["from_graph", "to_graph"]


def _provider(node: dict[str, Any], provider: Any, force: bool) -> Any:
    if provider is not None and (force or not node.get("provider")):
        return provider
    return node.get("provider", "")


def to_graph(
    doc: dict[str, Any],
    *,
    provider: Any = None,
    force_provider: bool = False,
    outputs: dict[str, str] | None = None,
) -> AgentGraph:
    """The ``AgentGraph`` a workflow describes.

    ``provider`` runs the agents that name none (all of them with
    ``force_provider``); ``outputs`` maps node names to fixed outputs (pinned or
    frozen nodes), which then do not run.
    """
    from ..orchestration import AgentGraph

    doc = validate(doc)
    fixed = outputs or {}
    subgraphs = {
        key: to_graph(sub, provider=provider, force_provider=force_provider)
        for key, sub in doc["subgraphs"].items()
    }
    by_id = {n["id"]: n for n in doc["nodes"]}
    tools: dict[str, Any] = {}
    for node in doc["nodes"]:
        if node["type"] == "agent_tool":
            tools[node["name"]] = runtime.agent_tool(
                node["name"],
                description=node["description"],
                provider=_provider(node, provider, force_provider),
                model=node["model"],
                system_prompt=node["system_prompt"],
                tools=node["tools"],
            )
            tools[node["name"]].function.builder_node["provider"] = node["provider"]
    wired: dict[str, list[str]] = {}
    for edge in doc["edges"]:
        if edge["from_port"] == "tool":
            wired.setdefault(edge["to"], []).append(by_id[edge["from"]]["name"])
    graph = AgentGraph(name=doc["name"])
    for node in doc["nodes"]:
        kind, name = node["type"], node.get("name", "")
        if kind in ("agent", "subgraph") and name in fixed:
            graph.add_node(name, _fixed(fixed[name]))
        elif kind == "agent":
            names = [
                *node["tools"],
                *(t for t in wired.get(node["id"], []) if t not in node["tools"]),
            ]
            made = runtime.agent(
                name,
                provider=_provider(node, provider, force_provider),
                model=node["model"],
                system_prompt=node["system_prompt"],
                tools=[tools.get(t, t) for t in names],
            )
            made.builder_provider = node["provider"]  # type: ignore[attr-defined]
            graph.add_node(name, made)
        elif kind == "loop":
            graph.add_node(
                name,
                runtime.loop(
                    name,
                    max_iterations=node["max_iterations"],
                    exit_condition=node["exit_condition"],
                ),
            )
        elif kind == "hitl":
            graph.add_node(
                name,
                runtime.human_input(
                    name,
                    prompt=node["prompt"],
                    options=node["options"],
                    timeout_s=node["timeout_s"],
                    default_option=node["default_option"],
                ),
            )
        elif kind == "subgraph":
            graph.add_subgraph(name, subgraphs[node["graph"]])
    for nid, edges in flow_edges(doc).items():
        node = by_id[nid]
        targets = [
            "END" if by_id[e["to"]]["type"] == "end" else by_id[e["to"]]["name"] for e in edges
        ]
        if node["type"] == "start":
            graph.add_edge("START", targets[0])
        elif len(edges) == 1 and not edges[0]["condition"] and edges[0]["from_port"] == "out":
            graph.add_edge(node["name"], targets[0])
        else:
            table = [
                (e["from_port"], e["condition"], t) for e, t in zip(edges, targets, strict=True)
            ]
            graph.add_conditional_edge(node["name"], runtime.route(node["name"], table))
    return graph


def _fixed(text: str) -> Any:
    def fixed_output(state: Any) -> str:
        return text

    return fixed_output


def from_graph(graph: AgentGraph, *, _depth: int = 0) -> dict[str, Any]:
    """The workflow document of ``graph``; :class:`WorkflowError` naming a node it cannot show."""
    from ..agent.core import Agent
    from ..orchestration.node import ParallelGroupNode, SubgraphNode

    if _depth > 4:
        raise WorkflowError(f"graph {graph.name!r}: subgraphs nest more than 4 levels deep")
    nodes: list[dict[str, Any]] = [{"id": "start", "type": "start"}]
    edges: list[dict[str, Any]] = []
    subgraphs: dict[str, Any] = {}
    tool_nodes: dict[str, dict[str, Any]] = {}
    for name, node in graph.nodes.items():
        target = getattr(node, "target", None)
        spec = getattr(target, "builder_node", None)
        if isinstance(node, ParallelGroupNode):
            raise WorkflowError(
                f"node {name!r} is a parallel group, which the canvas cannot show", node=name
            )
        if isinstance(node, SubgraphNode):
            key = node.target.name
            subgraphs[key] = from_graph(node.target, _depth=_depth + 1)
            nodes.append({"id": name, "type": "subgraph", "name": name, "graph": key})
        elif isinstance(target, Agent):
            tools = []
            for tool in target.tools:
                inner = getattr(getattr(tool, "function", None), "builder_node", None)
                if inner is not None:
                    tool_nodes.setdefault(inner["name"], dict(inner, id=inner["name"]))
                    edges.append(
                        {"from": inner["name"], "from_port": "tool", "to": name, "to_port": "tools"}
                    )
                    tools.append(inner["name"])
                elif (path := _toolbox_path(tool)) is not None:
                    tools.append(path)
                else:
                    raise WorkflowError(
                        f"agent {name!r} has the tool {tool.name!r}, which is not from selectools.toolbox",
                        node=name,
                    )
            nodes.append(_agent_doc(name, target, tools))
        elif isinstance(spec, dict):
            nodes.append(dict(spec, id=name))
        else:
            raise WorkflowError(
                f"node {name!r} is a plain function; the canvas shows agents, subgraphs and the "
                "builder's loop and Human Input nodes",
                node=name,
            )
    nodes[1:1] = list(tool_nodes.values())
    nodes.append({"id": "end", "type": "end"})
    if graph.entry is not None:
        edges.append({"from": "start", "from_port": "out", "to": graph.entry, "to_port": "in"})
    for src, dst in graph.edges.items():
        edges.append({"from": src, "from_port": "out", "to": _end(dst), "to_port": "in"})
    for src, (router, _paths) in graph.conditional.items():
        table = getattr(router, "builder_edges", None)
        if table is None:
            raise WorkflowError(
                f"node {src!r} is routed by a function the canvas cannot show", node=src
            )
        for port, condition, dst in table:
            edges.append(
                {
                    "from": src,
                    "from_port": port,
                    "to": _end(dst),
                    "to_port": "in",
                    "condition": condition,
                }
            )
    for index, edge in enumerate(edges):
        edge.setdefault("condition", "")
        edge["id"] = f"e{index + 1}"
    doc = {"version": 1, "name": graph.name, "nodes": nodes, "edges": edges, "subgraphs": subgraphs}
    layout(doc)
    return validate(doc)


def _end(name: str) -> str:
    from ..orchestration import AgentGraph

    return "end" if name in (AgentGraph.END, "END") else name


def _agent_doc(name: str, agent: Any, tools: list[str]) -> dict[str, Any]:
    provider = getattr(agent, "builder_provider", "")
    return {
        "id": name,
        "type": "agent",
        "name": name,
        "provider": provider if isinstance(provider, str) else "",
        "model": getattr(agent, "builder_model", ""),
        "system_prompt": agent.config.system_prompt or "",
        "tools": tools,
    }


def _toolbox_path(tool: Any) -> str | None:
    """``selectools.toolbox.module.name`` for a toolbox tool, else None."""
    module = getattr(getattr(tool, "function", None), "__module__", "") or ""
    path = f"{module}.{getattr(tool, 'name', '')}"
    if not module.startswith(runtime.TOOL_PACKAGE):
        return None
    try:
        return path if runtime.resolve_tool(path) is tool else None
    except ValueError:
        return None
