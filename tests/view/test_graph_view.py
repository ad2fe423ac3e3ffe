"""The graph view's layout and SVG (``selectools/_view/graph_view.py``): rows, groups, status, offline."""

from __future__ import annotations

import re

from selectools._view.graph_view import graph_layout, graph_svg
from selectools.orchestration import AgentGraph


def _status(svg: str) -> dict[str, str]:
    return dict(re.findall(r'data-node="([^"]+)" data-status="([^"]+)"', svg))


def _demo() -> AgentGraph:
    g = AgentGraph(name="demo")
    g.add_node("planner", lambda s: "plan")
    g.add_node("a", lambda s: {"a": 1})
    g.add_node("b", lambda s: {"b": 2})
    g.add_parallel_nodes("team", ["a", "b"])
    g.add_node("writer", lambda s: "text")
    g.add_edge("planner", "team")
    g.add_edge("team", "writer")
    g.add_conditional_edge(
        "writer", lambda s: "ok", path_map={"ok": AgentGraph.END, "again": "planner"}
    )
    return g


def test_layout_rows_put_parallel_children_side_by_side_and_end_last():
    rows, groups = graph_layout(_demo())
    assert rows == [["planner"], ["team"], ["writer"], ["__end__"]]
    assert groups == {"team": ["a", "b"]}
    svg = graph_svg(_demo(), {"a": "running", "b": "done"})
    assert _status(svg) == {"planner": "pending", "a": "running", "b": "done", "writer": "pending"}
    xs = {
        n: float(x)
        for n, x in re.findall(r'data-node="(\w)" data-status="\w+"><rect x="([\d.]+)"', svg)
    }
    assert xs["a"] < xs["b"]  # side by side in one row
    assert "http" not in svg.replace("http://www.w3.org/2000/svg", "")  # offline: nothing fetched
    assert graph_svg(_demo(), {"a": "running"}) == graph_svg(_demo(), {"a": "running"})
