"""OTelObserver: real SDK spans (in-memory exporter), their tree, times and GenAI attributes."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from selectools import Agent, AgentConfig, AgentObserver, tool
from selectools.observe import OTelObserver
from selectools.observe.otel import AsyncOTelObserver
from selectools.testing import ScriptedProvider, reply, tool_call
from selectools.trace import StepType


@tool()
def search(query: str) -> str:
    """Searches."""
    return f"Results for {query}"


@tool()
def broken(query: str) -> str:
    """Always fails."""
    raise RuntimeError("backend down")


@pytest.fixture
def exporter():
    return InMemorySpanExporter()


@pytest.fixture
def provider(exporter):
    tp = TracerProvider()
    tp.add_span_processor(SimpleSpanProcessor(exporter))
    return tp


def _agent(observer, *script, tools=(search,)):
    return Agent(
        tools=list(tools),
        provider=ScriptedProvider(list(script)),
        config=AgentConfig(observers=[observer]),
    )


def _by_name(spans):
    out = {}
    for span in spans:
        out.setdefault(span.name, []).append(span)
    return out


def test_run_with_a_tool_call_gives_the_documented_span_tree(exporter, provider):
    agent = _agent(
        OTelObserver(tracer_provider=provider),
        reply("let me look", tool_call("search", query="python")),
        "Found it.",
    )
    result = agent.run("Find articles about Python")
    spans = exporter.get_finished_spans()
    names = _by_name(spans)
    assert sorted(names) == ["agent.run", "gen_ai.llm.call", "gen_ai.tool.execution"]
    (root,) = names["agent.run"]
    llm_first, llm_second = sorted(names["gen_ai.llm.call"], key=lambda s: s.start_time)
    (tool_span,) = names["gen_ai.tool.execution"]

    # one trace; LLM calls under the run; the tool under the call that asked for it
    assert {s.context.trace_id for s in spans} == {root.context.trace_id}
    assert root.parent is None
    assert llm_first.parent.span_id == root.context.span_id
    assert llm_second.parent.span_id == root.context.span_id
    assert tool_span.parent.span_id == llm_first.context.span_id

    # documented attributes
    usage = result.usage
    assert root.attributes["gen_ai.system"] == "selectools"
    assert root.attributes["gen_ai.usage.total_tokens"] == usage.total_tokens > 0
    assert root.attributes["gen_ai.usage.cost_usd"] == pytest.approx(usage.total_cost_usd)
    assert root.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert root.attributes["selectools.run_id"] == result.trace.run_id
    steps = result.trace.filter(StepType.LLM_CALL)
    for span, step in zip((llm_first, llm_second), steps, strict=True):
        assert span.kind is SpanKind.CLIENT
        assert span.attributes["gen_ai.operation.name"] == "chat"
        assert span.attributes["gen_ai.request.model"] == step.model
        assert span.attributes["gen_ai.usage.input_tokens"] == step.prompt_tokens > 0
        assert span.attributes["gen_ai.usage.output_tokens"] == step.completion_tokens > 0
        assert span.attributes["gen_ai.usage.cost_usd"] == pytest.approx(step.cost_usd)
    (tool_step,) = result.trace.filter(StepType.TOOL_EXECUTION)
    assert tool_span.attributes["gen_ai.tool.name"] == "search"
    assert tool_span.attributes["gen_ai.tool.call.id"] == tool_step.call_id
    assert tool_span.attributes["gen_ai.tool.success"] is True
    assert tool_span.attributes["gen_ai.tool.duration_ms"] == pytest.approx(tool_step.duration_ms)
    assert tool_span.attributes["gen_ai.operation.name"] == "execute_tool"

    # times are the trace clock's, exactly
    assert root.start_time == int(result.trace.started_at * 1e9)
    assert root.end_time == int(result.trace.ended_at * 1e9)
    assert llm_first.start_time == int(steps[0].started_at * 1e9)
    assert llm_first.end_time == int(steps[0].ended_at * 1e9)
    assert tool_span.start_time == int(tool_step.started_at * 1e9)
    assert tool_span.end_time == int(tool_step.ended_at * 1e9)
    assert root.start_time <= llm_first.start_time <= tool_span.start_time
    assert tool_span.end_time <= llm_second.start_time <= llm_second.end_time <= root.end_time
    assert all(s.status.status_code is not StatusCode.ERROR for s in spans)


def test_failed_tool_marks_its_span_as_error(exporter, provider):
    agent = _agent(
        OTelObserver(tracer_provider=provider),
        tool_call("broken", query="x"),
        "Sorry.",
        tools=(broken,),
    )
    agent.run("go")
    (tool_span,) = _by_name(exporter.get_finished_spans())["gen_ai.tool.execution"]
    assert tool_span.attributes["gen_ai.tool.success"] is False
    assert tool_span.status.status_code is StatusCode.ERROR
    assert "backend down" in tool_span.status.description


def test_run_that_raises_still_ends_its_root_span_as_error(exporter, provider):
    class Boom(AgentObserver):
        pass

    def exploding(request):
        raise KeyError("not a provider error")

    agent = Agent(
        tools=[search],
        provider=ScriptedProvider([exploding]),
        config=AgentConfig(observers=[OTelObserver(tracer_provider=provider)]),
    )
    with pytest.raises(KeyError):
        agent.run("go")
    (root,) = exporter.get_finished_spans()
    assert root.name == "agent.run"
    assert root.status.status_code is StatusCode.ERROR
    assert "KeyError" in root.status.description
    assert [e.name for e in root.events] == ["exception"]


def test_run_inside_a_user_span_nests_under_it(exporter, provider):
    tracer = provider.get_tracer("app")
    agent = _agent(OTelObserver(tracer_provider=provider), "hello")
    with tracer.start_as_current_span("request") as outer:
        agent.run("hi")
    names = _by_name(exporter.get_finished_spans())
    (root,) = names["agent.run"]
    assert root.parent.span_id == outer.get_span_context().span_id


def test_agent_run_inside_a_tool_nests_under_that_tool_span(exporter, provider):
    observer = OTelObserver(tracer_provider=provider)
    outer_ids: list[str] = []

    class RunIds(AgentObserver):
        def on_run_start(self, run_id, messages, system_prompt):
            outer_ids.append(run_id)

    inner = _agent(observer, "inner answer", tools=())

    @tool()
    def ask_helper(question: str) -> str:
        """Asks another agent."""
        return inner.run(question, parent_run_id=outer_ids[0]).content

    outer = Agent(
        tools=[ask_helper],
        provider=ScriptedProvider([tool_call("ask_helper", question="q"), "done"]),
        config=AgentConfig(observers=[RunIds(), observer]),
    )
    outer.run("go")
    spans = exporter.get_finished_spans()
    roots = [s for s in spans if s.name == "agent.run"]
    assert len(roots) == 2
    outer_root = next(s for s in roots if s.parent is None)
    inner_root = next(s for s in roots if s.parent is not None)
    (tool_span,) = [s for s in spans if s.name == "gen_ai.tool.execution"]
    assert inner_root.parent.span_id == tool_span.context.span_id
    assert inner_root.context.trace_id == outer_root.context.trace_id
    assert (
        tool_span.start_time <= inner_root.start_time <= inner_root.end_time <= tool_span.end_time
    )


def test_async_observer_in_arun(exporter, provider):
    agent = _agent(
        AsyncOTelObserver(tracer_provider=provider),
        tool_call("search", query="a"),
        "ok",
    )
    result = asyncio.run(agent.arun("go"))
    names = _by_name(exporter.get_finished_spans())
    assert len(names["gen_ai.llm.call"]) == 2
    (root,) = names["agent.run"]
    assert root.attributes["selectools.run_id"] == result.trace.run_id
    assert names["gen_ai.tool.execution"][0].parent.span_id in {
        s.context.span_id for s in names["gen_ai.llm.call"]
    }


def test_no_tracer_provider_means_nothing_recorded():
    """In a fresh process (no provider was ever set): the observer stays a no-op."""
    code = textwrap.dedent(
        """
        from opentelemetry import trace
        from selectools import Agent, AgentConfig
        from selectools.observe import OTelObserver
        from selectools.testing import ScriptedProvider

        observer = OTelObserver()
        agent = Agent(
            tools=[], provider=ScriptedProvider(["hi"]), config=AgentConfig(observers=[observer])
        )
        print(agent.run("hi").content)
        print(type(trace.get_tracer_provider()).__name__)
        print(observer._core._runs, observer._core.tracer(), repr(observer))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "hi",
        "ProxyTracerProvider",
        "{} None OTelObserver(tracer_name='selectools')",
    ]


