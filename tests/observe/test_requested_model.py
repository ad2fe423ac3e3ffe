"""The requested model vs the model that answered (OTEL page's attribute table, GenAI conventions).

A provider may answer with a dated snapshot of the model the agent asked for
(``gpt-4o-mini`` -> ``gpt-4o-mini-2024-07-18``). ``gen_ai.request.model`` is
what the agent asked for (``AgentConfig.model``), ``gen_ai.response.model`` is
what answered; Langfuse's generation model is the requested one too.
"""

from __future__ import annotations

import json

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from selectools import Agent, AgentConfig, UsageStats, tool
from selectools.observe import LangfuseObserver, OTelObserver
from selectools.testing import ScriptedProvider, reply, tool_call

from .conftest import attributes

ASKED = "gpt-4o-mini"
ANSWERED = "gpt-4o-mini-2024-07-18"


@tool()
def search(query: str) -> str:
    """Searches."""
    return f"Results for {query}"


def _usage() -> UsageStats:
    return UsageStats(
        prompt_tokens=10, completion_tokens=5, total_tokens=15, model=ANSWERED, provider="openai"
    )


def _agent(observer: object) -> Agent:
    script = [
        reply("", tool_call("search", query="python"), usage=_usage()),
        reply("Done.", usage=_usage()),
    ]
    return Agent(
        tools=[search],
        provider=ScriptedProvider(script),
        config=AgentConfig(model=ASKED, observers=[observer]),
    )


def test_otel_llm_spans_carry_the_requested_and_the_answering_model() -> None:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    result = _agent(OTelObserver(tracer_provider=tracer_provider)).run("Find Python articles")
    llm = [s for s in exporter.get_finished_spans() if s.name == "gen_ai.llm.call"]
    assert len(llm) == 2
    for span in llm:
        assert span.attributes["gen_ai.request.model"] == ASKED
        assert span.attributes["gen_ai.response.model"] == ANSWERED
    # the trace's own export follows the same rule; its steps keep the model that answered
    dicts = [s for s in result.trace.to_otel_spans() if s["name"] == "gen_ai.llm.call"]
    assert [(s["attributes"]["gen_ai.request.model"]) for s in dicts] == [ASKED, ASKED]
    assert [(s["attributes"]["gen_ai.response.model"]) for s in dicts] == [ANSWERED, ANSWERED]
    assert {step.model for step in result.trace.filter("llm_call")} == {ANSWERED}


def test_when_the_answering_model_is_the_requested_one_both_attributes_agree() -> None:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    agent = Agent(
        provider=ScriptedProvider(["hi"]),
        config=AgentConfig(model=ASKED, observers=[OTelObserver(tracer_provider=tracer_provider)]),
    )
    agent.run("hello")
    (span,) = [s for s in exporter.get_finished_spans() if s.name == "gen_ai.llm.call"]
    assert span.attributes["gen_ai.request.model"] == ASKED
    assert span.attributes["gen_ai.response.model"] == ASKED


def test_langfuse_generation_model_is_the_requested_one(collector, monkeypatch) -> None:
    monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", "pk-lf-requested-model")
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", "sk-lf-requested-model")
    monkeypatch.setenv("LANGFUSE_HOST", collector.url)
    observer = LangfuseObserver()
    try:
        _agent(observer).run("Find Python articles")
    finally:
        observer.shutdown()
    generations = [
        attributes(span)
        for _, _scope, span in collector.spans("/api/public/otel/v1/traces")
        if span.name == "llm.call"
    ]
    assert len(generations) == 2
    for attrs in generations:
        assert attrs["langfuse.observation.model.name"] == ASKED
        assert json.loads(attrs["langfuse.observation.metadata.response_model"]) == ANSWERED
