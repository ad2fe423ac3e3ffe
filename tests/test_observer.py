import asyncio
import json
import logging
import warnings

import pytest

from selectools import AgentObserver, AsyncAgentObserver, Event, LoggingObserver, SimpleStepObserver
from selectools.observer import EVENTS, EventEmitter


def test_every_event_exists_on_both_bases_with_its_signature():
    import inspect

    for name, (scope, params) in EVENTS.items():
        sync_sig = list(inspect.signature(getattr(AgentObserver, name)).parameters)
        async_sig = list(inspect.signature(getattr(AsyncAgentObserver, "a_" + name)).parameters)
        first = "batch_id" if scope == "batch" else "run_id"
        assert sync_sig == ["self", first, *params]
        assert async_sig == sync_sig
        assert asyncio.iscoroutinefunction(getattr(AsyncAgentObserver, "a_" + name))


def test_documented_events_are_present_and_unbuilt_features_have_none():
    documented = {
        "on_run_start",
        "on_run_end",
        "on_error",
        "on_llm_start",
        "on_llm_end",
        "on_cache_hit",
        "on_usage",
        "on_llm_retry",
        "on_tool_start",
        "on_tool_end",
        "on_tool_error",
        "on_tool_chunk",
        "on_iteration_start",
        "on_iteration_end",
        "on_batch_start",
        "on_batch_end",
        "on_policy_decision",
        "on_structured_validate",
        "on_provider_fallback",
        "on_memory_trim",
        "on_session_load",
        "on_session_save",
        "on_memory_summarize",
        "on_budget_exceeded",
        "on_guardrail_triggered",
        "on_coherence_blocked",
        "on_entity_extraction",
        "on_kg_extraction",
        "on_graph_start",
        "on_graph_end",
        "on_graph_error",
        "on_node_start",
        "on_node_end",
        "on_graph_routing",
        "on_graph_interrupt",
        "on_graph_resume",
        "on_parallel_start",
        "on_parallel_end",
        "on_stall_detected",
        "on_loop_detected",
        "on_supervisor_replan",
    }
    assert documented <= set(EVENTS)
    assert EVENTS["on_tool_end"][1] == ("call_id", "tool_name", "result", "duration_ms")


def test_misspelled_callback_warns():
    with pytest.warns(UserWarning, match="Did you mean 'on_tool_end'"):

        class Typo(AgentObserver):
            def on_tool_ends(self, run_id, call_id, tool_name, result, duration_ms):
                pass


def test_emitter_calls_overrides_and_generic_handler_and_survives_errors(caplog):
    calls = []

    class Specific(AgentObserver):
        def on_tool_start(self, run_id, call_id, tool_name, tool_args):
            calls.append(("specific", run_id, call_id, tool_name, tool_args))

    class Broken(AgentObserver):
        def on_tool_start(self, run_id, call_id, tool_name, tool_args):
            raise RuntimeError("observer bug")

    events = []
    emitter = EventEmitter("run-1", [Broken(), Specific(), SimpleStepObserver(events.append)])
    with caplog.at_level(logging.WARNING, logger="selectools.observer"):
        emitter.emit("on_tool_start", "c1", "search", {"q": "x"}, iteration=2)
    assert calls == [("specific", "run-1", "c1", "search", {"q": "x"})]
    (event,) = events
    assert isinstance(event, Event)
    assert (event.name, event.kind, event.scope, event.call_id) == (
        "on_tool_start",
        "tool_start",
        "tool",
        "c1",
    )
    assert event.data == {
        "call_id": "c1",
        "tool_name": "search",
        "tool_args": {"q": "x"},
        "iteration": 2,
    }
    assert event["iteration"] == 2
    assert "observer bug" in caplog.text or "Broken.on_tool_start raised" in caplog.text


def test_emitter_without_observers_is_inactive():
    emitter = EventEmitter("r", [])
    assert not emitter.active
    emitter.emit("on_run_start", [], "")


def test_async_observers_only_fire_in_async_mode_and_respect_blocking():
    seen = []

    class Blocking(AsyncAgentObserver):
        blocking = True

        async def a_on_tool_end(self, run_id, call_id, tool_name, result, duration_ms):
            await asyncio.sleep(0)
            seen.append(("blocking", tool_name))

    class FireAndForget(AsyncAgentObserver):
        async def a_on_tool_end(self, run_id, call_id, tool_name, result, duration_ms):
            seen.append(("background", tool_name))

    sync_emitter = EventEmitter("r", [Blocking(), FireAndForget()])
    sync_emitter.emit("on_tool_end", "c", "t", "ok", 1.0)
    assert sync_emitter.pending == []

    async def scenario():
        emitter = EventEmitter("r", [Blocking(), FireAndForget()], async_mode=True)
        emitter.emit("on_tool_end", "c", "t", "ok", 1.0)
        await emitter.flush()
        assert ("blocking", "t") in seen
        await asyncio.sleep(0.01)

    asyncio.run(scenario())
    assert ("background", "t") in seen


def test_logging_observer_writes_json_lines(caplog):
    emitter = EventEmitter("run-9", [LoggingObserver()])
    with caplog.at_level(logging.INFO, logger="selectools"):
        emitter.emit("on_run_start", ["m1", "m2"], "system", model="gpt-4o")
        emitter.emit("on_tool_end", "c1", "search", "result text", 12.5)
    first, second = (json.loads(r.getMessage()) for r in caplog.records)
    assert first["event"] == "run_start" and first["run_id"] == "run-9"
    assert first["messages"] == 2 and first["model"] == "gpt-4o" and "timestamp" in first
    assert (
        second["event"] == "tool_end"
        and second["tool"] == "search"
        and second["duration_ms"] == 12.5
    )


def test_observer_subclass_with_only_known_methods_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")

        class Fine(AgentObserver):
            def on_run_end(self, run_id, result):
                pass

            def on_event(self, event):
                pass


def test_declared_events_filter_on_event_and_unknown_names_fail_at_class_definition():
    class Chunks(AgentObserver):
        events = frozenset({"on_tool_end"})

        def __init__(self):
            self.seen = []

        def on_event(self, event):
            self.seen.append(event.name)

    observer = Chunks()
    emitter = EventEmitter("r", [observer])
    emitter.emit("on_stream_chunk", "token")
    emitter.emit("on_tool_end", "c", "t", "ok", 1.0)
    assert observer.seen == ["on_tool_end"]

    with pytest.raises(ValueError, match=r"unknown events.*on_tool_ned"):

        class Typo(AgentObserver):
            events = frozenset({"on_tool_ned"})

            def on_event(self, event):
                pass
