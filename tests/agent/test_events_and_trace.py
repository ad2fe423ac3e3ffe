"""Observer event order and ids; trace steps nested in the run's time span."""

import asyncio

import pytest

from selectools import (
    Agent,
    AgentConfig,
    AgentObserver,
    SimpleStepObserver,
    ToolExecutionError,
    tool,
)
from selectools.testing import ScriptedProvider, reply, tool_call


@tool()
def double(n: int) -> str:
    """Doubles a number."""
    return str(n * 2)


@tool(streaming=True)
def count(upto: int):
    """Streams numbers."""
    for i in range(upto):
        yield f"{i};"


def _run(mode="sync"):
    events = []
    provider = ScriptedProvider(
        [
            reply("thinking", tool_call("double", n=2), tool_call("double", n=5)),
            tool_call("count", upto=3),
            "final answer",
        ]
    )
    agent = Agent(
        tools=[double, count],
        provider=provider,
        config=AgentConfig(observers=[SimpleStepObserver(events.append)]),
    )
    if mode == "sync":
        result = agent.run("go")
    elif mode == "async":
        result = asyncio.run(agent.arun("go"))
    else:

        async def consume():
            return [item async for item in agent.astream("go")][-1]

        result = asyncio.run(consume())
    return result, events


@pytest.mark.parametrize("mode", ["sync", "async", "astream"])
def test_event_order_and_ids(mode):
    result, events = _run(mode)
    names = [e.name for e in events]
    assert names[0] == "on_run_start" and names[-1] == "on_run_end"
    assert {e.run_id for e in events} == {result.run_id}
    # llm start/end bracket each provider call
    llm = [n for n in names if n in ("on_llm_start", "on_llm_end")]
    assert llm == ["on_llm_start", "on_llm_end"] * 3
    # each iteration is bracketed
    assert names.count("on_iteration_start") == names.count("on_iteration_end") == 3
    # tool start/end pairs share a call id
    starts = {e.call_id: e for e in events if e.name == "on_tool_start"}
    ends = {e.call_id: e for e in events if e.name == "on_tool_end"}
    assert set(starts) == set(ends) and len(starts) == 3
    for call_id, end in ends.items():
        assert names.index("on_tool_start") < names.index("on_tool_end")
        assert end["duration_ms"] >= 0
        assert end.timestamp >= starts[call_id].timestamp
    chunks = [e["chunk"] for e in events if e.name == "on_tool_chunk"]
    assert chunks == ["0;", "1;", "2;"]
    usage_events = [e for e in events if e.name == "on_usage"]
    assert len(usage_events) == 3


def test_tool_lanes_and_iterations_in_events():
    _, events = _run()
    starts = [e for e in events if e.name == "on_tool_start"]
    assert [(e["iteration"], e["lane"]) for e in starts[:2]] in ([(1, 0), (1, 1)], [(1, 1), (1, 0)])
    assert (starts[2]["iteration"], starts[2]["lane"]) == (2, 0)


def test_trace_steps_lie_within_the_run():
    result, _ = _run()
    trace = result.trace
    assert trace.ended_at is not None
    for step in trace:
        assert trace.started_at <= step.started_at <= step.ended_at <= trace.ended_at
        assert step.run_id == trace.run_id
    types = [s.type.value for s in trace]
    assert types.count("llm_call") == 3
    assert types.count("tool_selection") == 3
    assert types.count("tool_execution") == 3
    execution = trace.filter(type="tool_execution", tool_name="count")[0]
    assert execution.result == "0;1;2;" and execution.data == {"chunks": 3}
    llm = trace.filter(type="llm_call")
    assert all(a.ended_at <= b.started_at for a, b in zip(llm, llm[1:]))
    assert trace.total_tokens == result.usage.total_tokens


def test_parent_run_id_and_metadata_reach_the_trace():
    config = AgentConfig(parent_run_id="outer", trace_metadata={"user_id": "u123"})
    result = Agent(config=config).run("x")
    assert result.trace.parent_run_id == "outer"
    assert result.trace.metadata == {"user_id": "u123"}
    assert Agent().run("x", parent_run_id="explicit").trace.parent_run_id == "explicit"
    assert isinstance(result.trace.to_otel_spans(), list)


def test_a_raising_observer_never_breaks_the_run():
    class Exploding(AgentObserver):
        def on_run_start(self, run_id, messages, system_prompt):
            raise RuntimeError("observer bug")

        def on_tool_end(self, run_id, call_id, tool_name, result, duration_ms):
            raise RuntimeError("observer bug")

        def on_event(self, event):
            raise RuntimeError("observer bug")

    provider = ScriptedProvider([tool_call("double", n=1), "fine"])
    result = Agent(
        tools=[double], provider=provider, config=AgentConfig(observers=[Exploding()])
    ).run("x")
    assert result.content == "fine"


