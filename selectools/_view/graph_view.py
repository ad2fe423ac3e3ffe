"""An ``AgentGraph`` drawn as SVG, laid out in Python (offline: no mermaid, graphviz or CDN).

Layout: rows from the entry node downwards in breadth-first order over the
static edges, the mapped conditional edges and parallel groups (a group's
children sit side by side in one row, inside a dashed frame named after the
group); nodes nothing reaches go last. Edges that go back up (loops) are drawn
as curves on the right. The same graph and statuses always give the same SVG,
so a notebook's final render is checkable.

Status colours: pending, running, done, failed, interrupted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._display import Renderers
from . import _html as h

if TYPE_CHECKING:
    from ..orchestration import AgentGraph, GraphResult

__all__ = [
    "RENDERERS",
    "STATUS_COLOURS",
    "graph_html",
    "graph_layout",
    "graph_svg",
    "result_html",
    "statuses_from_trace",
]

END = "__end__"
STATUS_COLOURS = {
    "pending": "#8b949e",
    "running": "#2f81f7",
    "done": "#2ea043",
    "failed": "#da3633",
    "interrupted": "#d29922",
}
_W, _H, _GAP_X, _GAP_Y, _PAD = 132, 34, 22, 46, 16


def _successors(graph: AgentGraph, name: str) -> list[str]:
    out = []
    if name in graph.conditional:
        _router, path_map = graph.conditional[name]
        out += list((path_map or {}).values())
        if name in graph.edges:
            out.append(graph.edges[name])
    elif name in graph.edges:
        out.append(graph.edges[name])
    return out


def graph_layout(graph: AgentGraph) -> tuple[list[list[str]], dict[str, list[str]]]:
    """Rows of slot names (a slot is a node or a parallel group) and each group's children."""
    groups = {
        name: list(getattr(node, "children", ()))
        for name, node in graph.nodes.items()
        if node.kind == "parallel"
    }
    in_group = {child for children in groups.values() for child in children}
    slots = [n for n in graph.nodes if n not in in_group]
    targets = {t for n in graph.nodes for t in _successors(graph, n)}
    if END in targets:
        slots.append(END)
    depth: dict[str, int] = {}
    order: list[str] = []
    queue = [graph.entry] if graph.entry in graph.nodes else []
    if queue:
        depth[queue[0]] = 0
    while queue:
        name = queue.pop(0)
        order.append(name)
        for nxt in _successors(graph, name):
            if nxt in in_group or nxt in depth or (nxt not in graph.nodes and nxt != END):
                continue
            depth[nxt] = depth[name] + 1
            queue.append(nxt)
    last = max(depth.values(), default=-1)
    for name in slots:  # unreachable (or reached only through a router without a path_map)
        if name not in depth:
            last += 1 if name == END or not order else 0
            depth[name] = max(last, 0) + (1 if name != END else 0)
            order.append(name)
    if END in depth:  # END always closes the picture
        depth[END] = max(d for n, d in depth.items() if n != END) + 1 if len(depth) > 1 else 1
    rows: list[list[str]] = [[] for _ in range(max(depth.values(), default=-1) + 1)]
    for name in order:
        if name in depth and name not in in_group:
            rows[depth[name]].append(name)
    return [row for row in rows if row], groups


