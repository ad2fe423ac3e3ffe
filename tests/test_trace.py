import json

import pytest

from selectools import AgentTrace, StepType, TraceStep, trace_to_json
from selectools.trace import STEP_EVENTS, now


def _trace() -> AgentTrace:
    trace = AgentTrace(run_id="r" * 32, parent_run_id="parent", metadata={"user": "u1"})
    t0 = trace.started_at
    trace.add(
        TraceStep(
            StepType.LLM_CALL,
            t0,
            t0 + 0.010,
            iteration=1,
            model="gpt-4o",
            prompt_tokens=100,
            completion_tokens=20,
            cost_usd=0.00045,
            summary="gpt-4o: 120 tokens",
        )
    )
    trace.add(
        TraceStep(
            StepType.TOOL_SELECTION,
            t0 + 0.010,
            t0 + 0.010,
            iteration=1,
            tool_name="search",
            reasoning="need data",
        )
    )
    trace.add(
        TraceStep(
            StepType.TOOL_EXECUTION,
            t0 + 0.011,
            t0 + 0.020,
            iteration=1,
            tool_name="search",
            call_id="c1",
            lane=0,
        )
    )
    trace.add(
        TraceStep(
            StepType.TOOL_EXECUTION,
            t0 + 0.011,
            t0 + 0.030,
            iteration=1,
            tool_name="fetch",
            call_id="c2",
            lane=1,
            status="error",
            error="boom",
        )
    )
    trace.add(
        TraceStep(
            StepType.LLM_CALL,
            t0 + 0.031,
            t0 + 0.040,
            iteration=2,
            model="gpt-4o",
            prompt_tokens=150,
            completion_tokens=30,
            cost_usd=0.000675,
        )
    )
    trace.ended_at = t0 + 0.041
    return trace


def test_step_types_compare_to_strings():
    assert StepType.LLM_CALL == "llm_call"
    assert StepType("structured_retry") is StepType.STRUCTURED_RETRY
    assert (
        len(StepType) == 27
    )  # + 10 graph_* kinds (issue 10); guardrail, coherence_check, output_screening (issue 13), entity_extraction, kg_extraction (issue 14)
    assert set(StepType) == set(STEP_EVENTS)  # every kind says which events announce it


def test_step_field_order_is_pinned_for_positional_construction():
    """The hot-path constructors (``llm_call``, ``tool_selection``, ``tool_execution``) are
    positional: a new field goes last, or update them."""
    from dataclasses import fields

    assert [f.name for f in fields(TraceStep)] == [
        "type",
        "started_at",
        "ended_at",
        "summary",
        "run_id",
        "iteration",
        "call_id",
        "lane",
        "status",
        "error",
        "reasoning",
        "model",
        "prompt_tokens",
        "completion_tokens",
        "cost_usd",
        "tool_name",
        "tool_args",
        "result",
        "data",
        "node_name",
    ]
    selection = TraceStep.tool_selection(
        1.0, "search(q='x')", "run", 2, "c1", "search", {"q": "x"}, "why"
    )
    assert selection == TraceStep(
        StepType.TOOL_SELECTION,
        1.0,
        1.0,
        summary="search(q='x')",
        run_id="run",
        iteration=2,
        call_id="c1",
        tool_name="search",
        tool_args={"q": "x"},
        reasoning="why",
    )
    execution = TraceStep.tool_execution(
        1.0, 1.5, "search → ok", "run", 2, "c1", 3, "search", {"q": "x"}, "ok", {"chunks": 2}
    )
    assert execution == TraceStep(
        StepType.TOOL_EXECUTION,
        1.0,
        1.5,
        summary="search → ok",
        run_id="run",
        iteration=2,
        call_id="c1",
        lane=3,
        tool_name="search",
        tool_args={"q": "x"},
        result="ok",
        data={"chunks": 2},
    )
    step = TraceStep.llm_call(1.0, 1.5, "m: 3 tokens", "run", 2, "m", 1, 2, 0.25, {"attempts": 2})
    assert step == TraceStep(
        StepType.LLM_CALL,
        1.0,
        1.5,
        summary="m: 3 tokens",
        run_id="run",
        iteration=2,
        model="m",
        prompt_tokens=1,
        completion_tokens=2,
        cost_usd=0.25,
        data={"attempts": 2},
    )


def test_every_step_event_exists_and_takes_parameters_a_step_can_fill():
    from selectools.observer import EVENTS
    from selectools.trace import STEP_EVENTS

    for kind, (ok_events, error_events) in STEP_EVENTS.items():
        assert isinstance(kind, StepType)
        for name in (*ok_events, *error_events):
            assert name in EVENTS, (kind, name)


def test_filter_iteration_and_totals():
    trace = _trace()
    assert len(trace) == 5
    assert [s.type for s in trace][:2] == ["llm_call", "tool_selection"]
    assert len(trace.filter(type="llm_call")) == 2
    assert len(trace.filter(type=StepType.TOOL_EXECUTION, status="error")) == 1
    assert trace.total_tokens == 300
    assert trace.total_cost_usd == pytest.approx(0.001125)
    assert trace.total_duration_ms == pytest.approx(41.0, abs=0.01)
    assert trace[0].duration_ms == pytest.approx(10.0, abs=0.01)
    with pytest.raises(ValueError):
        trace.filter(type="not_a_step")


def test_round_trip_and_json_file(tmp_path):
    trace = _trace()
    data = json.loads(trace.to_json(tmp_path / "trace.json"))
    assert data == json.loads((tmp_path / "trace.json").read_text())
    assert data["parent_run_id"] == "parent"
    assert data["metadata"] == {"user": "u1"}
    copy = AgentTrace.from_dict(data)
    assert copy.to_dict() == trace.to_dict()
    assert trace_to_json(trace) == trace.to_json()


def test_timeline_lists_every_step():
    text = _trace().timeline()
    lines = text.splitlines()
    assert lines[0].startswith("Trace rrrrrrrr · 5 steps")
    assert len(lines) == 6
    assert "[lane 1] ✗" in text


def test_otel_spans_nest_tools_under_their_llm_call():
    spans = _trace().to_otel_spans()
    root = spans[0]
    assert root["name"] == "agent.run"
    assert root["parent_span_id"] is None
    assert root["attributes"]["gen_ai.system"] == "selectools"
    assert root["attributes"]["gen_ai.usage.total_tokens"] == 300
    assert root["status"]["code"] == "ERROR"
    llm = [s for s in spans if s["name"] == "gen_ai.llm.call"]
    tools = [s for s in spans if s["name"] == "gen_ai.tool.execution"]
    assert len(llm) == 2 and len(tools) == 2
    assert all(t["parent_span_id"] == llm[0]["span_id"] for t in tools)
    assert llm[0]["attributes"]["gen_ai.usage.input_tokens"] == 100
    assert tools[1]["attributes"]["gen_ai.tool.success"] is False
    assert len({s["span_id"] for s in spans}) == len(spans)
    assert len({s["trace_id"] for s in spans}) == 1
    for span in spans:
        assert span["start_time_unix_nano"] <= span["end_time_unix_nano"]


def test_clock_is_monotonic():
    values = [now() for _ in range(1000)]
    assert values == sorted(values)


def test_empty_trace_is_truthy():
    assert AgentTrace()
