"""Text pictures of a graph: a Mermaid flowchart and the ASCII overview ``visualize`` prints."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .node import ParallelGroupNode, SubgraphNode

if TYPE_CHECKING:
    from .graph import AgentGraph

__all__ = ["edge_list", "to_mermaid", "visualize"]

END = "__end__"


def edge_list(graph: AgentGraph) -> list[tuple[str, str, str]]:
    """``(from, to, label)`` for every static and mapped conditional edge, in insertion order."""
    edges = [(src, dst, "") for src, dst in graph.edges.items() if src not in graph.conditional]
    for src, (router, path_map) in graph.conditional.items():
        if path_map:
            edges += [(src, dst, key) for key, dst in path_map.items()]
        else:
            edges.append((src, "?", getattr(router, "__name__", "router")))
    return edges


def _label(graph: AgentGraph, name: str) -> str:
    if name == END:
        return f'{END}["END"]'
    if name == "?":
        return '__route__{"route"}'
    node = graph.nodes.get(name)
    kind = node.label if node is not None else "?"
    return f'{name}["{name} ({kind})"]'


def to_mermaid(graph: AgentGraph) -> str:
    lines = ["graph TD"]
    for src, dst, label in edge_list(graph):
        arrow = f'-->|"{label}"|' if label else "-->"
        lines.append(f"    {_label(graph, src)} {arrow} {_label(graph, dst)}")
    for node in graph.nodes.values():
        if isinstance(node, ParallelGroupNode):
            for child in node.children:
                lines.append(f"    {_label(graph, node.name)} -.-> {_label(graph, child)}")
    return "\n".join(lines)


def visualize(graph: AgentGraph, format: str = "ascii") -> str:
    """Print (and return) the ASCII overview; ``"mermaid"`` prints :func:`to_mermaid`."""
    if format == "mermaid":
        text = to_mermaid(graph)
    elif format == "ascii":
        text = _ascii(graph)
    else:
        raise ValueError(
            f"visualize(format={format!r}): use 'ascii' or 'mermaid' (in a notebook, display the "
            "graph itself for the SVG view)"
        )
    print(text)
    return text


def _ascii(graph: AgentGraph) -> str:
    lines = [f"Graph: {graph.name}", "=" * 40, f"Entry: {graph.entry}", ""]
    for name, node in graph.nodes.items():
        arrow = "->" if name == graph.entry else "  "
        if isinstance(node, ParallelGroupNode):
            lines.append(f"{arrow} [parallel] {name}: {node.children}")
        elif isinstance(node, SubgraphNode):
            lines.append(f"{arrow} [subgraph] {name}")
        else:
            lines.append(f"{arrow} [node]     {name} ({node.label})")
    lines += ["", "Edges:"]
    for src, dst, label in edge_list(graph):
        lines.append(f"  {src} --[{label}]--> {dst}" if label else f"  {src} --> {dst}")
    return "\n".join(lines)
