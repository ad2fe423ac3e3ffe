"""``AgentConfig(verbose=True)``: a running commentary printed from the event stream."""

from __future__ import annotations

from typing import Any

from .._text import one_line
from ..observer import AgentObserver

__all__ = ["VerboseObserver"]


class VerboseObserver(AgentObserver):
    """Prints iterations, model calls with tokens and cost, tool calls and errors."""

    def __init__(self, name: str = "agent") -> None:
        self.prefix = f"[{name}]"

    def on_iteration_start(self, run_id: str, iteration: int, messages: Any) -> None:
        print(f"{self.prefix} iteration {iteration}")

    def on_llm_end(self, run_id: str, response: Any, usage: Any) -> None:
        print(
            f"{self.prefix} {usage.model or 'model'}: {usage.prompt_tokens} prompt + "
            f"{usage.completion_tokens} completion tokens (${usage.cost_usd:.6f})"
        )

    def on_cache_hit(self, run_id: str, model: str, response: Any) -> None:
        print(f"{self.prefix} cache hit -- skipping provider call")

    def on_llm_retry(
        self, run_id: str, attempt: int, max_retries: int, error: Any, backoff_seconds: float
    ) -> None:
        print(
            f"{self.prefix} provider error (attempt {attempt}/{max_retries + 1}): {one_line(error, 80)}; "
            f"retrying in {backoff_seconds:g}s"
        )

    def on_tool_start(self, run_id: str, call_id: str, tool_name: str, tool_args: Any) -> None:
        print(f"{self.prefix} tool {tool_name}({one_line(tool_args, 80)})")

    def on_tool_end(
        self, run_id: str, call_id: str, tool_name: str, result: str, duration_ms: float
    ) -> None:
        print(f"{self.prefix} tool {tool_name} -> {one_line(result, 80)} ({duration_ms:.1f}ms)")

    def on_tool_error(
        self,
        run_id: str,
        call_id: str,
        tool_name: str,
        error: Any,
        tool_args: Any,
        duration_ms: float,
    ) -> None:
        print(f"{self.prefix} tool {tool_name} failed: {one_line(error, 80)}")

    def on_structured_validate(self, run_id: str, success: bool, attempt: int, error: Any) -> None:
        if not success:
            print(
                f"{self.prefix} answer {attempt} did not match response_format: {one_line(error, 80)}"
            )

    def on_policy_decision(
        self, run_id: str, tool_name: str, decision: Any, reason: str, tool_args: Any
    ) -> None:
        print(f"{self.prefix} policy: {tool_name} -> {decision} ({one_line(reason, 80)})")

    def on_approval_request(self, run_id: str, request: Any) -> None:
        print(f"{self.prefix} waiting for approval: {request.preview}")

    def on_budget_exceeded(
        self, run_id: str, reason: str, tokens_used: int, cost_used: float
    ) -> None:
        print(f"{self.prefix} {reason}; stopping")

    def on_cancelled(self, run_id: str, reason: str) -> None:
        print(f"{self.prefix} cancelled: {reason}")

    def on_memory_summarize(self, run_id: str, summary: str, messages_summarized: int) -> None:
        print(f"{self.prefix} summarized {messages_summarized} trimmed message(s)")

    def on_session_save(self, run_id: str, session_id: str, message_count: int) -> None:
        print(f"{self.prefix} saved session {session_id!r} ({message_count} messages)")

    def on_entity_extraction(
        self, run_id: str, entities_extracted: int, entities_total: int, entities: Any
    ) -> None:
        names = ", ".join(e.name for e in entities)
        print(
            f"{self.prefix} entities: {entities_extracted} extracted ({names}), {entities_total} tracked"
        )

    def on_kg_extraction(
        self, run_id: str, triples_extracted: int, triples_total: int, triples: Any
    ) -> None:
        print(
            f"{self.prefix} knowledge graph: {triples_extracted} triple(s) extracted, {triples_total} stored"
        )

    def on_run_end(self, run_id: str, result: Any) -> None:
        usage = result.usage
        tokens = usage.total_tokens if usage is not None else 0
        cost = usage.total_cost_usd if usage is not None else 0.0
        print(f"{self.prefix} done ({result.stop_reason}): {tokens} tokens, ${cost:.6f}")
