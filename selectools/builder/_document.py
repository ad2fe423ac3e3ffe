"""The workflow document: its shape, limits and port types, checked before anything uses it.

A workflow is plain JSON data (YAML is the same tree) that arrives from a browser,
a file or a paste, so every field is checked here, once, with a message that says
what was wrong and where (:class:`WorkflowError`). :func:`check` separates two
kinds of problem: *shape* problems (wrong types, limits, unknown nodes or ports,
incompatible port types) make the document unusable; *graph* problems (a node
with no way on, no START edge) leave it editable and exportable but not runnable.
"""

from __future__ import annotations

import copy
import keyword
from dataclasses import dataclass
from typing import Any

from ..exceptions import SelectoolsError

__all__ = [
    "KINDS",
    "LIMITS",
    "PROVIDERS",
    "Problem",
    "WorkflowError",
    "check",
    "compatible",
    "input_ports",
    "output_ports",
    "validate",
]

KINDS = ("start", "agent", "loop", "subgraph", "hitl", "agent_tool", "note", "end")
NAMED = ("agent", "loop", "subgraph", "hitl", "agent_tool")
PROVIDERS = ("", "openai", "anthropic", "gemini", "ollama", "local")
LIMITS = {"nodes": 200, "edges": 400, "name": 80, "text": 20_000, "nesting": 4, "options": 20}
_MAX_ITERATIONS = 1000
_MAX_TIMEOUT_S = 86_400.0


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a workflow: ``node`` (an id) or None, and whether it blocks all use."""

    message: str
    node: str | None = None
    fatal: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {"node": self.node, "message": self.message}


class WorkflowError(SelectoolsError, ValueError):
    """A workflow that cannot be used: ``message`` says what, ``node`` (an id) and ``line`` where."""

    def __init__(self, message: str, *, node: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.node = node
        self.line = line


def input_ports(node: dict[str, Any]) -> dict[str, str]:
    """A node's input ports, name → type (``text``, ``tool``)."""
    kind = node.get("type")
    if kind == "agent":
        return {"in": "text", "tools": "tool"}
    if kind in ("loop", "subgraph", "hitl", "end"):
        return {"in": "text"}
    return {}


def output_ports(node: dict[str, Any]) -> dict[str, str]:
    """A node's output ports, name → type (``text``, ``tool``, ``option``)."""
    kind = node.get("type")
    if kind in ("start", "agent", "subgraph"):
        return {"out": "text"}
    if kind == "loop":
        return {"body": "text", "done": "text"}
    if kind == "hitl":
        return {str(option): "option" for option in node.get("options", [])}
    if kind == "agent_tool":
        return {"tool": "tool"}
    return {}


def compatible(out_type: str, in_type: str) -> bool:
    """The port-type rule: types match, and an ``option`` output may join any ``text`` input."""
    return out_type == in_type or (out_type == "option" and in_type == "text")


