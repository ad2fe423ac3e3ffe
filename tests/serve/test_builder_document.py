"""The builder's workflow document: checks, YAML, Python export and import, AgentGraph both ways."""

from __future__ import annotations

import contextlib
import copy
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from selectools.builder import (
    WorkflowError,
    check,
    example,
    from_graph,
    from_python,
    from_yaml,
    import_text,
    template,
    templates,
    to_graph,
    to_python,
    to_yaml,
    validate,
)
from selectools.exceptions import GraphExecutionError
from selectools.orchestration import InMemoryCheckpointStore
from selectools.testing import ScriptedProvider, reply, tool_call

ROOT = Path(__file__).resolve().parents[2]
LAYOUT = ("x", "y", "width", "height", "pinned_output", "frozen")


def semantic(doc: dict[str, Any]) -> dict[str, Any]:
    """What the Python export keeps: nodes by name (no layout, run state or notes), edges by source."""
    doc = validate(doc)
    by_id = {n["id"]: n for n in doc["nodes"]}

    def key(nid: str) -> str:
        node = by_id[nid]
        return node["type"] if node["type"] in ("start", "end") else node["name"]

    nodes = {
        key(n["id"]): {k: v for k, v in n.items() if k not in (*LAYOUT, "id")}
        for n in doc["nodes"]
        if n["type"] != "note"
    }
    flows: dict[str, list[tuple[str, str, str]]] = {}
    tools = set()
    for e in doc["edges"]:
        if e["from_port"] == "tool":
            tools.add((key(e["from"]), key(e["to"])))
        else:
            flows.setdefault(key(e["from"]), []).append(
                (e["from_port"], e["condition"], key(e["to"]))
            )
    subs = {k: semantic(v) for k, v in doc["subgraphs"].items()}
    return {"name": doc["name"], "nodes": nodes, "flows": flows, "tools": tools, "subgraphs": subs}


# -- generated documents -----------------------------------------------------------------

TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40
)
LABEL = st.sampled_from(["", "", "approved", "retry", "done", "yes", "no go"])
NAMES = [f"node_{i}" for i in range(12)]


@st.composite
def workflows(draw: Any, name: str = "flow", with_subgraphs: bool = True) -> dict[str, Any]:
    kinds = draw(
        st.lists(st.sampled_from(["agent", "loop", "hitl", "subgraph"]), min_size=1, max_size=6)
    )
    subgraphs: dict[str, Any] = {}
    if with_subgraphs and "subgraph" in kinds:
        subgraphs["helper_flow"] = draw(workflows(name="helper_flow", with_subgraphs=False))
    elif "subgraph" in kinds:
        kinds = [k for k in kinds if k != "subgraph"] or ["agent"]
    names = draw(st.permutations(NAMES))
    nodes: list[dict[str, Any]] = [{"id": "start", "type": "start", "x": 1, "y": 2}]
    for kind, node_name in zip(kinds, names, strict=False):
        node: dict[str, Any] = {"id": node_name, "type": kind, "name": node_name}
        if kind == "agent":
            node.update(
                provider=draw(st.sampled_from(["", "openai", "local"])),
                model=draw(st.sampled_from(["", "gpt-4o-mini"])),
                system_prompt=draw(TEXT),
                tools=draw(
                    st.lists(st.just("selectools.toolbox.text_tools.count_text"), max_size=1)
                ),
            )
        elif kind == "loop":
            node.update(max_iterations=draw(st.integers(1, 5)), exit_condition=draw(LABEL))
        elif kind == "hitl":
            options = draw(
                st.lists(
                    st.sampled_from(["approve", "reject", "maybe later"]),
                    min_size=1,
                    max_size=3,
                    unique=True,
                )
            )
            node.update(
                prompt=draw(TEXT),
                options=options,
                timeout_s=draw(st.sampled_from([1, 300, 2.5])),
                default_option=draw(st.sampled_from(["", *options])),
            )
        else:
            node.update(graph="helper_flow")
        nodes.append(node)
    flow = nodes[1:]
    agents = [n for n in flow if n["type"] == "agent"]
    tool_count = draw(st.integers(0, 2)) if agents else 0
    for i in range(tool_count):
        tname = names[len(kinds) + i]
        nodes.append(
            {
                "id": tname,
                "type": "agent_tool",
                "name": tname,
                "description": draw(TEXT),
                "provider": "",
                "model": "",
                "system_prompt": draw(TEXT),
                "tools": [],
            }
        )
    if draw(st.booleans()):
        nodes.append(
            {
                "id": "note_1",
                "type": "note",
                "text": draw(TEXT),
                "color": "amber",
                "collapsed": False,
            }
        )
    nodes.append({"id": "end", "type": "end"})
    targets = [n["id"] for n in flow] + ["end"]
    edges = [
        {"from": "start", "from_port": "out", "to": flow[0]["id"], "to_port": "in", "condition": ""}
    ]
    for node in flow:
        ports = {"agent": ["out"], "subgraph": ["out"], "loop": ["body", "done"]}.get(
            node["type"]
        ) or node["options"]
        for port in ports:
            for _ in range(draw(st.integers(1, 2))):
                edges.append(
                    {
                        "from": node["id"],
                        "from_port": port,
                        "to": draw(st.sampled_from(targets)),
                        "to_port": "in",
                        "condition": draw(LABEL),
                    }
                )
    for tool in [n for n in nodes if n["type"] == "agent_tool"]:
        user = draw(st.sampled_from(agents))
        user["tools"].append(tool["name"])
        edges.append(
            {
                "from": tool["id"],
                "from_port": "tool",
                "to": user["id"],
                "to_port": "tools",
                "condition": "",
            }
        )
    for i, e in enumerate(edges):
        e["id"] = f"e{i + 1}"
    return {"version": 1, "name": name, "nodes": nodes, "edges": edges, "subgraphs": subgraphs}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workflows())
