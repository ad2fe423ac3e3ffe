"""The builder widget's kernel side: bound to a graph both ways, the canvas's calls, inserted cells."""

from __future__ import annotations

import time

import pytest
from IPython.core.error import UsageError

from selectools.builder import example, from_graph, template, to_graph, to_python
from selectools.builder.runtime import agent
from selectools.notebook.builder_widget import BuilderWidget, bind_nodes, graph_cell_text
from selectools.notebook.errors import NotebookUsageError
from selectools.notebook.graph_cell import build_graph
from selectools.orchestration import AgentGraph
from selectools.testing import ScriptedProvider


class Sent:
    """What the widget sent to the canvas (its ``send``, recorded)."""

    def __init__(self, widget: BuilderWidget) -> None:
        self.messages: list[dict] = []
        widget.send = self.messages.append  # type: ignore[method-assign]

    def reply(self, call_id: str, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for message in list(self.messages):
                if message["kind"] == "reply" and message["id"] == call_id:
                    return message
            time.sleep(0.02)
        raise AssertionError(f"no reply to {call_id}: {self.messages}")


def call(widget: BuilderWidget, call_id: str, method: str, *args) -> None:  # type: ignore[no-untyped-def]
    widget._on_message(
        widget, {"kind": "call", "id": call_id, "method": method, "args": list(args)}, []
    )


def test_canvas_edits_change_the_graph_in_place():
    graph = to_graph(template("simple_chatbot"), provider=ScriptedProvider(default="hi"))
    widget = BuilderWidget(graph, var="bot")
    doc = widget.workflow
    assert [n.get("name") for n in doc["nodes"] if n.get("name")] == ["assistant"]
    changed = template("chain_of_thought")
    widget.workflow = changed
    assert graph.name == "chain_of_thought"
    assert list(graph.nodes) == ["planner", "reasoner", "answerer"]
    half_drawn = {**changed, "edges": [{"from": "start", "to": "nowhere"}]}
    widget.workflow = half_drawn  # a shape problem: the graph keeps its last good shape
    assert list(graph.nodes) == ["planner", "reasoner", "answerer"]


def test_python_changes_redraw_the_canvas_keeping_positions():
    graph = to_graph(template("researcher_writer"))
    widget = BuilderWidget(graph, var="flow")
    widget.workflow = template("researcher_writer")  # the canvas's ids and positions
    graph.add_node("editor", agent("editor", system_prompt="Tighten it."))
    graph.add_edge("writer", "editor")
    graph.add_edge("editor", "END")
    widget.refresh()
    nodes = {n.get("name"): n for n in widget.workflow["nodes"]}
    assert "editor" in nodes
    assert (nodes["writer"]["id"], nodes["writer"]["x"]) == ("n2", 500)
    assert any(e["from"] == "n2" and e["to"] == "editor" for e in widget.workflow["edges"])


def test_graphs_the_canvas_cannot_show_are_refused_with_the_reason():
    graph = AgentGraph("custom")
    graph.add_node("step", lambda state: None)
    with pytest.raises(NotebookUsageError, match="'step' is a plain function"):
        BuilderWidget(graph)


def test_the_canvas_calls_the_kernel():
    widget = BuilderWidget(to_graph(template("simple_chatbot")))
    sent = Sent(widget)
    call(widget, "c1", "code", template("simple_chatbot"))
    assert sent.reply("c1")["result"]["python"] == to_python(template("simple_chatbot"))
    call(widget, "c2", "importText", "name: w\nnodes: [\n", "yaml")
    assert sent.reply("c2")["error"]["line"] == 3
    call(widget, "c3", "templates")
    assert len(sent.reply("c3")["result"]) == 7
    call(widget, "c4", "generate", "a bot")
    assert sent.reply("c4")["result"] == {"fallback": True}
    call(widget, "c5", "watch", "flow.py")
    assert "selectools serve --builder" in sent.reply("c5")["error"]["message"]


def test_a_run_streams_events_and_human_input_is_answered_from_the_canvas(monkeypatch):
    monkeypatch.setenv("SELECTOOLS_PROVIDER", "local")
    widget = BuilderWidget(to_graph(template("hitl_approval")))
    sent = Sent(widget)
    call(widget, "r1", "run", {"workflow": template("hitl_approval"), "prompt": "hi"})
    deadline = time.monotonic() + 60
    while not any(m.get("event", {}).get("type") == "interrupt" for m in sent.messages):
        assert time.monotonic() < deadline, sent.messages
        time.sleep(0.02)
    run_id = sent.messages[0]["event"]["run_id"]
    call(widget, "r2", "resume", {"run_id": run_id, "node": "n2", "option": "approve"})
    assert sent.reply("r2")["result"] == {"ok": True}
    sent.reply("r1")
    kinds = [m["event"]["type"] for m in sent.messages if m["kind"] == "event" and m["id"] == "r1"]
    assert kinds[0] == "run_start" and kinds[-1] == "result"


def test_inserted_cells_rebuild_the_same_graph(shell, monkeypatch):
    graph = to_graph(example(), provider=ScriptedProvider(default="APPROVED"), force_provider=True)
    cells: list[str] = []
    monkeypatch.setattr(shell, "set_next_input", lambda text, replace=False: cells.append(text))
    widget = BuilderWidget(graph, var="flow", shell=shell)
    sent = Sent(widget)
    python = widget.insert_cell("python")
    assert sent.messages == [{"kind": "inserted", "format": "python", "text": python}]
    namespace: dict = {}
    exec(
        compile(python, "<cell>", "exec"), namespace
    )  # the user's own cell, run as the notebook would
    assert isinstance(namespace["flow"], AgentGraph)
    assert to_python(from_graph(namespace["flow"])) == to_python(from_graph(graph))
    cell = widget.insert_cell("graph")
    assert cells == [python, cell] and cell.startswith("%%graph flow\n")
    rebuilt = build_graph(cell.split("\n", 1)[1], shell.user_ns, "flow")
    assert rebuilt.entry == "researcher" and set(rebuilt.nodes) == set(graph.nodes)
    result = rebuilt.run("topic")
    assert result.interrupted and result.interrupt.prompt == "Publish this summary?"
    widget.close()


def test_the_saved_notebook_shows_the_graph_svg():
    widget = BuilderWidget(to_graph(template("reviewer_loop")))
    data, _metadata = widget._repr_mimebundle_()
    assert data["image/svg+xml"].startswith("<svg") and "reviewer" in data["image/svg+xml"]
    assert "application/vnd.jupyter.widget-view+json" in data


def test_the_magic_and_edit_open_the_builder(shell):
    shell.run_cell(
        "from selectools.builder import template, to_graph\nflow = to_graph(template('simple_chatbot'))"
    )
    result = shell.run_line_magic("selectools", "builder flow")
    assert isinstance(result, BuilderWidget) and result.graph is shell.user_ns["flow"]
    assert isinstance(shell.user_ns["flow"].edit(var="flow"), BuilderWidget)
    with pytest.raises(UsageError, match="not a notebook variable holding an AgentGraph"):
        shell.run_line_magic("selectools", "builder nothing")


def test_the_widget_module_loads_every_builder_module():
    from selectools.notebook.builder_widget import PAGE_DIR, _bundle

    bundle = _bundle()
    for module in PAGE_DIR.rglob("*.js"):
        assert f'"{module.relative_to(PAGE_DIR).as_posix()}"' in bundle
    assert 'import(url("widget.js"))' in bundle


def test_bind_nodes_defines_the_cell_variables():
    graph = to_graph(template("reviewer_loop"))
    namespace: dict = {}
    bind_nodes(graph, namespace)
    assert {"writer", "reviewer", "review", "mentions"} <= set(namespace)
    text = graph_cell_text(from_graph(graph), "loop_flow")
    assert "review -> writer : state.data.get(\"review.port\") == 'body'" in text
