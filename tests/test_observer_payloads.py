"""Observer payloads as the AGENT, QUICKSTART and LANGFUSE pages use them.

A model reply reaches ``on_llm_end`` / ``on_iteration_end`` / ``on_cache_hit``
as text (the pages' observers and LoggingObserver's sample output treat it so);
the built-in observers answer their named callbacks when a wrapping observer
calls them directly; the docs' event table (docs/observers.md) is the generated one.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from scripts import gen_events
from selectools import (
    Agent,
    AgentConfig,
    AgentObserver,
    Event,
    LoggingObserver,
    SimpleStepObserver,
    tool,
)
from selectools.testing import ScriptedProvider, tool_call
from selectools.types import Message, Role


@tool()
def lookup(item: str) -> str:
    """Look up an item."""
    return f"{item}: in stock"


def _agent(*observers: Any) -> Agent:
    provider = ScriptedProvider([tool_call("lookup", item="pen"), "Pens are in stock."])
    return Agent(tools=[lookup], provider=provider, config=AgentConfig(observers=list(observers)))


class Forwarding(AgentObserver):
    """A wrapping observer: forwards a few named callbacks to the observer it wraps."""

    def __init__(self, inner: AgentObserver) -> None:
        self.inner = inner

    def on_run_start(self, run_id: str, messages: Any, system_prompt: str) -> None:
        self.inner.on_run_start(run_id, messages, system_prompt)

    def on_llm_end(self, run_id: str, response: Any, usage: Any) -> None:
        self.inner.on_llm_end(run_id, response, usage)

    def on_tool_end(self, run_id: str, call_id: str, name: str, result: str, ms: float) -> None:
        self.inner.on_tool_end(run_id, call_id, name, result, ms)


def _logged(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == "fidelity"]


def test_logging_observer_called_directly_logs_the_event(caplog) -> None:
    caplog.set_level(logging.INFO, logger="fidelity")
    observer = LoggingObserver("fidelity")
    observer.on_run_start("run-1", [Message(role=Role.USER, content="hi")], "be brief")
    observer.on_tool_end("run-1", "call-1", "lookup", "pen: in stock", 12.5)
    lines = _logged(caplog)
    assert [line["event"] for line in lines] == ["run_start", "tool_end"]
    assert lines[0]["run_id"] == "run-1"
    assert lines[0]["system_prompt"] == "be brief"
    assert (lines[1]["tool"], lines[1]["duration_ms"]) == ("lookup", 12.5)


def test_simple_step_observer_called_directly_reaches_its_callback() -> None:
    seen: list[Event] = []
    SimpleStepObserver(seen.append).on_run_start("run-1", [], "sys")
    assert [(e.name, e.run_id, e["system_prompt"]) for e in seen] == [
        ("on_run_start", "run-1", "sys")
    ]


def test_a_forwarding_observer_drives_the_built_in_ones_once_per_event(caplog) -> None:
    caplog.set_level(logging.INFO, logger="fidelity")
    _agent(Forwarding(LoggingObserver("fidelity"))).run("pens?")
    events = [line["event"] for line in _logged(caplog)]
    assert events == ["run_start", "llm_end", "tool_end", "llm_end"]
    # attached directly, every event is logged once (not once per route)
    caplog.clear()
    _agent(LoggingObserver("fidelity")).run("pens?")
    direct = [line["event"] for line in _logged(caplog)]
    assert direct.count("run_start") == 1
    assert direct.count("llm_end") == 2
    assert direct.count("tool_end") == 1


def test_an_observer_treating_the_reply_as_text_sees_every_call(caplog) -> None:
    class Replies(AgentObserver):
        def __init__(self) -> None:
            self.texts: list[str] = []
            self.calls: list[list[str]] = []

        def on_llm_end(self, run_id: str, response: str, usage: Any) -> None:
            self.texts.append(response.upper()[:40])
            message = response.message  # type: ignore[attr-defined]
            self.calls.append([c.tool_name for c in message.tool_calls or ()])

        def on_iteration_end(self, run_id: str, iteration: int, response: str) -> None:
            self.texts.append(f"iteration {iteration}: {len(response)} chars")

    caplog.set_level(logging.WARNING, logger="selectools.observer")
    replies = Replies()
    result = _agent(replies).run("pens?")
    assert result.content == "Pens are in stock."
    assert replies.texts == [
        "",
        "iteration 1: 0 chars",
        "PENS ARE IN STOCK.",
        "iteration 2: 18 chars",
    ]
    assert replies.calls == [["lookup"], []]
    assert [r for r in caplog.records if r.name == "selectools.observer"] == []


def test_the_docs_event_table_is_the_generated_one() -> None:
    page = gen_events.EVENTS_PAGE.read_text()
    assert gen_events.TABLE_START in page
    assert gen_events.with_table(page) == page
    table = gen_events.render_table()
    assert "| `on_llm_end` | llm | `response: str (ReplyText)`, `usage: UsageStats` |" in table
    assert table.count("\n| `on_") == len(gen_events.SPECS)
