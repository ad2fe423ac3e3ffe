"""Human-in-the-loop: generator nodes pause, checkpoint and resume, in process and across restarts."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from selectools.exceptions import GraphExecutionError
from selectools.orchestration import (
    AgentGraph,
    FileCheckpointStore,
    GraphState,
    InMemoryCheckpointStore,
    InterruptRequest,
    SQLiteCheckpointStore,
)

from ._hitl_app import build

APP = Path(__file__).with_name("_hitl_app.py")


def test_in_process_resume_continues_at_the_exact_yield(tmp_path):
    log = tmp_path / "log"
    graph = build(str(log))
    store = InMemoryCheckpointStore()
    first = graph.run("write", checkpoint_store=store)
    assert first.interrupted and first.interrupt.prompt == "Approve?"
    assert first.interrupt.payload == {"draft": "the draft"}
    second = graph.resume(first.interrupt_id, "yes", checkpoint_store=store)
    assert second.interrupted and second.interrupt.key == "confirm"
    final = graph.resume(second.interrupt_id, "sure", checkpoint_store=store)
    assert not final.interrupted
    assert final.content == "published: yes/sure after 1 analysis"
    assert log.read_text() == "analysed\n"  # the code before the yield ran once
    metas = store.list(first.run_id)
    assert [m.interrupted for m in metas] == [False, True, True, False, False]
    assert [m.node_name for m in metas][-2:] == ["review", "publish"]
    assert final.run_id == first.run_id  # one run, across the pauses
    # in process the pauses are one run: node spans of every part in one trace
    nodes = [s.node_name for s in final.trace.steps if s.type.value == "graph_node_end"]
    assert nodes == ["draft", "review", "review", "review", "publish"]
    assert [s.status for s in final.trace.steps if s.type.value == "graph_node_end"][1:4] == [
        "interrupted",
        "interrupted",
        "ok",
    ]


def test_resume_without_a_store_works_in_process_only(tmp_path):
    graph = build(str(tmp_path / "log"))
    paused = graph.run("write")
    assert paused.interrupted and paused.interrupt_id.startswith("interrupt-")
    again = graph.resume(paused.interrupt_id, "a")
    assert graph.resume(again.interrupt_id, "b").content == "published: a/b after 1 analysis"
    with pytest.raises(Exception, match="not paused in this process"):
        graph.resume(paused.interrupt_id, "a")


def test_async_generator_node_with_aresume():
    async def approve(state: GraphState):
        state.data["seen"] = True
        answer = yield InterruptRequest(prompt="ok?")
        state.last_output = f"answer={answer}"

    graph = AgentGraph()
    graph.add_node("approve", approve)
    store = InMemoryCheckpointStore()

    async def go():
        paused = await graph.arun("x", checkpoint_store=store)
        return await graph.aresume(paused.interrupt_id, 42, checkpoint_store=store)

    result = asyncio.run(go())
    assert result.content == "answer=42" and result.state.data["seen"] is True


def test_sync_run_keeps_a_paused_async_generator_alive_until_resume():
    calls = []

    async def review(state: GraphState):
        calls.append("analysed")
        answer = yield InterruptRequest(prompt="ok?")
        state.last_output = f"approved={answer}"

    graph = AgentGraph()
    graph.add_node("review", review)
    paused = graph.run("x")
    assert graph.resume(paused.interrupt_id, "yes").content == "approved=yes"
    assert calls == ["analysed"]  # continued at the yield, not replayed


def test_a_generator_yielding_something_else_is_a_clear_error():
    def bad(state):
        yield "not an interrupt"

    graph = AgentGraph()
    graph.add_node("bad", bad)
    with pytest.raises(Exception, match=r"yield.*InterruptRequest"):
        graph.run("x")


def _app(*args: str) -> dict:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(APP.parents[2]), os.environ.get("PYTHONPATH", "")]),
    }
    out = subprocess.run(
        [sys.executable, str(APP), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _restart_round_trip(kind: str, target: str, log: Path) -> None:
    first = _app("start", kind, target, str(log))
    assert first["interrupted"] and first["prompt"] == "Approve?"
    # a fresh process: the paused generator is gone, the checkpoint replays the node
    second = _app("resume", kind, target, first["interrupt_id"], "yes", str(log))
    assert second["interrupted"] and second["prompt"] == "Really?"
    final = _app("resume", kind, target, second["interrupt_id"], "sure", str(log))
    assert not final["interrupted"]
    # replay starts from the state saved before the node: the count is not doubled,
    # but the code before the first yield did run again in each new process
    assert final["content"] == "published: yes/sure after 1 analysis"
    assert log.read_text() == "analysed\n" * 3
    assert final["run_id"] == first["run_id"]


def test_restart_resume_with_file_store(tmp_path):
    _restart_round_trip("file", str(tmp_path / "ckpt"), tmp_path / "log")
    files = sorted(p.name for p in (tmp_path / "ckpt").iterdir() if p.name != ".checkpoints.lock")
    assert files and all(name.endswith(".json") for name in files)  # no temp files left


def test_restart_resume_with_sqlite_store(tmp_path):
    _restart_round_trip("sqlite", str(tmp_path / "ckpt.db"), tmp_path / "log")


def test_restart_resume_with_postgres_store(tmp_path, postgres_uri):
    _restart_round_trip("postgres", postgres_uri, tmp_path / "log")


@pytest.mark.parametrize("kind", ["memory", "file", "sqlite"])
def test_store_protocol_save_load_list_delete(tmp_path, kind):
    store = {
        "memory": lambda: InMemoryCheckpointStore(),
        "file": lambda: FileCheckpointStore(tmp_path / "c"),
        "sqlite": lambda: SQLiteCheckpointStore(tmp_path / "c.db"),
    }[kind]()
    state = GraphState.from_prompt("hi")
    state.data = {"k": [1, 2]}
    state.current_node = "n"
    cid = store.save("g1", state, 3)
    loaded, step = store.load(cid)
    assert step == 3 and loaded.data == {"k": [1, 2]} and loaded.messages[0].text == "hi"
    assert [(m.checkpoint_id, m.step, m.node_name, m.interrupted) for m in store.list("g1")] == [
        (cid, 3, "n", False)
    ]
    assert store.list("other") == []
    assert store.delete(cid) is True and store.delete(cid) is False
    with pytest.raises(ValueError, match="No checkpoint"):
        store.load(cid)


def test_postgres_store_protocol(postgres_uri):
    from selectools.orchestration import PostgresCheckpointStore

    store = PostgresCheckpointStore(postgres_uri, table="proto_checkpoints")
    state = GraphState.from_prompt("hi")
    state.data["x"] = 1
    cid = store.save("g", state, 1)
    assert store.load(cid)[0].data == {"x": 1}
    assert [m.checkpoint_id for m in store.list("g")] == [cid]
    assert store.delete(cid) and not store.delete(cid)


def test_continue_a_run_from_a_checkpoint(tmp_path):
    graph = AgentGraph()
    graph.add_node("a", lambda s: {"a": 1}, next_node="b")
    graph.add_node("b", lambda s: f"b after a={s.data['a']}")
    store = SQLiteCheckpointStore(tmp_path / "c.db")
    result = graph.run("x", checkpoint_store=store)
    after_a = store.list(result.run_id)[0]
    assert after_a.node_name == "a"
    again = graph.run("ignored", checkpoint_store=store, checkpoint_id=after_a.checkpoint_id)
    assert again.content == "b after a=1" and again.run_id == result.run_id
    assert [s.node_name for s in again.trace.filter("graph_node_end")] == ["b"]

    routed = AgentGraph()
    routed.add_node("a", lambda s: {"go": "c"})
    routed.add_node("b", lambda s: "b")
    routed.add_node("c", lambda s: "c")
    routed.add_conditional_edge("a", lambda s: s.data["go"])

    async def go():
        first = await routed.arun("x", checkpoint_store=store)
        cid = store.list(first.run_id)[0].checkpoint_id
        events = [e async for e in routed.astream("x", checkpoint_store=store, checkpoint_id=cid)]
        return await routed.arun("x", checkpoint_store=store, checkpoint_id=cid), events

    cont, events = asyncio.run(go())
    assert cont.content == "c"  # the router ran again on the saved state
    assert [e.node_name for e in events if e.type.value == "node_start"] == ["c"]


_WRITER = """
import sys
from selectools.orchestration import FileCheckpointStore, GraphState, SQLiteCheckpointStore
store = FileCheckpointStore(sys.argv[1]) if sys.argv[2] == "file" else SQLiteCheckpointStore(sys.argv[1])
state = GraphState.from_prompt("x")
state.data["blob"] = "y" * 200_000
print("ready", flush=True)
i = 0
while True:
    state.data["i"] = i
    store.save("g", state, i)
    i += 1