def test_yaml_round_trips_everything(doc):
    filled = validate(doc)
    assert from_yaml(to_yaml(filled)) == filled


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workflows())
def test_python_round_trips_everything_the_canvas_can_express(doc):
    script = to_python(doc)
    back = from_python(script)
    assert semantic(back) == semantic(doc)
    assert to_python(back) == script  # a second export is the same text
    assert semantic(from_yaml(to_yaml(back))) == semantic(doc)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workflows())
def test_an_agentgraph_made_from_a_document_reads_back(doc):
    graph = to_graph(doc, provider=ScriptedProvider(default="ok"), force_provider=True)
    assert semantic(from_graph(graph)) == semantic(doc)


# -- checks ------------------------------------------------------------------------------


def doc_with(*nodes: dict, edges: list[tuple] = ()) -> dict:
    all_nodes = [{"id": "start", "type": "start"}, *nodes, {"id": "end", "type": "end"}]
    return {
        "name": "w",
        "nodes": all_nodes,
        "edges": [
            {"id": f"e{i}", "from": a, "from_port": p, "to": b, "to_port": tp}
            for i, (a, p, b, tp) in enumerate(edges)
        ],
    }


AGENT = {"id": "a", "type": "agent", "name": "a"}


@pytest.mark.parametrize(
    ("doc", "words", "node"),
    [
        ({"nodes": [{"id": str(i), "type": "note"} for i in range(201)], "edges": []}, "at most 200", None),
        ({"nodes": [], "edges": [{}] * 401}, "at most 400", None),
        (doc_with({**AGENT, "name": "not valid"}), "Python identifier", "a"),
        (doc_with({**AGENT, "name": "x" * 81}), "at most 80", "a"),
        (doc_with({**AGENT, "system_prompt": "x" * 20_001}), "at most 20000", "a"),
        (doc_with({**AGENT, "provider": "acme"}), "provider 'acme'", "a"),
        (doc_with({"id": "s", "type": "subgraph", "name": "s", "graph": "nope"}), "not in subgraphs", "s"),
        (doc_with({"id": "t", "type": "agent_tool", "name": "t"}, edges=[("t", "tool", "end", "in")]),
         "cannot join a text port", "t"),
        (doc_with(AGENT, edges=[("start", "out", "a", "tools")]), "cannot join a tool port", "start"),
        (doc_with({"id": "h", "type": "hitl", "name": "h", "options": ["a", "a"]}), "options must be", "h"),
        (doc_with({"id": "l", "type": "loop", "name": "l", "max_iterations": 0}), "max_iterations", "l"),
        (doc_with(AGENT, {**AGENT, "id": "b"}), "same name", "b"),
        ({"nodes": [{"id": "x", "type": "wizard"}], "edges": []}, "type 'wizard'", "x"),
    ],
)  # fmt: skip
def test_bad_documents_say_what_and_where(doc, words, node):
    with pytest.raises(WorkflowError) as caught:
        validate(doc)
    assert words in caught.value.message
    assert caught.value.node == node


