"""A knowledge graph drawn as a static SVG, laid out in Python (no JavaScript, offline).

Nodes sit on a circle in order of first appearance, so the same triples always
give the same picture (notebook outputs stay checkable); edges are arrows
labelled with the relation. Good for the tens of triples a notebook shows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ._html import esc

if TYPE_CHECKING:
    from ..memory.knowledge_graph import Triple

__all__ = ["layout", "triples_svg"]

_NODE = "#3884f4"
_EDGE = "#8b949e"


def layout(nodes: Sequence[str], size: float) -> dict[str, tuple[float, float]]:
    """Positions on a circle (one node: the centre), starting at the top, clockwise."""
    centre = size / 2
    if len(nodes) == 1:
        return {nodes[0]: (centre, centre)}
    radius = size / 2 - 70
    return {
        name: (
            round(centre + radius * math.sin(2 * math.pi * i / len(nodes)), 1),
            round(centre - radius * math.cos(2 * math.pi * i / len(nodes)), 1),
        )
        for i, name in enumerate(nodes)
    }


def triples_svg(triples: Sequence[Triple], size: int = 420) -> str:
    """``<svg>`` of the triples: one circle per entity, one labelled arrow per triple."""
    nodes: list[str] = []
    for t in triples:
        for name in (t.subject, t.object):
            if name not in nodes:
                nodes.append(name)
    where = layout(nodes, size)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="selectools-kg" width="{size}" '
        f'height="{size}" viewBox="0 0 {size} {size}" font-size="11" '
        'font-family="system-ui, sans-serif">',
        '<defs><marker id="st-kg-arrow" viewBox="0 0 10 10" refX="10" refY="5" '
        f'markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        f'fill="{_EDGE}"/></marker></defs>',
    ]
    for t in triples:
        (x1, y1), (x2, y2) = where[t.subject], where[t.object]
        length = math.hypot(x2 - x1, y2 - y1) or 1.0
        # stop the arrow at the target circle's edge (radius 9)
        ex, ey = x2 - (x2 - x1) * 11 / length, y2 - (y2 - y1) * 11 / length
        parts.append(
            f'<line x1="{x1}" y1="{y1}" x2="{ex:.1f}" y2="{ey:.1f}" stroke="{_EDGE}" '
            f'stroke-width="1.2" marker-end="url(#st-kg-arrow)"><title>{esc(t.subject)} '
            f"{esc(t.relation)} {esc(t.object)} ({t.confidence:.2f})</title></line>"
        )
        parts.append(
            f'<text x="{(x1 + x2) / 2:.1f}" y="{(y1 + y2) / 2 - 3:.1f}" text-anchor="middle" '
            f'fill="{_EDGE}" font-style="italic">{esc(t.relation)}</text>'
        )
    for name in nodes:
        x, y = where[name]
        parts.append(
            f'<g class="node"><circle cx="{x}" cy="{y}" r="9" fill="{_NODE}" fill-opacity="0.85"/>'
            f'<text x="{x}" y="{y + 22}" text-anchor="middle" fill="currentColor">{esc(name)}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)