def test_per_run_observers_are_not_kept():
    events = []
    agent = Agent()
    agent.run("x", observers=[SimpleStepObserver(events.append)])
    count = len(events)
    agent.run("y")
    assert len(events) == count > 0


def test_stream_chunk_events_for_live_displays():
    events = []
    provider = ScriptedProvider([reply("a b c", chunks=["a ", "b ", "c"])])
    list(Agent(provider=provider).stream("x", observers=[SimpleStepObserver(events.append)]))
    assert [e["chunk"] for e in events if e.name == "on_stream_chunk"] == ["a ", "b ", "c"]


@pytest.mark.parametrize("mode", ["run", "arun", "stream", "astream"])
def test_providers_can_emit_into_the_current_run(mode):
    from selectools._current_run import current_run_id, emit_to_current_run
    from selectools.testing import LocalProvider

    seen_ids = []

    class Wrapper(LocalProvider):
        name = "wrapper"

        def complete(self, **kwargs):
            seen_ids.append(current_run_id())
            emit_to_current_run("on_provider_fallback", "primary", "wrapper", RuntimeError("down"))
            return super().complete(**kwargs)

    events = []
    agent = Agent(
        provider=Wrapper(), config=AgentConfig(observers=[SimpleStepObserver(events.append)])
    )
    if mode == "run":
        result = agent.run("hi")
    elif mode == "arun":
        result = asyncio.run(agent.arun("hi"))
    elif mode == "stream":
        result = list(agent.stream("hi"))[-1]
    else:

        async def consume():
            return [item async for item in agent.astream("hi")][-1]

        result = asyncio.run(consume())
    fallback = [e for e in events if e.name == "on_provider_fallback"]
    assert len(fallback) == 1 and fallback[0].run_id == result.run_id
    assert seen_ids == [result.run_id]
    assert current_run_id() is None


def test_each_step_and_its_event_come_from_one_record():
    """Tool steps and on_tool_end/on_tool_error events agree field for field."""

    @tool()
    def broken(n: int) -> str:
        """Always fails."""
        raise ValueError("no")

    events = []
    provider = ScriptedProvider(
        [reply("", tool_call("double", n=2), tool_call("broken", n=1)), "ok"]
    )
    agent = Agent(
        tools=[double, broken],
        provider=provider,
        config=AgentConfig(observers=[SimpleStepObserver(events.append)]),
    )
    result = agent.run("go")
    steps = {s.call_id: s for s in result.trace.filter("tool_execution")}
    ends = [e for e in events if e.name in ("on_tool_end", "on_tool_error")]
    assert len(ends) == len(steps) == 2
    for event in ends:
        step = steps[event.call_id]
        assert event["tool_name"] == step.tool_name
        assert event["duration_ms"] == step.duration_ms
        assert event["iteration"] == step.iteration and event["lane"] == step.lane
        assert (event.name == "on_tool_error") == (step.status == "error")
    error = next(e for e in ends if e.name == "on_tool_error")
    assert isinstance(error["error"], ToolExecutionError) and error["tool_args"] == {"n": 1}
    (llm_end, *_) = [e for e in events if e.name == "on_llm_end"]
    first_llm = result.trace.filter("llm_call")[0]
    assert llm_end["duration_ms"] == first_llm.duration_ms
    assert llm_end["usage"].total_tokens == first_llm.total_tokens


def test_a_failed_save_is_one_error_step_and_one_on_error_event(tmp_path):
    from selectools.sessions import JsonFileSessionStore

    class Failing(JsonFileSessionStore):
        def save(self, session_id, data, *, ttl_seconds=None):
            raise OSError("disk full")

    events = []
    agent = Agent(
        config=AgentConfig(
            session_store=Failing(str(tmp_path)),
            session_id="s",
            observers=[SimpleStepObserver(events.append)],
        )
    )
    result = agent.run("hi")
    (step,) = result.trace.filter("error")
    (event,) = [e for e in events if e.name == "on_error"]
    assert event["context"] == {"phase": "session_save", "iteration": step.iteration}
    assert str(event["error"]) == step.error == "disk full"
    assert result.error is event["error"]


def test_an_on_event_observer_receives_only_the_events_it_declares():
    class ToolsOnly(AgentObserver):
        events = frozenset({"on_tool_start", "on_tool_end"})

        def __init__(self):
            self.seen = []

        def on_event(self, event):
            self.seen.append(event.name)

    observer = ToolsOnly()
    provider = ScriptedProvider([tool_call("double", n=1), "done"])
    agent = Agent(tools=[double], provider=provider, config=AgentConfig(observers=[observer]))
    list(agent.stream("go"))
    assert observer.seen == ["on_tool_start", "on_tool_end"]