def test_subgraphs_nest_at_most_four_deep():
    doc: dict = {"name": "w", "nodes": [], "edges": []}
    inner = doc
    for level in range(5):
        child: dict = {"name": f"s{level}", "nodes": [], "edges": []}
        inner["subgraphs"] = {f"s{level}": child}
        inner = child
    with pytest.raises(WorkflowError, match="more than 4 levels"):
        validate(doc)


def test_graph_problems_leave_the_document_usable_but_not_runnable():
    doc = doc_with(AGENT, edges=[("start", "out", "a", "in")])
    filled, problems = check(doc)
    assert [p.fatal for p in problems] == [False]
    assert "no outgoing edge" in problems[0].message
    assert "add_node" in to_python(filled)
    with pytest.raises(WorkflowError, match="no outgoing edge"):
        validate(doc, runnable=True)


# -- YAML and Python import errors -------------------------------------------------------


def test_malformed_yaml_points_at_the_line():
    with pytest.raises(WorkflowError) as caught:
        from_yaml("name: w\nnodes:\n  - id: a\n    type: [agent\nedges: []\n")
    assert caught.value.line is not None and caught.value.line >= 4
    assert f"line {caught.value.line}" in caught.value.message


def test_a_bad_node_in_yaml_points_at_its_line():
    text = "name: w\nnodes:\n- id: start\n  type: start\n- id: a\n  type: agent\n  name: 'bad name'\nedges: []\n"
    with pytest.raises(WorkflowError) as caught:
        from_yaml(text)
    assert caught.value.line == 5


def test_yaml_aliases_are_refused():  # a few nested aliases expand to gigabytes
    bomb = "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n"
    with pytest.raises(WorkflowError, match="aliases"):
        from_yaml(bomb)


@pytest.mark.parametrize(
    ("script", "line", "words"),
    [
        ("def w():\n    graph = AgentGraph(name='w')\n    graph.add_node('a', agent('a'))\n    return graph\n  x\n", 5, "unindent"),
        ("from x import y\n\n\ndef w():\n    graph = AgentGraph(name='w')\n    print('hi')\n    return graph\n", 6, "cannot read"),
        ("def w():\n    graph = AgentGraph(name='w')\n    graph.add_node('a', agent('a', model=MODEL))\n    return graph\n", 3, "not a literal"),
        ("def w():\n    graph = AgentGraph(name='w')\n    graph.add_edge('START', 'ghost')\n    return graph\n", 3, "not a node"),
        ("x = 1\n", 1, "no graph function"),
    ],
)  # fmt: skip
def test_malformed_python_points_at_the_line(script, line, words):
    with pytest.raises(WorkflowError) as caught:
        from_python(script)
    assert caught.value.line == line
    assert words in caught.value.message and f"line {line}" in caught.value.message


def test_python_import_never_runs_the_code(tmp_path):
    marker = tmp_path / "ran"
    script = to_python(template("simple_chatbot")).replace(
        "from selectools", f"open({str(marker)!r}, 'w')\nfrom selectools", 1
    )
    assert semantic(import_text(script)) == semantic(template("simple_chatbot"))
    assert not marker.exists()


def test_hand_written_graphs_in_the_same_shape_import():
    script = """
from selectools.builder.runtime import agent, loop, route
from selectools.orchestration import AgentGraph


def shorten(text):  # a helper, not a graph
    return text[:10]


def my_flow():
    graph = AgentGraph("my_flow")
    graph.add_node("writer", agent("writer", system_prompt="Write."), next_node="check")
    graph.add_node("check", loop("check", max_iterations=2, exit_condition="ok"))
    graph.set_entry("writer")
    graph.add_conditional_edge("check", route("check", [("body", "", "writer"), ("done", "", AgentGraph.END)]))
    return graph
"""
    doc = import_text(script)
    assert doc["name"] == "my_flow"
    assert semantic(doc)["flows"] == {
        "start": [("out", "", "writer")],
        "writer": [("out", "", "check")],
        "check": [("body", "", "writer"), ("done", "", "end")],
    }
    assert all("x" in n and "y" in n for n in doc["nodes"])


def test_auto_import_tells_yaml_from_python():
    assert import_text(to_yaml(template("reviewer_loop")))["name"] == "reviewer_loop"
    assert import_text(to_python(template("reviewer_loop")))["name"] == "reviewer_loop"


# -- templates and running ---------------------------------------------------------------


