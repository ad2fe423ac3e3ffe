"""Graphs in a notebook: the live graph view and ``%%graph``.

The live view is an observer of the graph's events (``on_node_start``,
``on_node_end``, ``on_parallel_start``...): each event sets a node's status and
redraws one output in place (a display-id update); the run ends with a static
render (the graph with its final statuses and the per-node results), the same
for the same run, so nbval can check it.

``%%graph`` builds an ``AgentGraph`` from a compact cell::

    %%graph pipeline --prompt "Write about graphs"
    planner -> writer -> reviewer
    reviewer -> END : state.data.get("approved")
    reviewer -> writer
    team = [researcher_a, researcher_b]

Names are notebook variables (Agents, functions, generator functions, graphs);
``a -> b : EXPR`` is a conditional edge taken when the Python expression over
``state`` is true (tried in order; a plain ``a -> c`` from the same node is the
fallback); ``name = [a, b]`` is a parallel group. The first node is the entry.

Interrupts: a generator node's ``InterruptRequest`` is answered from
``--answer`` values in order, else with a text prompt (``input()``). A
headless kernel (nbclient, nbval, papermill) has no stdin: there ``input()``
raises at once, so the run stops there and shows the interrupted result (resume
it with ``graph.resume(result.interrupt_id, answer)``); it never hangs. Give
``--answer`` in notebooks meant to run unattended.
"""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Callable
from itertools import pairwise
from typing import Any

from ..observer import AgentObserver
from ..orchestration import AgentGraph, GraphResult, GraphState
from . import _frontend
from ._kernel import current_shell
from .errors import NotebookUsageError

__all__ = ["GraphLiveView", "build_graph", "graph_magic", "run_graph_live"]

END = AgentGraph.END

_ICONS = {"running": "▶", "done": "✓", "failed": "✗", "interrupted": "⏸"}


class GraphLiveView(AgentObserver):
    """Node statuses driven only by graph events; ``html()``/``text()`` for a surface."""

    def __init__(self, graph: AgentGraph, redraw: Callable[[GraphLiveView], None] | None = None):
        self.graph = graph
        self.statuses: dict[str, str] = {}
        self.log: list[str] = []
        self._redraw = redraw

    def _set(self, node: str, status: str) -> None:
        self.statuses[node] = status
        if node != END:
            self.log.append(f"{_ICONS.get(status, '·')} {node} {status}\n")
        if self._redraw is not None:
            self._redraw(self)

    def on_node_start(self, run_id: str, node_name: str, step: int) -> None:
        self._set(node_name, "running")

    def on_node_end(self, run_id: str, node_name: str, step: int, duration_ms: float) -> None:
        if self.statuses.get(node_name) == "running":
            self._set(node_name, "done")

    def on_graph_error(
        self, run_id: str, graph_name: str, node_name: str, error: BaseException
    ) -> None:
        if node_name:
            self._set(node_name, "failed")

    def on_parallel_start(self, run_id: str, group_name: str, child_nodes: list[str]) -> None:
        for child in child_nodes:
            self.statuses[child] = "running"
        self._set(group_name, "running")

    def on_parallel_end(self, run_id: str, group_name: str, child_count: int) -> None:
        node = self.graph.nodes.get(group_name)
        for child in getattr(node, "children", []):
            self.statuses[child] = "done"
        self.statuses[group_name] = "done"
        if self._redraw is not None:
            self._redraw(self)

    def on_graph_interrupt(self, run_id: str, node_name: str, interrupt_id: str) -> None:
        self._set(node_name, "interrupted")

    def on_graph_end(
        self, run_id: str, graph_name: str, steps: int, total_duration_ms: float
    ) -> None:
        self._set(END, "done")

    def html(self, *, hide_answer: bool = False) -> str:
        from .._view.graph_view import graph_html

        return graph_html(self.graph, self.statuses)

    def text(self, *, hide_answer: bool = False) -> str:
        done = sum(1 for s in self.statuses.values() if s == "done")
        return "".join(self.log) + f"graph {self.graph.name}: {done} done"


def _ask(prompt: str) -> str | None:
    """A text answer, or None when the kernel has no stdin (headless runs never block)."""
    try:
        return input(f"{prompt} ")
    except (EOFError, OSError, RuntimeError) as exc:  # StdinNotImplementedError is a RuntimeError
        del exc
        return None
    except Exception as exc:  # IPython's StdinNotImplementedError in some versions
        if type(exc).__name__ == "StdinNotImplementedError":
            return None
        raise


def run_graph_live(
    graph: AgentGraph,
    prompt: str | GraphState,
    *,
    shell: Any = None,
    answers: list[str] | None = None,
    display: str = "auto",
    checkpoint_store: Any = None,
) -> GraphResult:
    """Run ``graph`` with the live view; answer interrupts from ``answers`` or ``input()``."""
    from .._view.graph_view import result_html

    if shell is None:
        shell = current_shell()
    surface = (
        _frontend.make_surface(shell, display) if shell is not None else _frontend.TextSurface()
    )
    view = GraphLiveView(graph, surface.refresh)
    pending = list(answers or [])
    graph.observers.append(view)
    try:
        surface.start()
        result = graph.run(prompt, checkpoint_store=checkpoint_store)
        while result.interrupted and result.interrupt_id is not None:
            question = result.interrupt.prompt if result.interrupt else "answer"
            answer = pending.pop(0) if pending else _ask(question)
            if answer is None:
                break
            result = graph.resume(result.interrupt_id, answer, checkpoint_store=checkpoint_store)
    finally:
        graph.observers.remove(view)
    bundle = {"text/plain": repr(result), "text/html": result_html(result, graph)}
    surface.finish([(bundle, {"selectools": {"graph": graph.name, "steps": result.steps}})], view)
    return result


