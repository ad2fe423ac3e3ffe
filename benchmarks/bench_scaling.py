"""How cost grows: each core operation at three sizes, its growth measured and checked.

Times are this process's CPU time (every operation runs on one thread), so
other work on a shared machine does not inflate them. For every operation the
time at the smallest size is the reference (1.00x) and
the others are ratios against it, measured in the same run; the growth exponent
``k`` (time ~ size^k, fitted between the two largest sizes) is compared with
what the operation should cost:

- an agent run with 1 / 100 / 10,000 messages of history, trimmed to 20 by
  ``ConversationMemory(max_messages=20)``: constant (trimming works);
- the same history kept whole: linear (every message goes to the model);
- an agent with 10 / 100 / 1,000 tools, built and run once: linear;
- a graph of 3 / 30 / 300 function nodes in a line: linear;
- loading one session from SQLite holding 100 / 1,000 / 10,000 sessions: constant;
- BM25 search over 1,000 / 10,000 / 100,000 chunks: linear (at most);
- vector search (in-memory store, 64-d) over the same sizes: linear (at most);
- an EvalSuite of 1,000 / 4,000 / 16,000 cases (no model latency): linear.

A growth faster than expected (k more than 0.3 above it) is flagged with ``!``.
Run: ``python benchmarks/bench_scaling.py [--quick]`` (``--quick``: smaller largest sizes).
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

from selectools import Agent, ConversationMemory, tool
from selectools.testing import ScriptedProvider
from selectools.types import Message, Role

Setup = Callable[[int], Callable[[], object]]


def timed(setup: Setup, size: int, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        action = setup(size)
        gc.collect()  # the setup's garbage is not the operation's cost
        began = time.process_time()  # CPU time: the machine's other work does not count
        action()
        samples.append(time.process_time() - began)
    return statistics.median(samples)


def history(trimmed: bool) -> Setup:
    def setup(size: int) -> Callable[[], object]:
        memory = ConversationMemory(max_messages=20 if trimmed else size + 10)
        memory.extend(
            [
                Message(role=Role.USER if i % 2 == 0 else Role.ASSISTANT, content=f"message {i}")
                for i in range(size)
            ]
        )
        agent = Agent(provider=ScriptedProvider(lambda r: "ok"), memory=memory)
        agent.run("first")  # frees what the fill trimmed: a one-off cost, not the run's
        return lambda: agent.run("one more")

    return setup


def tools(size: int) -> Callable[[], object]:
    made = []
    for i in range(size):

        def echo(text: str) -> str:
            return text

        made.append(tool(name=f"tool_{i}", description=f"Tool number {i}.")(echo))
    return lambda: Agent(made, provider=ScriptedProvider(lambda r: "ok")).run("hello")


def graph(size: int) -> Callable[[], object]:
    from selectools.orchestration import AgentGraph

    def step(state: Any) -> Any:
        state.data["n"] = state.data.get("n", 0) + 1
        return state

    built = AgentGraph(max_steps=size + 1)
    for i in range(size):
        built.add_node(f"n{i}", step, next_node=f"n{i + 1}" if i + 1 < size else AgentGraph.END)
    return lambda: built.run("task")


_SESSIONS: dict[int, Any] = {}


def session_load(size: int) -> Callable[[], object]:
    from selectools.sessions import SQLiteSessionStore

    if size not in _SESSIONS:
        path = os.path.join(tempfile.mkdtemp(prefix="bench-scaling-"), "s.db")
        store = SQLiteSessionStore(path)
        for i in range(size):
            store.save(f"s{i}", {"messages": [{"role": "user", "content": f"hello {i}"}]})
        _SESSIONS[size] = store
    store = _SESSIONS[size]
    return lambda: store.load(f"s{size // 2}")


WORDS = [f"w{i}" for i in range(5000)]
_INDEXES: dict[tuple[str, int], Any] = {}


def _chunks(size: int) -> list[Any]:
    from selectools.rag import Document

    return [
        Document(text=" ".join(WORDS[(i * 7 + j * 13) % len(WORDS)] for j in range(30)))
        for i in range(size)
    ]


def bm25(size: int) -> Callable[[], object]:
    from selectools.rag import BM25

    key = ("bm25", size)
    if key not in _INDEXES:
        index = BM25()
        index.add_documents(_chunks(size))
        index.search("w1 w2", top_k=5)  # built on first search
        _INDEXES[key] = index
    index = _INDEXES[key]
    return lambda: index.search("w17 w404 w999", top_k=5)


def vectors(size: int) -> Callable[[], object]:
    import numpy

    from selectools.rag.stores.memory import InMemoryVectorStore

    key = ("vectors", size)
    if key not in _INDEXES:
        rng = numpy.random.default_rng(0)
        store = InMemoryVectorStore(embedder=None)
        store.add_documents(_chunks(size), embeddings=rng.random((size, 64)), progress=False)
        _INDEXES[key] = (store, rng.random(64).tolist())
    store, query = _INDEXES[key]
    return lambda: store.search(query_embedding=query, top_k=5)


def evals(size: int) -> Callable[[], object]:
    from selectools.evals import EvalSuite, TestCase

    suite = EvalSuite(
        Agent(provider=ScriptedProvider(lambda r: f"re {r.last_message.content}")),
        [TestCase(input=f"q{i}", expect_contains=f"q{i}") for i in range(size)],
    )
    return suite.run


def growth(k: float) -> str:
    if k < 0.25:
        return "constant"
    if k < 0.8:
        return "sub-linear"
    if k < 1.25:
        return "linear"
    return "super-linear"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    q = args.quick
    operations: list[tuple[str, Setup, tuple[int, int, int], float, int]] = [
        ("history, trimmed to 20", history(True), (1, 100, 10_000), 0.0, 7),
        ("history, kept whole", history(False), (1, 100, 10_000), 1.0, 5),
        ("tools (build + run)", tools, (10, 100, 1000), 1.0, 3),
        ("graph nodes (run)", graph, (3, 30, 300), 1.0, 5),
        ("SQLite session load", session_load, (100, 1000, 3000 if q else 10_000), 0.0, 21),
        ("BM25 search", bm25, (1000, 10_000, 30_000 if q else 100_000), 1.0, 5),
        ("vector search", vectors, (1000, 10_000, 30_000 if q else 100_000), 1.0, 7),
        ("EvalSuite run", evals, (1000, 4000, 8000 if q else 16_000), 1.0, 1),
    ]
    print(f"load average {os.getloadavg()[0]:.2f}; time at each size as a ratio to the smallest")
    for name, setup, sizes, expected, repeats in operations:
        times = [timed(setup, size, repeats) for size in sizes]
        k = math.log(times[2] / times[1]) / math.log(sizes[2] / sizes[1])
        flag = "!" if k > expected + 0.3 else " "
        ratios = "  ".join(
            f"{s:>6}: {t / times[0]:7.2f}x" for s, t in zip(sizes, times, strict=True)
        )
        print(
            f"{flag} {name:<24} {ratios}   ({times[0] * 1e3:.2f} ms at the smallest)  "
            f"k={k:.2f} {growth(k)} (expected {growth(expected)})"
        )


if __name__ == "__main__":
    main()
