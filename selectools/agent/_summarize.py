"""Summarize-on-trim: fold the messages memory dropped during a run into ``memory.summary``.

At the end of a run that trimmed messages (``AgentConfig(summarize_on_trim=True)``),
one model call (``summarize_provider``/``summarize_model``, defaulting to the
agent's) turns the previous summary plus the dropped messages into a short
summary. Later runs put it in the system prompt as ``[Conversation Summary]``.
A failed summary call is reported and leaves the previous summary in place.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from .._side_call import ask_in_run, side_model, usage_fields
from ..trace import StepType, now
from ..types import Message, Role

if TYPE_CHECKING:
    from ._context import RunContext

__all__ = ["SUMMARY_HEADER", "summarize_trimmed", "with_summary"]

SUMMARY_HEADER = "[Conversation Summary]"

_INSTRUCTIONS = (
    "You maintain the running summary of a conversation whose oldest messages are being "
    "dropped. Write 2-3 sentences that keep the names, facts, preferences, decisions and open "
    "questions the assistant will need later. Reply with the summary only."
)

_PER_MESSAGE_LIMIT = 2000


def with_summary(system_prompt: str, summary: str) -> str:
    """The system prompt with the conversation summary section appended."""
    return f"{system_prompt}\n\n{SUMMARY_HEADER}\n{summary}"


def _transcript(previous: str | None, messages: list[Message]) -> str:
    lines = []
    if previous:
        lines += ["Summary so far:", previous, ""]
    lines.append("Messages being dropped:")
    for message in messages:
        text = message.text
        if message.tool_calls:
            calls = ", ".join(f"{c.tool_name}({c.parameters})" for c in message.tool_calls)
            text = f"{text} [called {calls}]".strip()
        if len(text) > _PER_MESSAGE_LIMIT:
            text = text[: _PER_MESSAGE_LIMIT - 1] + "…"
        lines.append(f"{message.role.value}: {text}")
    return "\n".join(lines)


def summarize_trimmed(ctx: RunContext) -> Generator[Any, Any, None]:
    trimmed, ctx.trimmed = ctx.trimmed or [], None
    memory = ctx.agent.memory
    if memory is None:  # removed during the run: nothing to summarize into
        return
    config = ctx.config
    provider = config.summarize_provider or ctx.provider
    model = side_model(provider, config.summarize_model, ctx.provider, ctx.model)
    previous = memory.summary
    request = ctx.model_request(
        model,
        _INSTRUCTIONS,
        [Message(role=Role.USER, content=_transcript(previous, trimmed))],
        config.summarize_max_tokens,
    )
    started = now()
    try:
        message, usage = yield from ask_in_run(ctx, provider, request)
    except Exception as exc:
        ctx.fail(
            "memory_summarize",
            exc,
            f"summarizing {len(trimmed)} trimmed message(s) failed: {exc}",
            started,
        )
        return
    summary = message.text.strip()
    if not summary:
        return
    memory.summary = summary
    ctx.record(
        StepType.MEMORY_SUMMARIZE,
        started,
        f"summarized {len(trimmed)} trimmed message(s)",
        {"summary": summary},
        result=summary,
        data={"messages_summarized": len(trimmed)},
        **usage_fields(usage, model),
    )