_EDGE = re.compile(r"^(?P<chain>[\w\s\->]+?)(?:\s*:\s*(?P<cond>.+))?$")
_GROUP = re.compile(r"^(?P<name>\w+)\s*=\s*\[(?P<members>[\w\s,]*)\]$")


def build_graph(cell: str, namespace: dict[str, Any], name: str = "graph") -> AgentGraph:
    """An ``AgentGraph`` from the compact cell syntax (see the module docstring)."""
    graph = AgentGraph(name=name)
    conditions: dict[str, list[tuple[str, str]]] = {}
    fallback: dict[str, str] = {}
    entry: str | None = None

    def node(label: str, line_no: int) -> None:
        if label == "END" or label in graph.nodes:
            return
        if label not in namespace:
            raise NotebookUsageError(
                f"%%graph line {line_no}: {label!r} is not a notebook variable; define the agent "
                "or function first"
            )
        try:
            graph.add_node(label, namespace[label])
        except (TypeError, ValueError) as exc:
            raise NotebookUsageError(f"%%graph line {line_no}: {label!r}: {exc}") from None

    lines = [(i + 1, raw.split("#", 1)[0].strip()) for i, raw in enumerate(cell.splitlines())]
    groups = [(n, _GROUP.match(text)) for n, text in lines if _GROUP.match(text)]
    for line_no, match in groups:
        assert match is not None
        members = [m.strip() for m in match["members"].split(",") if m.strip()]
        for member in members:
            node(member, line_no)
        graph.add_parallel_nodes(match["name"], members)
    group_names = {m["name"] for _, m in groups if m is not None}
    for line_no, text in lines:
        if not text or _GROUP.match(text):
            continue
        match = _EDGE.match(text)
        parts = [p.strip() for p in match["chain"].split("->")] if match else []
        if not match or len(parts) < 2 or not all(re.fullmatch(r"\w+", p) for p in parts):
            raise NotebookUsageError(
                f"%%graph line {line_no}: {text!r} is not 'a -> b [-> c ...]', "
                "'a -> b : condition' or 'group = [a, b]'"
            )
        for part in parts:
            if part not in group_names:
                node(part, line_no)
        targets = [END if p == "END" else p for p in parts]
        if entry is None:
            entry = targets[0]  # the graph starts where the first edge line starts
        if match["cond"]:
            if len(parts) != 2:
                raise NotebookUsageError(
                    f"%%graph line {line_no}: a condition needs one edge 'a -> b : ...'"
                )
            conditions.setdefault(targets[0], []).append((match["cond"], targets[1]))
            continue
        for src, dst in pairwise(targets):
            if src in conditions or src in fallback:
                fallback[src] = dst
            graph.add_edge(src, dst)
    for src, rules in conditions.items():
        otherwise = graph.edges.get(src, END)
        # the router returns node names; the path_map lists where it can go (for the picture)
        paths = dict(rules)
        paths.setdefault("otherwise", otherwise)
        graph.add_conditional_edge(src, _router(rules, otherwise, namespace), path_map=paths)
    first = entry if entry is not None else next(iter(graph.nodes), None)
    if first is None:
        raise NotebookUsageError("%%graph: the cell defines no nodes")
    graph.set_entry(first)
    return graph


def _router(
    rules: list[tuple[str, str]], otherwise: str, namespace: dict[str, Any]
) -> Callable[[GraphState], str]:
    compiled = [(compile(expr, "<%%graph condition>", "eval"), expr, dst) for expr, dst in rules]

    def route(state: GraphState) -> str:
        for code, _expr, dst in compiled:
            if eval(code, namespace, {"state": state}):  # the user's own cell
                return dst
        return otherwise

    route.__name__ = " / ".join(expr for expr, _ in rules)
    return route


def graph_magic(line: str, cell: str, namespace: dict[str, Any], shell: Any, display: str) -> None:
    parser = argparse.ArgumentParser(prog="%%graph", add_help=False)
    parser.add_argument("name", nargs="?", default="graph")
    parser.add_argument("--prompt", default=None)
    parser.add_argument("--answer", action="append", default=[])
    try:
        args = parser.parse_args(shlex.split(line))
    except SystemExit:
        raise NotebookUsageError(
            "%%graph [NAME] [--prompt TEXT] [--answer TEXT ...]: NAME is the variable the graph "
            "is stored in; --prompt runs it with the live view"
        ) from None
    if not args.name.isidentifier():
        raise NotebookUsageError(f"%%graph: {args.name!r} is not a valid variable name")
    graph = build_graph(cell, namespace, args.name)
    problems = graph.validate()
    if problems:
        raise NotebookUsageError("%%graph: " + "; ".join(problems))
    namespace[args.name] = graph
    if args.prompt is None:
        from .._display import mimebundle

        _frontend.show(shell, mimebundle(graph), display)
        return
    namespace[f"{args.name}_result"] = run_graph_live(
        graph, args.prompt, shell=shell, answers=args.answer, display=display
    )