"""


@pytest.mark.parametrize("kind", ["file", "sqlite"])
def test_a_killed_writer_never_leaves_a_half_written_checkpoint(tmp_path, kind):
    import signal
    import time

    target = str(tmp_path / ("c" if kind == "file" else "c.db"))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(APP.parents[2]), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, target, kind], stdout=subprocess.PIPE, env=env, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    deadline = time.monotonic() + 30
    store = FileCheckpointStore(target) if kind == "file" else SQLiteCheckpointStore(target)
    while len(store.list("g")) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    metas = store.list("g")
    assert len(metas) >= 5
    for meta in metas:  # every checkpoint there is whole
        state, step = store.load(meta.checkpoint_id)
        assert state.data["i"] == step and len(state.data["blob"]) == 200_000


def _guarded_review(closed: list[str]):
    def review(state):
        try:
            answer = yield InterruptRequest(prompt="Publish?")
            state.last_output = f"approved: {answer}"
        finally:
            closed.append("review closed")

    return review


def test_abandon_closes_a_paused_generator_and_a_checkpoint_can_still_resume():
    closed: list[str] = []
    graph = AgentGraph(name="abandon")
    graph.add_node("review", _guarded_review(closed), next_node=AgentGraph.END)
    store = InMemoryCheckpointStore()
    paused = graph.run("x", checkpoint_store=store)
    assert paused.interrupted and closed == []
    assert graph.abandon(paused.interrupt_id) is True
    assert closed == ["review closed"]  # the node's finally ran
    assert graph.abandon(paused.interrupt_id) is False  # nothing paused there any more
    assert AgentGraph(name="other").abandon(paused.interrupt_id) is False
    # the checkpoint is left: the node re-runs from it with the answer
    done = graph.resume(paused.interrupt_id, "yes", checkpoint_store=store)
    assert done.content == "approved: yes"


def test_abandon_without_a_store_leaves_nothing_to_resume():
    closed: list[str] = []
    graph = AgentGraph(name="abandon-no-store")
    graph.add_node("review", _guarded_review(closed), next_node=AgentGraph.END)
    paused = graph.run("x")
    assert graph.abandon(paused.interrupt_id) is True and closed == ["review closed"]
    with pytest.raises(GraphExecutionError, match="not paused in this process"):
        graph.resume(paused.interrupt_id, "yes")


def test_abandon_closes_an_async_generator_node_paused_by_a_sync_run():
    closed: list[str] = []

    async def review(state):
        try:
            yield InterruptRequest(prompt="Publish?")
        finally:
            closed.append("async review closed")

    graph = AgentGraph(name="abandon-async")
    graph.add_node("review", review, next_node=AgentGraph.END)
    paused = graph.run("x")
    assert paused.interrupted
    assert graph.abandon(paused.interrupt_id) is True
    assert closed == ["async review closed"]
