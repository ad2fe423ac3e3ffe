"""An ``AgentGraph`` script read back into a workflow document, with ``ast`` (never executed).

It reads the shape Export → Python writes, which is also how one writes such a
graph by hand: functions that build an ``AgentGraph`` with ``add_node`` (values
made by the :mod:`~selectools.builder.runtime` helpers, ``next_node=`` allowed),
``add_subgraph(name, other_function())``, ``add_edge``/``set_entry`` and
``add_conditional_edge(name, route(name, [...]))``; the function the
``__main__`` block runs (else the last one) is the workflow. Every argument is a
literal (``ast.literal_eval``). Anything else is a :class:`WorkflowError` naming
its line, since guessing what code means would lose what the user wrote.
"""

from __future__ import annotations

import ast
from typing import Any

from ._document import WorkflowError, output_ports, validate

__all__ = ["from_python", "layout"]

MAX_PYTHON_CHARS = 1_000_000
_END_NAMES = ("END", "__end__")


def _fail(node: ast.AST | None, message: str) -> WorkflowError:
    line = getattr(node, "lineno", None)
    return WorkflowError(f"line {line}: {message}" if line else message, line=line)


def _literal(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        raise _fail(node, f"{ast.unparse(node)[:80]!r} is not a literal value") from None


def _target(node: ast.AST) -> str:
    """An edge target: a node name, or END (``"END"``, ``AgentGraph.END``)."""
    if isinstance(node, ast.Attribute) and node.attr == "END":
        return "END"
    value = _literal(node)
    if not isinstance(value, str):
        raise _fail(node, "an edge goes to a node name (a string) or AgentGraph.END")
    return "END" if value in _END_NAMES else value


def _call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name):
            return node.func.id
        if isinstance(node.func, ast.Attribute):
            return node.func.attr
    return None


