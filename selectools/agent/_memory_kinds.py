"""Entity, knowledge-graph and knowledge memory in the loop.

Before the first model call, :func:`inject_memory` appends what the configured
memories know to the run's system prompt, in the documented order
(``[Known Entities]``, ``[Known Relationships]`` for the user's keywords,
``[Long-term Memory]`` + ``[Recent Memory]``); reading a store is a
:class:`CallBlocking` effect so ``arun`` never blocks its event loop.

After the run, :func:`extract_memory` sends the user's messages to each
extractor's own provider (a :class:`CallLLM` effect, so sync, async and
streaming runs share it), merges what comes back and records an
``entity_extraction`` / ``kg_extraction`` step, which emits
``on_entity_extraction`` / ``on_kg_extraction``. A failed call or a malformed
reply becomes an ``error`` step (phase ``entity_extraction`` or
``kg_extraction``, the reply in its context) and the run's answer stands.

Runs without these features pay one attribute check (``agent._memory_kinds``).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .._side_call import ask_in_run, side_model
from ..memory._store import ExtractionError
from ..trace import StepType, now
from ..types import Role
from ._effects import CallBlocking

if TYPE_CHECKING:
    from ._context import RunContext

__all__ = ["extract_memory", "inject_memory", "user_text"]


def user_text(ctx: RunContext) -> str:
    """The text of the run's user messages (what the memories learn from)."""
    return "\n".join(m.text for m in ctx.input_messages if m.role is Role.USER and m.text.strip())


def _contexts(ctx: RunContext, text: str) -> list[str]:
    config = ctx.config
    parts: list[str] = []
    if config.entity_memory is not None:
        parts.append(config.entity_memory.build_context())
    if config.knowledge_graph is not None:
        from ..memory.knowledge_graph import keywords_of

        keywords = keywords_of(text)
        parts.append(config.knowledge_graph.build_context(keywords or None))
    if config.knowledge_memory is not None:
        parts.append(config.knowledge_memory.build_context())
    return [p for p in parts if p]


def inject_memory(ctx: RunContext) -> Generator[Any, Any, None]:
    """Append the memories' context to ``ctx.system_prompt`` (a failed read is an error step)."""
    started = now()
    try:
        parts = yield CallBlocking(lambda: _contexts(ctx, user_text(ctx)))
    except Exception as exc:
        ctx.fail("memory_context", exc, f"reading memory for the prompt failed: {exc}", started)
        return
    if parts:
        ctx.system_prompt = "\n\n".join([ctx.system_prompt, *parts])


def extract_memory(ctx: RunContext) -> Generator[Any, Any, None]:
    """Extract entities and triples from the run's user messages, when a provider is set."""
    text = user_text(ctx)
    if not text:
        return
    config = ctx.config
    entities = config.entity_memory
    if entities is not None and entities.provider is not None:
        started = now()
        found = yield from _extract(ctx, entities, "entity_extraction", text, started)
        if found is not None:
            entities.update(found)
            ctx.record(
                StepType.ENTITY_EXTRACTION,
                started,
                f"extracted {len(found)} entit{'y' if len(found) == 1 else 'ies'}",
                data={
                    "entities_extracted": len(found),
                    "entities_total": len(entities),
                    "entities": found,
                },
            )
    graph = config.knowledge_graph
    if graph is not None and graph.provider is not None:
        started = now()
        triples = yield from _extract(ctx, graph, "kg_extraction", text, started)
        if triples is not None:
            try:
                total = yield CallBlocking(lambda: _store(graph, triples))
            except Exception as exc:
                ctx.fail("kg_extraction", exc, f"storing {len(triples)} triple(s) failed: {exc}")
                return
            ctx.record(
                StepType.KG_EXTRACTION,
                started,
                f"extracted {len(triples)} triple(s)",
                data={
                    "triples_extracted": len(triples),
                    "triples_total": total,
                    "triples": triples,
                },
            )


def _store(graph: Any, triples: list[Any]) -> int:
    graph.update(triples)
    return int(graph.store.count())


def _extract(
    ctx: RunContext, memory: Any, phase: str, text: str, started: float
) -> Generator[Any, Any, Any]:
    """One extraction call; the parsed items, or ``None`` after recording an error step."""
    request = memory.extraction_request(text)
    if not request.model:
        request = replace(request, model=side_model(memory.provider, None, ctx.provider, ctx.model))
    if request.timeout is None:  # the memory built it: it gets this run's limits as any call does
        request = replace(
            request,
            timeout=ctx.timeout_for(ctx.config.request_timeout),
            timeout_is_default=True,
            deadline=ctx.deadline,
        )
    what = phase.replace("_", " ")
    try:
        message, _usage = yield from ask_in_run(ctx, memory.provider, request)
    except Exception as exc:
        ctx.fail(phase, exc, f"{what} call failed: {exc}", started)
        return None
    try:
        return memory.parse_extraction(message.text)
    except ExtractionError as exc:
        ctx.fail(phase, exc, f"malformed {what} reply: {exc.problem}", started, reply=exc.reply)
        return None


def session_payload(config: Any) -> dict[str, Any]:
    """What a session saves of these memories: entities, and triples kept only in memory.

    A SQLite triple store and the knowledge memory persist themselves.
    """
    from ..memory.knowledge_graph import InMemoryTripleStore

    payload: dict[str, Any] = {}
    if config.entity_memory is not None:
        payload["entity_memory"] = config.entity_memory.to_dict()
    graph = config.knowledge_graph
    if graph is not None and isinstance(graph.store, InMemoryTripleStore):
        payload["knowledge_graph"] = graph.to_dict()
    return payload


def restore_session(config: Any, data: dict[str, Any]) -> None:
    """Put a loaded session's entities and triples back into the configured memories."""
    from ..memory._store import check_version
    from ..memory.knowledge_graph import Triple

    saved = data.get("entity_memory")
    if config.entity_memory is not None and isinstance(saved, dict):
        config.entity_memory.load_dict(saved)
    graph = config.knowledge_graph
    saved = data.get("knowledge_graph")
    if graph is not None and isinstance(saved, dict):
        check_version(saved.get("format"), "the session's knowledge graph")
        graph.store.add([Triple.from_dict(t) for t in saved.get("triples", [])])
        graph.turns = max(graph.turns, int(saved.get("turns", 0)))