def test_the_seven_templates_in_menu_order():
    assert [t["title"] for t in templates()] == [
        "Simple Chatbot", "Researcher + Writer", "RAG Pipeline", "Reviewer Loop",
        "HITL Approval", "Multi-Model Panel", "Chain of Thought",
    ]  # fmt: skip
    for t in templates():
        validate(template(t["name"]), runnable=True)
    kinds = {n["type"] for n in example()["nodes"]}
    assert kinds == {"start", "agent", "loop", "subgraph", "hitl", "agent_tool", "note", "end"}


@pytest.mark.parametrize("name", [t["name"] for t in templates()] + ["example"])
def test_every_template_exports_a_script_that_runs(name, tmp_path):
    doc = example() if name == "example" else template(name)
    script = tmp_path / f"{name}.py"
    script.write_text(to_python(doc))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(PYTHONPATH=str(ROOT), SELECTOOLS_PROVIDER="local")
    done = subprocess.run(
        [sys.executable, str(script), "hello builder"],
        capture_output=True, text=True, env=env, timeout=120, stdin=subprocess.DEVNULL, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "hello builder" in done.stdout  # the offline provider echoes the conversation


def test_a_document_runs_on_agentgraph_with_branches_loops_and_interrupts():
    doc = example()
    seen: list[str] = []

    def answer(request):  # type: ignore[no-untyped-def]
        seen.append(request.system_prompt or "")
        if "critic" in (request.system_prompt or ""):
            return "APPROVED, nice"
        if "Research" in (request.system_prompt or "") and not any(
            m.role.value == "tool" for m in request.messages
        ):
            return reply("", tool_call("critic", request="my draft"))
        return "draft: approved"

    graph = to_graph(doc, provider=ScriptedProvider(answer), force_provider=True)
    store = InMemoryCheckpointStore()
    paused = graph.run("topic", checkpoint_store=store)
    assert paused.interrupted and paused.interrupt.prompt == "Publish this summary?"
    assert paused.interrupt.payload["options"] == ["publish", "redo"]
    assert list(paused.node_results)[:2] == ["researcher", "review"]
    assert any("critic" in s for s in seen)  # the agent tool ran as a tool
    done = graph.resume(paused.interrupt_id, "publish", checkpoint_store=store)
    assert not done.interrupted and done.stop_reason == "end"
    again = graph.run("topic", checkpoint_store=store)
    with pytest.raises(GraphExecutionError, match="answer one of"):
        graph.resume(again.interrupt_id, "maybe", checkpoint_store=store)


def test_a_branch_with_no_matching_edge_names_the_node():
    doc = template("simple_chatbot")
    doc["edges"][-1]["condition"] = "never"
    graph = to_graph(doc, provider=ScriptedProvider(default="hello"), force_provider=True)
    with pytest.raises(GraphExecutionError, match="node 'assistant': no edge"):
        graph.run("hi")


def test_loops_stop_after_max_iterations():
    doc = template("reviewer_loop")
    provider = ScriptedProvider(default="needs work")
    result = to_graph(doc, provider=provider, force_provider=True).run("essay")
    assert provider.calls == 2 * 4  # writer + reviewer, then the body three more times
    assert result.stop_reason == "end"
    provider = ScriptedProvider(default="APPROVED")
    to_graph(doc, provider=provider, force_provider=True).run("essay")
    assert provider.calls == 2


def test_only_toolbox_tools_can_be_named():
    doc = copy.deepcopy(template("simple_chatbot"))
    doc["nodes"][1]["tools"] = ["os.system"]
    _, problems = check(doc)
    assert any("selectools.toolbox" in p.message for p in problems)
    with pytest.raises(ValueError, match=r"selectools\.toolbox"):
        to_graph(doc, provider=ScriptedProvider(default="x"))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=30,
)
FIELDS = st.sampled_from(["id", "type", "name", "from", "to", "from_port", "to_port", "options",
                          "tools", "graph", "max_iterations", "timeout_s", "condition", "x"])  # fmt: skip


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.fixed_dictionaries(
        {"nodes": st.lists(st.dictionaries(FIELDS, JSON | st.sampled_from(["start", "agent", "hitl", "end", "a"])), max_size=5),
         "edges": st.lists(st.dictionaries(FIELDS, JSON | st.sampled_from(["start", "a", "out", "in"])), max_size=5),
         "subgraphs": JSON | st.just({})}
    )
)  # fmt: skip
def test_hostile_documents_get_a_workflow_error_and_nothing_else(doc):
    filled, problems = check(doc)
    if any(p.fatal for p in problems):
        with pytest.raises(WorkflowError):
            validate(doc)
    else:
        assert from_yaml(to_yaml(filled)) == filled
        with contextlib.suppress(WorkflowError):  # a name the script uses itself
            to_python(filled)