class _Graph:
    """What one graph-building function says, as a workflow document."""

    def __init__(self, fn: ast.FunctionDef, functions: set[str]) -> None:
        self.fn = fn
        self.functions = functions
        self.name = fn.name
        self.var: str | None = None
        self.tool_vars: dict[str, str] = {}
        self.nodes: list[dict[str, Any]] = [{"id": "start", "type": "start"}]
        self.edges: list[tuple[str, str, str, str, ast.AST]] = []  # from, port, condition, to
        self.tool_edges: list[tuple[str, str]] = []
        self.calls: list[str] = []  # subgraph functions used
        self.lines: dict[str, int] = {}

    def read(self) -> None:
        for statement in self.fn.body:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue  # a docstring
            if isinstance(statement, ast.Return):
                if not (isinstance(statement.value, ast.Name) and statement.value.id == self.var):
                    raise _fail(statement, f"{self.name}() must return its graph")
                continue
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                self.assign(statement)
                continue
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
                self.method(statement.value)
                continue
            raise self.unreadable(statement)

    def unreadable(self, node: ast.AST) -> WorkflowError:
        shown = ast.unparse(node).splitlines()[0][:80]
        return _fail(
            node,
            f"the builder cannot read {shown!r}: it reads graphs built with add_node, "
            "add_subgraph, add_edge, set_entry and add_conditional_edge (as Export → Python writes)",
        )

    def assign(self, statement: ast.Assign) -> None:
        target, value = statement.targets[0], statement.value
        kind = _call_name(value)
        if not isinstance(target, ast.Name) or not isinstance(value, ast.Call):
            raise self.unreadable(statement)
        if kind == "AgentGraph":
            self.var = target.id
            given = (
                value.args[0]
                if value.args
                else next((k.value for k in value.keywords if k.arg == "name"), None)
            )
            self.name = _literal(given) if given is not None else self.fn.name
            return
        if kind == "agent_tool":
            node = self.agent_fields(value, "agent_tool")
            self.tool_vars[target.id] = node["name"]
            self.add(node, statement)
            return
        raise self.unreadable(statement)

    def agent_fields(self, call: ast.Call, kind: str) -> dict[str, Any]:
        if len(call.args) != 1:
            raise _fail(call, f"{kind}(...) takes the node's name first, then keywords")
        node: dict[str, Any] = {"type": kind, "name": _literal(call.args[0])}
        for keyword in call.keywords:
            if keyword.arg == "tools":
                node["tools"] = self.tools(keyword.value, node["name"])
            elif keyword.arg in ("provider", "model", "system_prompt", "description"):
                node[keyword.arg] = _literal(keyword.value)
            else:
                raise _fail(keyword.value, f"{kind}() has no option {keyword.arg!r}")
        node["id"] = node["name"]
        return node

    def tools(self, value: ast.AST, agent: str) -> list[str]:
        if not isinstance(value, (ast.List, ast.Tuple)):
            raise _fail(value, "tools=[...] must be a list")
        names = []
        for item in value.elts:
            if isinstance(item, ast.Name) and item.id in self.tool_vars:
                names.append(self.tool_vars[item.id])
                self.tool_edges.append((self.tool_vars[item.id], agent))
            else:
                spec = _literal(item)
                if not isinstance(spec, str):
                    raise _fail(item, "a tool is a dotted path string or an agent_tool variable")
                names.append(spec)
        return names

    def add(self, node: dict[str, Any], where: ast.AST) -> None:
        self.lines[node["id"]] = getattr(where, "lineno", 0)
        self.nodes.append(node)

    def method(self, call: ast.Call) -> None:
        func = call.func
        if not (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == self.var
        ):
            raise self.unreadable(call)
        args = list(call.args)
        options = {k.arg: k.value for k in call.keywords}
        if func.attr == "add_node" and len(args) == 2:
            self.add_node(call, _literal(args[0]), args[1])
            if "next_node" in options:
                self.edges.append(
                    (_literal(args[0]), "out", "", _target(options["next_node"]), call)
                )
        elif func.attr == "add_subgraph" and len(args) == 2:
            self.add_subgraph(call, _literal(args[0]), args[1])
        elif func.attr == "add_edge" and len(args) == 2:
            self.edges.append((_literal(args[0]), "", "", _target(args[1]), call))
        elif func.attr == "set_entry" and len(args) == 1:
            self.edges.append(("START", "", "", _target(args[0]), call))
        elif func.attr == "add_conditional_edge" and len(args) == 2:
            self.conditional(call, _literal(args[0]), args[1])
        else:
            raise self.unreadable(call)

    def add_node(self, call: ast.Call, name: Any, value: ast.AST) -> None:
        kind = _call_name(value)
        if not isinstance(value, ast.Call) or not isinstance(name, str):
            raise self.unreadable(call)
        if kind == "agent":
            node = self.agent_fields(value, "agent")
        elif kind in ("loop", "human_input"):
            if len(value.args) != 1:
                raise _fail(value, f"{kind}(...) takes the node's name first, then keywords")
            node = {"type": "loop" if kind == "loop" else "hitl", "name": _literal(value.args[0])}
            allowed = (
                ("max_iterations", "exit_condition")
                if kind == "loop"
                else ("prompt", "options", "timeout_s", "default_option")
            )
            for keyword in value.keywords:
                if keyword.arg is None or keyword.arg not in allowed:
                    raise _fail(keyword.value, f"{kind}() has no option {keyword.arg!r}")
                node[keyword.arg] = _literal(keyword.value)
            node["id"] = node["name"]
        elif kind in self.functions and not value.args and not value.keywords:
            self.add_subgraph(call, name, value)
            return
        else:
            raise _fail(
                value, "a node is agent(...), loop(...), human_input(...) or a graph function call"
            )
        if node["name"] != name:
            raise _fail(call, f"the node is added as {name!r} but made as {node['name']!r}")
        self.add(node, call)

    def add_subgraph(self, call: ast.Call, name: Any, value: ast.AST) -> None:
        fn = _call_name(value)
        if fn not in self.functions or not isinstance(name, str):
            raise _fail(call, "add_subgraph(name, graph_function()) names a function of this file")
        self.calls.append(fn)
        self.add({"id": name, "type": "subgraph", "name": name, "graph": fn}, call)

    def conditional(self, call: ast.Call, name: Any, value: ast.AST) -> None:
        if _call_name(value) != "route" or not isinstance(value, ast.Call) or len(value.args) != 2:
            raise _fail(
                value, "a conditional edge is route(name, [(port, condition, target), ...])"
            )
        table = value.args[1]
        if not isinstance(table, (ast.List, ast.Tuple)):
            raise _fail(table, "route(...) takes a list of (port, condition, target)")
        for item in table.elts:
            if not isinstance(item, ast.Tuple) or len(item.elts) != 3:
                raise _fail(item, "each route entry is (port, condition, target)")
            port, condition = _literal(item.elts[0]), _literal(item.elts[1])
            self.edges.append((name, port, condition, _target(item.elts[2]), item))

    def document(self, subgraphs: dict[str, Any]) -> dict[str, Any]:
        by_name = {n["name"]: n for n in self.nodes if "name" in n}
        nodes = [*self.nodes, {"id": "end", "type": "end"}]
        edges: list[dict[str, Any]] = []
        for src, port, condition, dst, where in self.edges:
            source = "start" if src == "START" else src
            target = "end" if dst == "END" else dst
            for end, label in ((source, src), (target, dst)):
                if end not in ("start", "end") and end not in by_name:
                    raise _fail(
                        where, f"the edge names {label!r}, which is not a node of the graph"
                    )
            if not port:
                ports = list(output_ports(by_name[source])) if source != "start" else ["out"]
                port = ports[0] if ports else "out"
            edges.append(
                {
                    "from": source,
                    "from_port": port,
                    "to": target,
                    "to_port": "in",
                    "condition": condition,
                }
            )
        for tool, agent in self.tool_edges:
            edges.append(
                {
                    "from": tool,
                    "from_port": "tool",
                    "to": agent,
                    "to_port": "tools",
                    "condition": "",
                }
            )
        for index, edge in enumerate(edges):
            edge["id"] = f"e{index + 1}"
        doc = {
            "version": 1,
            "name": self.name,
            "nodes": nodes,
            "edges": edges,
            "subgraphs": subgraphs,
        }
        layout(doc)
        return doc