def graph_svg(graph: AgentGraph, statuses: dict[str, str] | None = None) -> str:
    """``<svg>`` of ``graph``; ``statuses`` maps node names to a key of :data:`STATUS_COLOURS`."""
    statuses = statuses or {}
    rows, groups = graph_layout(graph)

    def width_of(slot: str) -> int:
        n = len(groups.get(slot, [])) or 1
        return n * _W + (n - 1) * _GAP_X + (2 * 8 if slot in groups else 0)

    row_widths = [sum(width_of(s) for s in row) + _GAP_X * (len(row) - 1) for row in rows]
    total_w = max(row_widths, default=_W) + 2 * _PAD + 60
    total_h = len(rows) * (_H + _GAP_Y) - _GAP_Y + 2 * _PAD + 16
    boxes: dict[str, tuple[float, float]] = {}  # name -> centre
    frames = []
    for r, row in enumerate(rows):
        y = _PAD + 8 + r * (_H + _GAP_Y)
        x = _PAD + (total_w - 60 - 2 * _PAD - row_widths[r]) / 2
        for slot in row:
            w = width_of(slot)
            if slot in groups:
                frames.append((slot, x, y - 8, w, _H + 16))
                cx = x + 8
                for child in groups[slot]:
                    boxes[child] = (cx + _W / 2, y + _H / 2)
                    cx += _W + _GAP_X
                boxes[slot] = (x + w / 2, y + _H / 2)
            else:
                boxes[slot] = (x + w / 2, y + _H / 2)
            x += w + _GAP_X
    half = {name: (width_of(name) / 2 if name in groups else _W / 2) for name in boxes}
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="selectools-graph" width="{total_w:.0f}" '
        f'height="{total_h:.0f}" viewBox="0 0 {total_w:.0f} {total_h:.0f}" font-size="12" '
        'font-family="system-ui, sans-serif">',
        '<defs><marker id="st-graph-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        'fill="#8b949e"/></marker></defs>',
    ]
    for slot, x, y, w, hh in frames:
        parts.append(
            f'<g class="group" data-node="{h.esc(slot)}"><rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" '
            f'height="{hh:.1f}" rx="8" fill="none" stroke="#8b949e" stroke-dasharray="4 3"/>'
            f'<text x="{x + 4:.1f}" y="{y - 3:.1f}" fill="#8b949e" font-size="10">{h.esc(slot)} '
            "(parallel)</text></g>"
        )
    for src, dst, label in _edges(graph):
        if src not in boxes or dst not in boxes:
            continue
        (x1, y1), (x2, y2) = boxes[src], boxes[dst]
        if y2 > y1:  # downwards: bottom of src to top of dst
            sy = y1 + _H / 2 + (8 if src in groups else 0)
            ey = y2 - _H / 2 - (8 if dst in groups else 0)
            path = f"M{x1:.1f},{sy:.1f} L{x2:.1f},{ey:.1f}"
            lx, ly = (x1 + x2) / 2 + 4, (sy + ey) / 2
        else:  # back edge or same row: a curve on the right
            sx, ex = x1 + half[src], x2 + half[dst]
            bend = max(sx, ex) + 40
            path = f"M{sx:.1f},{y1:.1f} C{bend:.1f},{y1:.1f} {bend:.1f},{y2:.1f} {ex:.1f},{y2:.1f}"
            lx, ly = bend - 18, (y1 + y2) / 2
        parts.append(
            f'<path d="{path}" fill="none" stroke="#8b949e" stroke-width="1.2" '
            f'marker-end="url(#st-graph-arrow)"/>'
        )
        if label:
            parts.append(
                f'<text x="{lx:.1f}" y="{ly:.1f}" fill="#8b949e" font-style="italic" '
                f'font-size="10">{h.esc(label)}</text>'
            )
    for name, (cx, cy) in boxes.items():
        if name in groups:
            continue
        status = statuses.get(name, "pending")
        colour = STATUS_COLOURS.get(status, STATUS_COLOURS["pending"])
        if name == END:
            parts.append(
                f'<g class="node end" data-node="{END}"><ellipse cx="{cx:.1f}" cy="{cy:.1f}" rx="30" '
                f'ry="{_H / 2 - 2:.1f}" fill="{colour}" fill-opacity="0.15" stroke="{colour}"/>'
                f'<text x="{cx:.1f}" y="{cy + 4:.1f}" text-anchor="middle" fill="currentColor">END</text></g>'
            )
            continue
        node = graph.nodes.get(name)
        kind = getattr(node, "label", "")
        weight = ' stroke-width="2.5"' if status == "running" else ""
        parts.append(
            f'<g class="node {status}" data-node="{h.esc(name)}" data-status="{status}">'
            f'<rect x="{cx - _W / 2:.1f}" y="{cy - _H / 2:.1f}" width="{_W}" height="{_H}" rx="6" '
            f'fill="{colour}" fill-opacity="0.15" stroke="{colour}"{weight}/>'
            f'<text x="{cx:.1f}" y="{cy - 1:.1f}" text-anchor="middle" fill="currentColor" '
            f'font-weight="600">{h.esc(h.one_line(name, 18))}</text>'
            f'<text x="{cx:.1f}" y="{cy + 11:.1f}" text-anchor="middle" fill="#8b949e" '
            f'font-size="9">{h.esc(kind)} · {status}</text><title>{h.esc(name)}: {status}</title></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _edges(graph: AgentGraph) -> list[tuple[str, str, str]]:
    from ..orchestration.render import edge_list

    return [(s, d, label) for s, d, label in edge_list(graph) if d != "?"]


def graph_html(graph: AgentGraph, statuses: dict[str, str] | None = None, caption: str = "") -> str:
    head = (
        h.badge(f"AgentGraph {graph.name}", "info")
        + " "
        + h.muted(f"{len(graph.nodes)} nodes · entry {graph.entry}")
    )
    if caption:
        head += " " + caption
    return h.box(f"<div>{head}</div>{graph_svg(graph, statuses)}", "graph")


def statuses_from_trace(result: GraphResult) -> dict[str, str]:
    """Each node's last status in a finished run (from its node spans)."""
    from ..trace import StepType

    statuses: dict[str, str] = {}
    for step in result.trace.steps:
        if step.type is StepType.GRAPH_NODE_END and step.node_name and "." not in step.node_name:
            statuses[step.node_name] = {"ok": "done", "error": "failed"}.get(
                step.status, step.status
            )
    if not result.interrupted and result.stop_reason == "end":
        statuses[END] = "done"
    return statuses


def result_html(result: GraphResult, graph: AgentGraph | None = None) -> str:
    """Final render of a run: outcome line, the graph (if given), per-node results."""
    tone = {
        "end": "ok",
        "interrupted": "warn",
        "budget_exceeded": "warn",
        "cancelled": "error",
    }.get(result.stop_reason, "info")
    usage = result.total_usage
    head = (
        h.badge(result.stop_reason, tone)
        + " "
        + h.muted(
            f"{h.plural(result.steps, 'step')} · {h.format_tokens(usage.total_tokens)} · "
            f"{h.format_cost(usage.cost_usd)}"
        )
    )
    body = [f"<div>{head}</div>"]
    if graph is not None:
        body.append(graph_svg(graph, statuses_from_trace(result)))
    if result.interrupted and result.interrupt is not None:
        body.append(h.pre(f"Interrupted: {result.interrupt.prompt}", "warn"))
    body.append(h.pre(result.content))
    rows = []
    for name, results in result.node_results.items():
        for item in results:
            tokens = item.usage.total_tokens if item.usage is not None else 0
            rows.append(
                [h.esc(name), h.esc(h.one_line(item.content, 100)), h.format_tokens(tokens)]
            )
    if rows:
        body.append(
            h.details("per-node results", h.table(["node", "output", "tokens"], rows, numeric=[2]))
        )
    return h.box("".join(body), "graph-result", tone)


RENDERERS: dict[str, Renderers] = {
    "selectools.orchestration.graph.AgentGraph": {"text": repr, "html": graph_html},
    "selectools.orchestration.graph.GraphResult": {"text": repr, "html": result_html},
}
