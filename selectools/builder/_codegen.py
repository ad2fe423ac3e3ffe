"""A workflow document as a runnable, readable ``AgentGraph`` script.

The script builds the graph with the helpers of :mod:`selectools.builder.runtime`
(one place for what a loop, a Human Input node or a condition label means) and
runs it from ``if __name__ == "__main__":``. Positions, notes and run state are
canvas matters and are left out; :mod:`._pyimport` reads such a script back.
"""

from __future__ import annotations

from typing import Any

from ._document import WorkflowError, validate

__all__ = ["RESERVED_NAMES", "flow_edges", "to_python"]

#: names a script uses itself, so no node, subgraph or workflow may take them
RESERVED_NAMES = frozenset(
    {"agent", "agent_tool", "human_input", "loop", "route", "run_cli", "AgentGraph", "graph"}
)
_WIDTH = 99


def flow_edges(doc: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Node id → its outgoing control-flow edges (not tool wires), in document order."""
    out: dict[str, list[dict[str, Any]]] = {}
    for edge in doc["edges"]:
        if edge.get("from_port") != "tool":
            out.setdefault(edge["from"], []).append(edge)
    return out


def _call(name: str, args: list[str], indent: int, brackets: str = "()") -> str:
    """``name(a, b)`` on one line if it fits, else one argument a line (ruff format's shape).

    ``indent`` is the column the call starts at; multi-line ``args`` carry their own
    absolute indentation (they were rendered for column ``indent + 4``).
    """
    open_, close = brackets[0], brackets[1]
    flat = f"{name}{open_}{', '.join(args)}{close}"
    if indent + len(flat) <= _WIDTH and "\n" not in flat:
        return flat
    pad = " " * (indent + 4)
    inner = "".join(f"{pad}{arg},\n" for arg in args)
    return f"{name}{open_}\n{inner}{' ' * indent}{close}"


def _lit(value: Any) -> str:
    """A Python literal for ``value``, strings in double quotes where that needs no escaping."""
    if isinstance(value, str):
        text = repr(value)
        if text.startswith("'") and '"' not in value:
            text = '"' + text[1:-1] + '"'
        return text
    if isinstance(value, list):
        return "[" + ", ".join(_lit(v) for v in value) + "]"
    return repr(value)


def _keywords(node: dict[str, Any], fields: list[tuple[str, Any]]) -> list[str]:
    """``key=value`` for the fields that differ from their defaults."""
    return [
        f"{key}={_lit(node[key])}" for key, default in fields if node.get(key, default) != default
    ]


def _agent_args(node: dict[str, Any], tool_vars: dict[str, str]) -> list[str]:
    args = [_lit(node["name"])]
    if node.get("type") == "agent_tool" and node.get("description"):
        args.append(f"description={_lit(node['description'])}")
    args += _keywords(node, [("provider", ""), ("model", ""), ("system_prompt", "")])
    tools = [tool_vars.get(t, _lit(t)) for t in node.get("tools", [])]
    if tools:
        args.append("tools=[" + ", ".join(tools) + "]")
    return args


def _target(node: dict[str, Any]) -> str:
    return _lit("END") if node["type"] == "end" else _lit(node["name"])


def _graph_function(fn_name: str, doc: dict[str, Any]) -> str:
    by_id = {n["id"]: n for n in doc["nodes"]}
    body: list[str] = []
    tool_vars: dict[str, str] = {}
    for node in doc["nodes"]:
        if node["type"] == "agent_tool":
            tool_vars[node["name"]] = node["name"]
            made = _call("agent_tool", _agent_args(node, {}), 4)
            body.append(f"{node['name']} = {made}")
    wired: dict[str, list[str]] = {}
    for edge in doc["edges"]:
        if edge.get("from_port") == "tool":
            wired.setdefault(edge["to"], []).append(by_id[edge["from"]]["name"])
    body.append(f"graph = AgentGraph(name={_lit(doc['name'])})")
    for node in doc["nodes"]:
        kind, name = node["type"], node.get("name")
        if kind == "agent":
            extra = [t for t in wired.get(node["id"], []) if t not in node["tools"]]
            shown = {**node, "tools": [*node["tools"], *extra]}
            made = _call("agent", _agent_args(shown, tool_vars), 8)
        elif kind == "loop":
            args = [_lit(name), f"max_iterations={node['max_iterations']!r}"]
            args += _keywords(node, [("exit_condition", "")])
            made = _call("loop", args, 8)
        elif kind == "hitl":
            args = [
                _lit(name),
                f"prompt={_lit(node['prompt'])}",
                f"options={_lit(node['options'])}",
            ]
            args += _keywords(node, [("timeout_s", 300), ("default_option", "")])
            made = _call("human_input", args, 8)
        elif kind == "subgraph":
            body.append(f"graph.add_subgraph({_lit(name)}, {node['graph']}())")
            continue
        else:
            continue
        body.append(_call("graph.add_node", [_lit(name), made], 4))
    routes = flow_edges(doc)
    for node in doc["nodes"]:
        edges = routes.get(node["id"], [])
        if not edges:
            continue
        source = _lit("START") if node["type"] == "start" else _lit(node["name"])
        first = edges[0]
        if len(edges) == 1 and not first["condition"] and first["from_port"] in ("out",):
            body.append(f"graph.add_edge({source}, {_target(by_id[first['to']])})")
            continue
        if node["type"] == "start":
            raise WorkflowError("START takes exactly one edge with no condition", node=node["id"])
        triples = [
            f"({_lit(e['from_port'])}, {_lit(e['condition'])}, {_target(by_id[e['to']])})"
            for e in edges
        ]
        router = _call("route", [_lit(node["name"]), _call("", triples, 12, "[]")], 8)
        body.append(_call("graph.add_conditional_edge", [_lit(node["name"]), router], 4))
    body.append("return graph")
    lines = "\n".join("    " + line for line in body)
    return f"def {fn_name}() -> AgentGraph:\n{lines}\n"


def _check_names(doc: dict[str, Any]) -> None:
    functions = [doc["name"], *doc["subgraphs"]]
    for fn in functions:
        if fn in RESERVED_NAMES:
            raise WorkflowError(
                f"the graph name {fn!r} is used by the exported script itself: rename it"
            )
    if len(set(functions)) != len(functions):
        raise WorkflowError(
            f"the workflow and a subgraph share the name {doc['name']!r}: rename one"
        )
    for sub in [doc, *doc["subgraphs"].values()]:
        for node in sub["nodes"]:
            if node.get("name") in RESERVED_NAMES:
                raise WorkflowError(
                    f"node name {node['name']!r} is used by the exported script itself: rename it",
                    node=node["id"],
                )
        if sub is not doc and sub["subgraphs"]:
            raise WorkflowError(
                "the Python export takes one level of subgraphs; move nested ones to the top"
            )


def to_python(doc: dict[str, Any]) -> str:
    """The workflow as a script: ``python script.py "prompt"`` runs it (see the runtime docstring)."""
    doc = validate(doc)
    _check_names(doc)
    name = doc["name"]
    kinds = {n["type"] for sub in [doc, *doc["subgraphs"].values()] for n in sub["nodes"]}
    helpers = ["run_cli"]
    helpers += [
        h
        for k, h in (
            ("agent", "agent"),
            ("agent_tool", "agent_tool"),
            ("hitl", "human_input"),
            ("loop", "loop"),
        )
        if k in kinds
    ]
    if any(
        len(edges) > 1 or edges[0]["condition"] or edges[0]["from_port"] != "out"
        for sub in [doc, *doc["subgraphs"].values()]
        for edges in flow_edges(sub).values()
    ):
        helpers.append("route")
    header = (
        f'"""{name}: an AgentGraph made with the selectools builder.\n\n'
        f'Run it: python {name}.py "your message". Each agent uses the provider it names\n'
        "(none: the first with an API key in the environment, else the offline one);\n"
        "SELECTOOLS_PROVIDER=local (or openai, anthropic, ...) overrides them all.\n"
        '"""\n\n'
        f"from selectools.builder.runtime import {', '.join(sorted(helpers))}\n"
        "from selectools.orchestration import AgentGraph\n"
    )
    functions = [_graph_function(key, sub) for key, sub in doc["subgraphs"].items()]
    functions.append(_graph_function(name, doc))
    main = f'if __name__ == "__main__":\n    run_cli({name}())\n'
    return header + "\n\n" + "\n\n".join(functions) + "\n\n" + main