def layout(doc: dict[str, Any]) -> None:
    """Give nodes without a position one: columns by distance from START, tools below."""
    depth: dict[str, int] = {}
    starts = [n["id"] for n in doc["nodes"] if n["type"] == "start"]
    frontier = list(starts)
    for nid in starts:
        depth[nid] = 0
    while frontier:
        nxt = []
        for nid in frontier:
            for edge in doc["edges"]:
                if (
                    edge["from"] == nid
                    and edge["to"] not in depth
                    and edge.get("from_port") != "tool"
                ):
                    depth[edge["to"]] = depth[nid] + 1
                    nxt.append(edge["to"])
        frontier = nxt
    last = max(depth.values(), default=0) + 1
    rows: dict[int, int] = {}
    tools = 0
    for node in doc["nodes"]:
        if "x" in node and "y" in node:
            continue
        if node["type"] in ("agent_tool", "note"):
            node["x"], node["y"] = 260 + 240 * tools, 420
            tools += 1
            continue
        column = depth.get(node["id"], last)
        row = rows.get(column, 0)
        rows[column] = row + 1
        node["x"], node["y"] = 60 + 220 * column, 200 + 140 * row


def from_python(text: str) -> dict[str, Any]:
    """The workflow an ``AgentGraph`` script describes (parsed, never run)."""
    if len(text) > MAX_PYTHON_CHARS:
        raise WorkflowError(f"the script is {len(text)} characters; at most {MAX_PYTHON_CHARS}")
    try:
        module = ast.parse(text)
    except SyntaxError as exc:
        line = exc.lineno
        raise WorkflowError(f"line {line}: {exc.msg}", line=line) from None
    except (RecursionError, MemoryError, ValueError):
        raise WorkflowError(
            "the script nests too deeply (or holds a NUL byte) to be read"
        ) from None
    functions = {s.name: s for s in module.body if isinstance(s, ast.FunctionDef)}
    main = _main_function(module, set(functions))
    if main is None:
        raise WorkflowError(
            "line 1: no graph function found: the script needs a function that builds and returns an "
            "AgentGraph (Export → Python writes one)",
            line=1,
        )
    graphs: dict[str, _Graph] = {}
    for name, fn in functions.items():
        if not any(_call_name(n) == "AgentGraph" for n in ast.walk(fn)):
            continue  # a helper of a hand-written script, not a graph
        graph = _Graph(fn, set(functions))
        graph.read()
        if graph.var is not None:
            graphs[name] = graph
    if main not in graphs:
        raise _fail(functions[main], f"{main}() does not build an AgentGraph")
    for graph in graphs.values():
        for call in graph.calls:
            if call not in graphs:
                raise _fail(functions[call], f"{call}() does not build an AgentGraph")
    used = {c for g in graphs.values() for c in g.calls}
    subgraphs = {c: _document(graphs, c, 1) for c in dict.fromkeys(graphs[main].calls)}
    for name in graphs:  # graphs nothing uses stay with the workflow, as the canvas keeps them
        if name != main and name not in used:
            subgraphs[name] = _document(graphs, name, 1)
    doc = graphs[main].document(subgraphs)
    try:
        return validate(doc)
    except WorkflowError as exc:
        exc.line = graphs[main].lines.get(exc.node or "") or exc.line
        if exc.line:
            exc.message = f"line {exc.line}: {exc.message}"
            exc.args = (exc.message,)
        raise


def _document(graphs: dict[str, _Graph], name: str, depth: int) -> dict[str, Any]:
    if depth > 4:
        raise WorkflowError(f"subgraph {name!r} nests more than 4 levels deep")
    subs = {c: _document(graphs, c, depth + 1) for c in dict.fromkeys(graphs[name].calls)}
    return graphs[name].document(subs)


def _main_function(module: ast.Module, functions: set[str]) -> str | None:
    """The function the ``if __name__ == "__main__":`` block calls, else the last one defined."""
    for statement in module.body:
        if isinstance(statement, ast.If) and "__main__" in ast.unparse(statement.test):
            for node in ast.walk(statement):
                name = _call_name(node)
                if name in functions:
                    return name
    last = [s.name for s in module.body if isinstance(s, ast.FunctionDef)]
    return last[-1] if last else None
