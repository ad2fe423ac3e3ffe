"""Ollama's REST API: ``/api/chat`` (JSON or NDJSON stream) and ``/api/embed``.

Every streamed line is a chat response object; the last has ``"done": true``
with ``prompt_eval_count`` / ``eval_count``. Tool calls arrive whole, with
their arguments as a JSON object. Errors are ``{"error": "..."}``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from ._dialect import Dialect, Event, RenderContext, ndjson
from ._script import FakeReply

__all__ = ["OllamaDialect"]


def _arguments(text: str) -> Any:
    try:
        return json.loads(text) if text else {}
    except ValueError:
        return text


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())


class OllamaDialect(Dialect):
    vendor = "ollama"
    stream_content_type = "application/x-ndjson"

    def _line(self, ctx: RenderContext, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {"model": ctx.model, "created_at": _now(), "message": message, **extra}

    def _calls(self, reply: FakeReply) -> list[dict[str, Any]]:
        return [
            {"function": {"name": call.name, "arguments": _arguments(call.arguments_json)}}
            for call in reply.calls
        ]

    def _done(self, reply: FakeReply, ctx: RenderContext) -> dict[str, Any]:
        prompt, completion = reply.token_usage(ctx.request_size)
        return {
            "done": True,
            "done_reason": "stop",
            "total_duration": 1_000_000,
            "load_duration": 1_000,
            "prompt_eval_count": prompt,
            "eval_count": completion,
        }

    def reply_json(self, reply: FakeReply, ctx: RenderContext) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if reply.calls:
            message["tool_calls"] = self._calls(reply)
        return self._line(ctx, message, **self._done(reply, ctx))

    def stream_events(self, reply: FakeReply, ctx: RenderContext) -> Iterator[Event]:
        message: dict[str, Any]
        for text in reply.text_chunks():
            message = {"role": "assistant", "content": text}
            yield ndjson(self._line(ctx, message, done=False)), True
        if reply.calls:
            message = {"role": "assistant", "content": "", "tool_calls": self._calls(reply)}
            yield ndjson(self._line(ctx, message, done=False)), True
        final = {"role": "assistant", "content": ""}
        yield ndjson(self._line(ctx, final, **self._done(reply, ctx))), False

    def error_json(
        self, status: int, message: str, retry_after: float | None = None
    ) -> dict[str, Any]:
        return {"error": message}

    def error_event(self, status: int, message: str) -> bytes:
        return ndjson(self.error_json(status, message))

    def malformed_event(self) -> bytes:
        return b'{"model": "x", "message": {"content": "unterminated\n'

    def embeddings_json(self, vectors: list[list[float]], ctx: RenderContext) -> dict[str, Any]:
        return {
            "model": ctx.model,
            "embeddings": vectors,
            "total_duration": 1_000_000,
            "prompt_eval_count": max(1, ctx.request_size // 4),
        }