class _Checker:
    """Walks one document (and its subgraphs), collecting problems; fills defaults on a copy."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def fail(self, message: str, node: str | None = None, *, fatal: bool = True) -> None:
        self.problems.append(Problem(message, node, fatal))

    def text(self, where: str, value: Any, node: str | None, limit: int) -> str:
        if not isinstance(value, str):
            self.fail(f"{where} must be a string, not {type(value).__name__}", node)
            return ""
        if len(value) > limit:
            self.fail(f"{where} is {len(value)} characters long; at most {limit}", node)
        return str(value)

    def name(self, where: str, value: Any, node: str | None) -> str:
        text = self.text(where, value, node, LIMITS["name"])
        if text and (not text.isidentifier() or keyword.iskeyword(text)):
            self.fail(f"{where} {text!r} must be a Python identifier (letters, digits, _)", node)
        elif not text:
            self.fail(f"{where} is empty: give it a name (a Python identifier)", node)
        return text

    def document(self, doc: Any, where: str, depth: int) -> dict[str, Any]:
        if not isinstance(doc, dict):
            self.fail(f"{where} must be an object with nodes and edges")
            return {}
        out = copy.deepcopy(doc)
        version = out.setdefault("version", 1)
        if version != 1:
            self.fail(f"{where}: version {version!r} is not supported (this builder reads 1)")
        self.name(f"{where}: name", out.setdefault("name", "workflow"), None)
        nodes, edges = out.setdefault("nodes", []), out.setdefault("edges", [])
        if not isinstance(nodes, list) or not isinstance(edges, list):
            self.fail(f"{where} needs a list of nodes and a list of edges")
            return out
        if len(nodes) > LIMITS["nodes"]:
            self.fail(f"{where} has {len(nodes)} nodes; at most {LIMITS['nodes']}")
            return out
        if len(edges) > LIMITS["edges"]:
            self.fail(f"{where} has {len(edges)} edges; at most {LIMITS['edges']}")
            return out
        subgraphs = out.setdefault("subgraphs", {})
        if not isinstance(subgraphs, dict):
            self.fail(f"{where}: subgraphs must be an object of name → workflow")
            subgraphs = {}
        elif subgraphs and depth >= LIMITS["nesting"]:
            self.fail(f"{where}: subgraphs nest more than {LIMITS['nesting']} levels deep")
            subgraphs = {}
        for key, sub in list(subgraphs.items()):
            self.name(f"{where}: subgraph name", key, None)
            subgraphs[key] = self.document(sub, f"subgraph {key!r}", depth + 1)
        by_id = self.nodes(nodes, set(subgraphs))
        self.edges(edges, by_id)
        self.graph(by_id, edges)
        return out

    def nodes(self, nodes: list[Any], subgraphs: set[str]) -> dict[str, dict[str, Any]]:
        by_id: dict[str, dict[str, Any]] = {}
        names: dict[str, str] = {}
        for index, node in enumerate(nodes):
            if not isinstance(node, dict) or not isinstance(node.get("id"), str) or not node["id"]:
                self.fail(f"node #{index + 1} needs a non-empty string id")
                continue
            nid = node["id"]
            self.text("a node id", nid, nid, LIMITS["name"])
            if nid in by_id:
                self.fail(f"two nodes have the id {nid!r}", nid)
            by_id[nid] = node
            kind = node.get("type")
            if kind not in KINDS:
                self.fail(f"node {nid!r} has type {kind!r}; one of {', '.join(KINDS)}", nid)
                continue
            for axis in ("x", "y", "width", "height"):
                if axis in node and (
                    isinstance(node[axis], bool) or not isinstance(node[axis], (int, float))
                ):
                    self.fail(f"node {nid!r}: {axis} must be a number", nid)
            if "pinned_output" in node and node["pinned_output"] is not None:
                self.text(
                    f"node {nid!r}: pinned_output", node["pinned_output"], nid, LIMITS["text"]
                )
            if not isinstance(node.get("frozen", False), bool):
                self.fail(f"node {nid!r}: frozen must be true or false", nid)
            if kind in NAMED:
                name = self.name(f"node {nid!r}: name", node.get("name"), nid)
                if name in names:
                    self.fail(f"nodes {names[name]!r} and {nid!r} have the same name {name!r}", nid)
                names[name] = nid
            getattr(self, f"node_{kind}")(node, nid, subgraphs)
        return by_id

    def node_start(self, node: dict[str, Any], nid: str, subgraphs: set[str]) -> None:
        pass

    node_end = node_start

    def node_agent(self, node: dict[str, Any], nid: str, subgraphs: set[str]) -> None:
        provider = node.setdefault("provider", "")
        if provider not in PROVIDERS:
            self.fail(f"node {nid!r}: provider {provider!r} is not one of {PROVIDERS}", nid)
        self.text(f"node {nid!r}: model", node.setdefault("model", ""), nid, LIMITS["name"])
        self.text(
            f"node {nid!r}: system_prompt",
            node.setdefault("system_prompt", ""),
            nid,
            LIMITS["text"],
        )
        tools = node.setdefault("tools", [])
        if not isinstance(tools, list) or not all(isinstance(t, str) and t for t in tools):
            self.fail(f"node {nid!r}: tools must be a list of names", nid)
        elif len(tools) > 50 or any(len(t) > 200 for t in tools):
            self.fail(f"node {nid!r}: at most 50 tools, each name at most 200 characters", nid)

    def node_agent_tool(self, node: dict[str, Any], nid: str, subgraphs: set[str]) -> None:
        self.text(
            f"node {nid!r}: description", node.setdefault("description", ""), nid, LIMITS["text"]
        )
        self.node_agent(node, nid, subgraphs)

    def node_loop(self, node: dict[str, Any], nid: str, subgraphs: set[str]) -> None:
        count = node.setdefault("max_iterations", 3)
        if (
            isinstance(count, bool)
            or not isinstance(count, int)
            or not 1 <= count <= _MAX_ITERATIONS
        ):
            self.fail(
                f"node {nid!r}: max_iterations must be a whole number 1..{_MAX_ITERATIONS}", nid
            )
        self.text(
            f"node {nid!r}: exit_condition",
            node.setdefault("exit_condition", ""),
            nid,
            LIMITS["name"],
        )

    def node_subgraph(self, node: dict[str, Any], nid: str, subgraphs: set[str]) -> None:
        graph = self.text(f"node {nid!r}: graph", node.setdefault("graph", ""), nid, LIMITS["name"])
        if graph not in subgraphs:
            shown = ", ".join(sorted(subgraphs)) or "none defined"
            self.fail(
                f"node {nid!r} runs the subgraph {graph!r}, which is not in subgraphs ({shown})",
                nid,
            )

    def node_hitl(self, node: dict[str, Any], nid: str, subgraphs: set[str]) -> None:
        self.text(f"node {nid!r}: prompt", node.setdefault("prompt", ""), nid, LIMITS["text"])
        options = node.setdefault("options", ["approve", "reject"])
        if (
            not isinstance(options, list)
            or not 1 <= len(options) <= LIMITS["options"]
            or not all(
                isinstance(o, str) and o.strip() and len(o) <= LIMITS["name"] for o in options
            )
            or len(set(options)) != len(options)
        ):
            self.fail(
                f"node {nid!r}: options must be 1..{LIMITS['options']} different, non-empty "
                f"labels of at most {LIMITS['name']} characters",
                nid,
            )
            node["options"] = []
        timeout = node.setdefault("timeout_s", 300)
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, (int, float))
            or not 0 < timeout <= _MAX_TIMEOUT_S
        ):
            self.fail(
                f"node {nid!r}: timeout_s must be a number of seconds in (0, {_MAX_TIMEOUT_S:g}]",
                nid,
            )
        default = node.setdefault("default_option", "")
        if default != "" and default not in node["options"]:
            self.fail(f"node {nid!r}: default_option {default!r} is not one of its options", nid)

    def node_note(self, node: dict[str, Any], nid: str, subgraphs: set[str]) -> None:
        self.text(f"note {nid!r}: text", node.setdefault("text", ""), nid, LIMITS["text"])
        self.text(f"note {nid!r}: color", node.setdefault("color", "amber"), nid, 40)
        if not isinstance(node.setdefault("collapsed", False), bool):
            self.fail(f"note {nid!r}: collapsed must be true or false", nid)

    def edges(self, edges: list[Any], by_id: dict[str, dict[str, Any]]) -> None:
        seen: set[str] = set()
        for index, edge in enumerate(edges):
            if not isinstance(edge, dict):
                self.fail(f"edge #{index + 1} must be an object with from and to")
                continue
            eid = edge.setdefault("id", f"e{index + 1}")
            if not isinstance(eid, str) or not eid or eid in seen:
                self.fail(f"edge #{index + 1} needs a unique string id")
                continue
            seen.add(eid)
            src, dst = edge.get("from"), edge.get("to")
            if (
                not isinstance(src, str)
                or src not in by_id
                or not isinstance(dst, str)
                or dst not in by_id
            ):
                self.fail(f"edge {eid!r} does not join two nodes of the workflow")
                continue
            source, target = by_id[src], by_id[dst]
            outs, ins = output_ports(source), input_ports(target)
            default_out = next(iter(outs), "out")
            default_in = "tools" if outs.get(default_out) == "tool" else "in"
            out_port = edge.setdefault("from_port", default_out)
            in_port = edge.setdefault("to_port", default_in)
            condition = self.text(
                f"edge {eid!r}: condition", edge.setdefault("condition", ""), src, LIMITS["name"]
            )
            if out_port not in outs:
                self.fail(
                    f"edge {eid!r}: node {src!r} has no output port {out_port!r} (it has {sorted(outs)})",
                    src,
                )
            elif in_port not in ins:
                self.fail(
                    f"edge {eid!r}: node {dst!r} has no input port {in_port!r} (it has {sorted(ins)})",
                    dst,
                )
            elif not compatible(outs[out_port], ins[in_port]):
                self.fail(
                    f"edge {eid!r}: a {outs[out_port]} port ({src}.{out_port}) cannot join a "
                    f"{ins[in_port]} port ({dst}.{in_port})",
                    src,
                )
            elif condition and outs[out_port] == "tool":
                self.fail(f"edge {eid!r}: a tool wire takes no condition", src)

    def graph(self, by_id: dict[str, dict[str, Any]], edges: list[Any]) -> None:
        edges = [
            e
            for e in edges
            if isinstance(e, dict)
            and isinstance(e.get("from"), str)
            and isinstance(e.get("to"), str)
            and e["from"] in by_id
            and e["to"] in by_id
        ]
        starts = [i for i, n in by_id.items() if isinstance(n, dict) and n.get("type") == "start"]
        if len(starts) != 1:
            self.fail(
                f"a workflow needs exactly one START node (it has {len(starts)})", fatal=False
            )
        if not any(n.get("type") == "end" for n in by_id.values() if isinstance(n, dict)):
            self.fail("a workflow needs an END node", fatal=False)
        outgoing: dict[str, list[dict[str, Any]]] = {}
        for edge in edges:
            if isinstance(edge, dict) and edge.get("from") in by_id:
                outgoing.setdefault(edge["from"], []).append(edge)
        tools = {n.get("name") for n in by_id.values() if n.get("type") == "agent_tool"}
        wired: dict[str, set[str]] = {}
        for edge in edges:
            if (
                isinstance(edge, dict)
                and edge.get("to_port") == "tools"
                and edge.get("from") in by_id
            ):
                wired.setdefault(str(edge.get("to")), set()).add(
                    str(by_id[edge["from"]].get("name"))
                )
        for nid, node in by_id.items():
            kind = node.get("type")
            flows = [e for e in outgoing.get(nid, []) if e.get("from_port") != "tool"]
            if kind == "start" and len(flows) != 1:
                self.fail("START needs exactly one edge, to the first node", nid, fatal=False)
            elif kind in ("agent", "loop", "subgraph", "hitl") and not flows:
                self.fail(
                    f"node {node.get('name') or nid!r} has no outgoing edge: connect it on (to END at the last)",
                    nid,
                    fatal=False,
                )
            if kind == "agent" and isinstance(node.get("tools"), list):
                for spec in node["tools"]:
                    if not isinstance(spec, str):
                        continue
                    if spec in tools and spec not in wired.get(nid, set()):
                        self.fail(
                            f"agent {node.get('name')!r} names the Agent Tool {spec!r}: wire its tool port to this agent",
                            nid,
                            fatal=False,
                        )
                    elif spec not in tools and not spec.startswith("selectools.toolbox."):
                        self.fail(
                            f"agent {node.get('name')!r}: tool {spec!r} is neither an Agent Tool here nor a selectools.toolbox path",
                            nid,
                            fatal=False,
                        )


def check(doc: Any) -> tuple[dict[str, Any], list[Problem]]:
    """The document with defaults filled in, and every problem found (shape and graph)."""
    checker = _Checker()
    filled = checker.document(doc, "the workflow", 0)
    return filled, checker.problems


def validate(doc: Any, *, runnable: bool = False) -> dict[str, Any]:
    """The document with defaults filled in; :class:`WorkflowError` for the first problem.

    ``runnable=True`` also refuses graph problems (what a run needs).
    """
    filled, problems = check(doc)
    for problem in problems:
        if problem.fatal or runnable:
            raise WorkflowError(problem.message, node=problem.node)
    return filled
