"""A graph with a generator node, run in a subprocess by test_interrupts.py.

``python _hitl_app.py start STORE TARGET`` runs to the interrupt and prints its id;
``python _hitl_app.py resume STORE TARGET ID ANSWER`` resumes it in a fresh process.
Each pass through the code before the node's first ``yield`` appends a line to
``TARGET.log`` so the test can see what a restart replays.
"""

from __future__ import annotations

import json
import sys

from selectools.orchestration import (
    AgentGraph,
    FileCheckpointStore,
    GraphState,
    InterruptRequest,
    PostgresCheckpointStore,
    SQLiteCheckpointStore,
)


def build(log: str) -> AgentGraph:
    def review(state: GraphState):
        with open(log, "a") as handle:
            handle.write("analysed\n")
        state.data["count"] = state.data.get("count", 0) + 1
        first = yield InterruptRequest(prompt="Approve?", payload={"draft": state.last_output})
        second = yield InterruptRequest(prompt="Really?", key="confirm")
        state.last_output = f"{first}/{second} after {state.data['count']} analysis"

    graph = AgentGraph(name="hitl")
    graph.add_node("draft", lambda s: "the draft", next_node="review")
    graph.add_node("review", review, next_node="publish")
    graph.add_node("publish", lambda s: f"published: {s.last_output}")
    return graph


def store(kind: str, target: str):
    if kind == "file":
        return FileCheckpointStore(target)
    if kind == "sqlite":
        return SQLiteCheckpointStore(target)
    return PostgresCheckpointStore(target)


if __name__ == "__main__":
    phase, kind, target = sys.argv[1:4]
    log = sys.argv[-1]
    graph = build(log)
    if phase == "start":
        result = graph.run("write", checkpoint_store=store(kind, target))
    else:
        result = graph.resume(sys.argv[4], sys.argv[5], checkpoint_store=store(kind, target))
    print(
        json.dumps(
            {
                "interrupted": result.interrupted,
                "interrupt_id": result.interrupt_id,
                "prompt": result.interrupt.prompt if result.interrupt else None,
                "content": result.content,
                "run_id": result.run_id,
            }
        )
    )