def test_documented_global_setup_in_a_fresh_process():
    """The page's recipe: a global TracerProvider, then ``OTelObserver()`` with no arguments."""
    code = textwrap.dedent(
        """
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        from selectools import Agent, AgentConfig, tool
        from selectools.observe import OTelObserver
        from selectools.testing import ScriptedProvider, tool_call

        exporter = InMemorySpanExporter()
        trace.set_tracer_provider(TracerProvider())
        trace.get_tracer_provider().add_span_processor(SimpleSpanProcessor(exporter))

        @tool(description="Searches.")
        def search(query: str) -> str:
            return f"Results for {query}"

        agent = Agent(
            tools=[search],
            provider=ScriptedProvider([tool_call("search", query="py"), "done"]),
            config=AgentConfig(observers=[OTelObserver()]),
        )
        agent.run("Find articles about Python")
        spans = exporter.get_finished_spans()
        print(sorted(s.name for s in spans))
        print({s.instrumentation_scope.name for s in spans})
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "['agent.run', 'gen_ai.llm.call', 'gen_ai.llm.call', 'gen_ai.tool.execution']",
        "{'selectools'}",
    ]


def test_spans_reach_an_otlp_http_collector(collector):
    """Once through the real OTLP/HTTP exporter into a loopback collector that decodes protobuf."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    from .conftest import attributes

    tp = TracerProvider(resource=Resource.create({"service.name": "otlp-test"}))
    tp.add_span_processor(
        BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{collector.url}/v1/traces", timeout=10))
    )
    agent = _agent(
        OTelObserver(tracer_provider=tp),
        tool_call("search", query="otlp"),
        "Found.",
    )
    result = agent.run("go")
    assert tp.force_flush(timeout_millis=10_000)
    tp.shutdown()
    (post,) = [r for r in collector.received if r.path == "/v1/traces"]
    assert post.method == "POST"
    assert post.headers["content-type"] == "application/x-protobuf"
    got = collector.spans()
    assert sorted(span.name for _, _, span in got) == [
        "agent.run",
        "gen_ai.llm.call",
        "gen_ai.llm.call",
        "gen_ai.tool.execution",
    ]
    resource, scope, _ = got[0]
    assert {kv.key: kv.value.string_value for kv in resource.attributes}["service.name"] == (
        "otlp-test"
    )
    assert scope.name == "selectools"
    by_name = {span.name: span for _, _, span in got}
    root, tool_span = by_name["agent.run"], by_name["gen_ai.tool.execution"]
    llm_ids = {span.span_id for _, _, span in got if span.name == "gen_ai.llm.call"}
    assert root.parent_span_id == b""
    assert tool_span.parent_span_id in llm_ids
    assert {span.trace_id for _, _, span in got} == {root.trace_id}
    assert root.start_time_unix_nano == int(result.trace.started_at * 1e9)
    assert root.end_time_unix_nano == int(result.trace.ended_at * 1e9)
    root_attrs = attributes(root)
    assert root_attrs["gen_ai.system"] == "selectools"
    assert root_attrs["gen_ai.usage.total_tokens"] == result.usage.total_tokens
    assert root_attrs["gen_ai.usage.cost_usd"] == pytest.approx(result.usage.total_cost_usd)
    tool_attrs = attributes(tool_span)
    assert tool_attrs["gen_ai.tool.name"] == "search"
    assert tool_attrs["gen_ai.tool.success"] is True
