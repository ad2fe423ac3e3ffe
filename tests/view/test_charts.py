"""trace.to_dataframe() and trace.gantt(): one row per step; spans on lanes; errors highlighted."""

from __future__ import annotations

import time

import pytest

from selectools import Agent, AgentConfig, tool
from selectools._view.charts import COLUMNS
from selectools.testing import ScriptedProvider, reply, tool_call
from selectools.trace import AgentTrace, StepType, TraceStep


@tool()
def slow_lookup(key: str) -> str:
    """Looks a key up slowly."""
    if key == "bad":
        raise KeyError(key)
    time.sleep(0.02)
    return key.upper()


def _parallel_run():
    provider = ScriptedProvider(
        [
            reply(
                "",
                tool_call("slow_lookup", key="a"),
                tool_call("slow_lookup", key="b"),
                tool_call("slow_lookup", key="bad"),
            ),
            "done",
        ]
    )
    agent = Agent(
        tools=[slow_lookup], provider=provider, config=AgentConfig(parallel_tool_execution=True)
    )
    return agent.run("look up a, b and bad")


def test_dataframe_has_one_row_per_step_with_the_documented_columns():
    result = _parallel_run()
    frame = result.trace.to_dataframe()
    assert tuple(frame.columns) == COLUMNS
    assert len(frame) == len(result.trace)
    tools = frame[frame.type == "tool_execution"]
    assert sorted(tools.lane) == [0, 1, 2]
    assert set(tools.name) == {"slow_lookup"}
    assert list(tools[tools.status == "error"].error.str.contains("bad")) == [True]
    llm = frame[frame.category == "llm"]
    assert llm.tokens.sum() == result.usage.total_tokens
    assert (frame.end_ms >= frame.start_ms).all()
    assert frame.duration_ms.round(6).equals((frame.end_ms - frame.start_ms).round(6))
    assert abs(frame.cost_usd.sum() - result.usage.total_cost_usd) < 1e-12


def test_gantt_draws_parallel_tools_on_lanes_and_errors_in_red():
    result = _parallel_run()
    figure = result.trace.gantt(title="run")
    names = [trace.name for trace in figure.data]
    assert names == ["LLM call", "tool call", "error"]
    rows = list(figure.layout.yaxis.categoryarray)
    assert rows == ["LLM", "tool · lane 0", "tool · lane 1", "tool · lane 2"]
    tools = figure.data[1]
    assert sorted(tools.y) == ["tool · lane 0", "tool · lane 1"]
    # the two successful calls overlap in time: side by side, not one after the other
    (start_a, start_b), (width_a, _) = sorted(tools.base), sorted(tools.x)
    assert start_b < start_a + width_a
    error = figure.data[2]
    assert error.marker.color == "#da3633" and list(error.y) == ["tool · lane 2"]
    assert "KeyError" in error.customdata[0][3] or "bad" in error.customdata[0][3]
    assert "%{customdata[0]}" in tools.hovertemplate
    assert figure.layout.title.text == "run"


def test_gantt_marks_error_events_and_leaves_out_bookkeeping():
    trace = AgentTrace()
    t0 = trace.started_at
    trace.add(TraceStep(StepType.LLM_CALL, t0 + 0.01, t0 + 0.02, model="m", prompt_tokens=3))
    trace.add(TraceStep(StepType.ERROR, t0 + 0.04, t0 + 0.04, status="error", error="boom"))
    trace.add(TraceStep(StepType.TOOL_SELECTION, t0 + 0.04, t0 + 0.04))  # bookkeeping: not drawn
    figure = trace.gantt()
    by_name = {t.name: t for t in figure.data}
    assert set(by_name) == {"LLM call", "error"}
    assert list(by_name["error"].y) == ["events"]
    assert list(figure.layout.yaxis.categoryarray) == ["LLM", "events"]


def test_empty_trace_and_wrong_type():
    empty = AgentTrace()
    assert len(empty.to_dataframe()) == 0
    assert list(empty.gantt().data) == []
    from selectools._view.charts import trace_gantt, trace_to_dataframe

    with pytest.raises(TypeError, match="expected an AgentTrace"):
        trace_gantt([])
    with pytest.raises(TypeError, match="expected an AgentTrace"):
        trace_to_dataframe(None)


def test_ten_thousand_steps_chart_quickly():
    trace = AgentTrace()
    t0 = trace.started_at
    for i in range(10_000):
        start = t0 + i * 0.001
        if i % 3 == 0:
            trace.add(
                TraceStep(StepType.LLM_CALL, start, start + 0.0008, model="m", prompt_tokens=5)
            )
        else:
            failed = i % 101 == 0
            trace.add(
                TraceStep(
                    StepType.TOOL_EXECUTION,
                    start,
                    start + 0.0009,
                    tool_name="t",
                    lane=i % 3 - 1,
                    status="error" if failed else "ok",
                    error="x" if failed else None,
                )
            )
    trace.to_dataframe()  # warm the imports; the budget is for the work
    trace.gantt()
    started = time.perf_counter()
    frame = trace.to_dataframe()
    figure = trace.gantt()
    elapsed = time.perf_counter() - started
    assert len(frame) == 10_000
    assert sum(len(t.y) for t in figure.data) == 10_000
    assert elapsed < 2.0  # about 0.15 s on the reference machine
