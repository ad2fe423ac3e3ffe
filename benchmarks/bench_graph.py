"""What an AgentGraph run costs, next to LangGraph measured in the same run.

Scenarios (a fresh graph per iteration with default settings, built outside the timed window; only
the run is timed, GC off as in ``timeit``):

- ``callable_1`` / ``callable_3``: 1 and 3 plain function nodes in a line;
- ``agent_3``: 3 Agent nodes (``LocalProvider``, offline) in a line;
- ``parallel_3``: a parallel group of 3 function nodes;
- ``conditional``: 3 function nodes where a router picks the last one;
- ``checkpoint``: ``SQLiteCheckpointStore`` save + load of a small state.

LangGraph runs the same 3-node linear and conditional tasks (``StateGraph`` of
plain functions, compiled outside the timed window) in its own virtualenv,
created once under ``$SELECTOOLS_BENCH_CACHE`` or ``~/.cache/selectools-bench``
with ``pip install langgraph``. The rounds alternate and the report gives
median ratios; the issue's target is ≤ 0.35× LangGraph on both tasks.

Run: ``python benchmarks/bench_graph.py [iterations per round] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _reference import clean_env, reference_python

ROOT = Path(__file__).resolve().parents[1]
TARGET = 0.35

COMMON = """
import gc, json, sys, time

def timed(setup, action, n):
    samples = []
    gc.disable()
    try:
        for _ in range(n):
            subject = setup()
            started = time.perf_counter()
            action(subject)
            samples.append(time.perf_counter() - started)
    finally:
        gc.enable()
    samples.sort()
    return samples[len(samples) // 2]
"""

OURS = (
    COMMON
    + """
import tempfile
from selectools import Agent
from selectools.orchestration import AgentGraph, GraphState, SQLiteCheckpointStore
from selectools.providers.stubs import LocalProvider

def step(state):
    state.data["n"] = state.data.get("n", 0) + 1
    state.data["__last_output__"] = "x"
    return state

def linear(k):
    def build():
        g = AgentGraph()
        for i in range(k):
            g.add_node(f"n{i}", step, next_node=f"n{i + 1}" if i + 1 < k else AgentGraph.END)
        return g
    return build

def agents():
    g = AgentGraph()
    for i in range(3):
        g.add_node(f"a{i}", Agent(provider=LocalProvider()), next_node=f"a{i + 1}" if i < 2 else AgentGraph.END)
    return g

def parallel():
    g = AgentGraph()
    for i in range(3):
        g.add_node(f"p{i}", step)
    g.add_parallel_nodes("team", ["p0", "p1", "p2"])
    g.set_entry("team")
    return g

def conditional():
    g = AgentGraph()
    g.add_node("classify", step)
    g.add_node("a", step, next_node=AgentGraph.END)
    g.add_node("b", step, next_node=AgentGraph.END)
    g.add_conditional_edge("classify", lambda s: "b" if s.data["n"] == 1 else "a")
    return g

store = SQLiteCheckpointStore(tempfile.mkdtemp() + "/c.db")
def checkpoint(_):
    s = GraphState.from_prompt("hello")
    s.data.update({"a": 1, "b": [1, 2, 3]})
    store.load(store.save("g", s, 1))

n = int(sys.argv[1])
run = lambda g: g.run("task")
out = {
    "callable_1": timed(linear(1), run, n),
    "callable_3": timed(linear(3), run, n),
    "agent_3": timed(agents, run, n),
    "parallel_3": timed(parallel, run, n),
    "conditional": timed(conditional, run, n),
    "checkpoint": timed(lambda: None, checkpoint, n),
}
print(json.dumps(out))
"""
)

LANGGRAPH = (
    COMMON
    + """
from typing import TypedDict
from langgraph.graph import StateGraph, START, END

class State(TypedDict, total=False):
    n: int
    out: str

def step(state):
    return {"n": state.get("n", 0) + 1, "out": "x"}

def linear():
    g = StateGraph(State)
    for i in range(3):
        g.add_node(f"n{i}", step)
    g.add_edge(START, "n0"); g.add_edge("n0", "n1"); g.add_edge("n1", "n2"); g.add_edge("n2", END)
    return g.compile()

def conditional():
    g = StateGraph(State)
    g.add_node("classify", step); g.add_node("a", step); g.add_node("b", step)
    g.add_edge(START, "classify")
    g.add_conditional_edges("classify", lambda s: "b" if s["n"] == 1 else "a", ["a", "b"])
    g.add_edge("a", END); g.add_edge("b", END)
    return g.compile()

n = int(sys.argv[1])
run = lambda g: g.invoke({"n": 0})
print(json.dumps({"callable_3": timed(linear, run, n), "conditional": timed(conditional, run, n)}))
"""
)


def langgraph_venv() -> Path:
    """A virtualenv with LangGraph from the package index (created once, then reused)."""
    probe = (
        "import importlib.metadata, langgraph.graph; print(importlib.metadata.version('langgraph'))"
    )
    return reference_python("langgraph", "langgraph", probe)[0]


def scenario(python: str, source: str, env: dict[str, str], n: int) -> dict[str, float]:
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(source)
    try:
        out = subprocess.run(
            [python, handle.name, str(n)], capture_output=True, text=True, env=env, check=True
        )
    finally:
        os.unlink(handle.name)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("iterations", nargs="?", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    lg_python = str(langgraph_venv())
    ours_env = {**clean_env(), "PYTHONPATH": str(ROOT)}
    ours: list[dict[str, float]] = []
    theirs: list[dict[str, float]] = []
    for _ in range(args.rounds):
        ours.append(scenario(sys.executable, OURS, ours_env, args.iterations))
        theirs.append(scenario(lg_python, LANGGRAPH, clean_env(), args.iterations))

    def med(rows: list[dict[str, float]], key: str) -> float:
        return statistics.median(row[key] for row in rows) * 1e3

    print(f"AgentGraph ({args.iterations} iterations x {args.rounds} rounds, median ms per run)")
    for key in ours[0]:
        print(f"  {key:<12} {med(ours, key):8.4f} ms")
    print("Same run, LangGraph:")
    worst = 0.0
    for key, label in (("callable_3", "3-node linear"), ("conditional", "conditional routing")):
        ratio = med(ours, key) / med(theirs, key)
        worst = max(worst, ratio)
        print(
            f"  {label:<20} selectools {med(ours, key):.4f} ms · LangGraph "
            f"{med(theirs, key):.4f} ms · ratio {ratio:.2f}x (target <= {TARGET}x)"
        )
    print("PASS" if worst <= TARGET else "ABOVE TARGET")


if __name__ == "__main__":
    main()
