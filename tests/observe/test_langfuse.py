"""LangfuseObserver through the real Langfuse SDK into a loopback endpoint speaking its OTLP API."""

from __future__ import annotations

import base64
import itertools
import json

import pytest
from opentelemetry import trace as otel_trace

from selectools import Agent, AgentConfig, tool
from selectools.observe import LangfuseObserver
from selectools.testing import ScriptedProvider, reply, tool_call

from .conftest import attributes

OTEL_PATH = "/api/public/otel/v1/traces"
_keys = itertools.count()


@tool()
def search(query: str) -> str:
    """Searches."""
    return f"Results for {query}"


@tool()
def broken(query: str) -> str:
    """Fails."""
    raise RuntimeError("index offline")


@pytest.fixture
def keys():
    """A fresh key pair per test: the SDK keeps one client per public key."""
    n = next(_keys)
    return f"pk-lf-test-{n}", f"sk-lf-test-{n}"


@pytest.fixture
def observer(collector, monkeypatch, keys):
    # the env fallbacks the page documents
    monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", keys[0])
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", keys[1])
    monkeypatch.setenv("LANGFUSE_HOST", collector.url)
    obs = LangfuseObserver()
    yield obs
    obs.shutdown()


def _observations(collector):
    out = {}
    for _, _scope, span in collector.spans(OTEL_PATH):
        out.setdefault(span.name, []).append((span, attributes(span)))
    return out


def test_run_becomes_a_trace_with_a_generation_and_a_tool_span(collector, observer, keys):
    agent = Agent(
        tools=[search],
        provider=ScriptedProvider([reply("looking", tool_call("search", query="python")), "Done."]),
        config=AgentConfig(observers=[observer]),
    )
    result = agent.run("Find articles about Python")
    # flushed at run end: everything has arrived when run() returns
    posts = [r for r in collector.received if r.path == OTEL_PATH]
    assert posts, [r.path for r in collector.received]
    auth = base64.b64encode(f"{keys[0]}:{keys[1]}".encode()).decode()
    assert posts[0].headers["authorization"] == f"Basic {auth}"
    assert posts[0].headers["content-type"] == "application/x-protobuf"

    got = _observations(collector)
    assert sorted(got) == ["agent.run", "llm.call", "search"]
    ((root, root_attrs),) = got["agent.run"]
    generations = got["llm.call"]
    ((tool_span, tool_attrs),) = got["search"]

    # the trace: id = run id, name agent.run, input messages, output and totals
    run_id = result.trace.run_id
    assert root.trace_id.hex() == run_id
    assert root_attrs["langfuse.trace.name"] == "agent.run"
    assert root_attrs["langfuse.observation.type"] == "span"
    assert json.loads(root_attrs["langfuse.observation.input"]) == [
        {"role": "user", "content": "Find articles about Python"}
    ]
    assert root_attrs["langfuse.observation.output"] == "Done."
    assert json.loads(root_attrs["langfuse.observation.metadata.total_tokens"]) == (
        result.usage.total_tokens
    )
    assert json.loads(root_attrs["langfuse.observation.metadata.total_cost_usd"]) == pytest.approx(
        result.usage.total_cost_usd
    )
    assert root.end_time_unix_nano == int(result.trace.ended_at * 1e9)

    # generations: model, input, output, usage and cost, one per LLM call
    assert len(generations) == 2
    for span, attrs in generations:
        assert span.trace_id == root.trace_id
        assert span.parent_span_id == root.span_id
        assert attrs["langfuse.observation.type"] == "generation"
        assert attrs["langfuse.observation.model.name"] == result.trace.steps[0].model
        usage = json.loads(attrs["langfuse.observation.usage_details"])
        assert set(usage) == {"input", "output", "total"}
        assert usage["total"] == usage["input"] + usage["output"] > 0
        cost = json.loads(attrs["langfuse.observation.cost_details"])
        assert cost["total"] >= 0
    first, second = sorted(generations, key=lambda g: g[0].start_time_unix_nano)
    first_input = json.loads(first[1]["langfuse.observation.input"])
    assert first_input[0]["role"] == "system"
    assert first_input[-1] == {"role": "user", "content": "Find articles about Python"}
    first_output = json.loads(first[1]["langfuse.observation.output"])
    assert first_output["content"] == "looking"
    assert first_output["tool_calls"][0]["tool_name"] == "search"
    assert json.loads(second[1]["langfuse.observation.output"])["content"] == "Done."
    steps = [s for s in result.trace.steps if s.type.value == "llm_call"]
    total_in = sum(
        json.loads(a["langfuse.observation.usage_details"])["input"] for _, a in generations
    )
    assert total_in == sum(s.prompt_tokens for s in steps)

    # the tool: a span named after it, input args, output, duration
    assert tool_span.parent_span_id == root.span_id
    assert tool_attrs["langfuse.observation.type"] == "span"
    assert json.loads(tool_attrs["langfuse.observation.input"]) == {"query": "python"}
    assert tool_attrs["langfuse.observation.output"] == "Results for python"
    assert json.loads(tool_attrs["langfuse.observation.metadata.duration_ms"]) >= 0
    assert first[0].end_time_unix_nano <= tool_span.start_time_unix_nano


def test_failed_tool_span_is_marked_as_an_error(collector, observer):
    agent = Agent(
        tools=[broken],
        provider=ScriptedProvider([tool_call("broken", query="x"), "Sorry."]),
        config=AgentConfig(observers=[observer]),
    )
    agent.run("go")
    ((_span, attrs),) = _observations(collector)["broken"]
    assert attrs["langfuse.observation.level"] == "ERROR"
    assert "index offline" in attrs["langfuse.observation.status_message"]


def test_the_observer_leaves_the_global_tracer_provider_alone(collector):
    before = otel_trace.get_tracer_provider()
    obs = LangfuseObserver(public_key="pk-lf-global", secret_key="sk-lf-global", host=collector.url)
    try:
        assert otel_trace.get_tracer_provider() is before
    finally:
        obs.shutdown()


def test_explicit_keys_and_host(collector):
    obs = LangfuseObserver(
        public_key="pk-lf-explicit", secret_key="sk-lf-explicit", host=collector.url
    )
    try:
        agent = Agent(
            tools=[], provider=ScriptedProvider(["hi"]), config=AgentConfig(observers=[obs])
        )
        agent.run("hello")
        posts = [r for r in collector.received if r.path == OTEL_PATH]
        auth = base64.b64encode(b"pk-lf-explicit:sk-lf-explicit").decode()
        assert posts and posts[0].headers["authorization"] == f"Basic {auth}"
        assert sorted(_observations(collector)) == ["agent.run", "llm.call"]
    finally:
        obs.shutdown()
