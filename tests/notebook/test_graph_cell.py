"""The graph view (SVG layout, live statuses from graph events) and ``%%graph``."""

from __future__ import annotations

import pytest

from selectools import Agent, AgentConfig
from selectools.orchestration import AgentGraph, InterruptRequest
from selectools.testing import ScriptedProvider
from tests.view.test_graph_view import _demo, _status

from .conftest import final_outputs


def test_live_view_lights_nodes_from_graph_events_and_ends_in_a_static_render(shell):
    shell.user_ns["graph"] = _demo()
    shell.run_cell(
        "from selectools.notebook.graph_cell import run_graph_live\n"
        "result = run_graph_live(graph, 'go')"
    )
    draws = [o["data"]["text/html"] for o in shell.outputs if "text/html" in o["data"]]
    seen = [_status(u) for u in draws[:-1]]  # the redraws; the last draw is the final render
    assert seen[0]["planner"] == "running"
    # both branches of the parallel group run at once
    assert any(s.get("a") == "running" and s.get("b") == "running" for s in seen)
    assert seen[-1] == {"planner": "done", "a": "done", "b": "done", "writer": "done"}
    final = final_outputs(shell)[-1]["data"]["text/html"]
    assert _status(final) == {"planner": "done", "a": "done", "b": "done", "writer": "done"}
    assert "per-node results" not in final or "writer" in final
    assert shell.user_ns["result"].content == "text"


def test_graph_cell_defines_and_runs_a_graph_with_conditions_and_interrupt_answers(shell):
    shell.user_ns.update(
        planner=Agent(provider=ScriptedProvider(default="plan"), config=AgentConfig(model="m")),
        writer=lambda s: "draft of " + s.last_output,
    )

    def approve(state):
        answer = yield InterruptRequest(prompt="Publish?")
        state.data["approved"] = answer == "yes"
        state.last_output = f"approved={answer}"

    shell.user_ns["approve"] = approve
    result = shell.run_cell(
        '%%graph pipeline --prompt "Write" --answer no --answer yes\n'
        "planner -> writer -> approve\n"
        'approve -> END : state.data["approved"]\n'
        "approve -> writer\n"
    )
    assert result.error_in_exec is None
    graph = shell.user_ns["pipeline"]
    assert isinstance(graph, AgentGraph) and graph.entry == "planner"
    done = shell.user_ns["pipeline_result"]
    assert done.content == "approved=yes" and not done.interrupted
    # every node that ran, function and generator nodes included, once per visit
    assert {name: len(r) for name, r in done.node_results.items()} == {
        "planner": 1,
        "writer": 2,
        "approve": 2,
    }
    assert done.state.history[0][0] == "planner"
    html = final_outputs(shell)[-1]["data"]["text/html"]
    assert _status(html)["approve"] == "done" and "approved=yes" in html


def test_graph_cell_without_prompt_shows_the_graph_and_headless_interrupts_stop(shell, monkeypatch):
    def ask(state):
        yield InterruptRequest(prompt="Go on?")

    shell.user_ns.update(first=lambda s: "x", ask=ask)
    shell.run_cell("%%graph g\nfirst -> ask -> END\n")
    assert _status(final_outputs(shell)[-1]["data"]["text/html"]) == {
        "first": "pending",
        "ask": "pending",
    }

    def no_stdin(prompt=""):
        raise EOFError("no stdin in a headless kernel")

    monkeypatch.setattr("builtins.input", no_stdin)
    shell.run_cell('%%graph g --prompt "x"\nfirst -> ask -> END\n')
    paused = shell.user_ns["g_result"]
    assert paused.interrupted and paused.interrupt.prompt == "Go on?"
    assert _status(final_outputs(shell)[-1]["data"]["text/html"])["ask"] == "interrupted"


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("nowhere -> END\n", "'nowhere' is not a notebook variable"),
        ("first => END\n", "is not 'a -> b"),
    ],
)
def test_bad_graph_cells_give_one_line(shell, capsys, cell, message):
    shell.user_ns["first"] = lambda s: None
    shell.run_cell("%%graph g\n" + cell)
    assert message in capsys.readouterr().err
