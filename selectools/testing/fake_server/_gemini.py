"""Gemini API (``v1beta``): ``generateContent``, ``streamGenerateContent`` and embeddings.

Responses are ``GenerateContentResponse`` objects; a stream (``?alt=sse``) is
a series of them, the last one carrying ``finishReason`` and the final
``usageMetadata``. Function calls arrive whole, with a ``thoughtSignature`` the
client must send back on its next turn (as Gemini 3 models require).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ._dialect import Dialect, Event, RenderContext, next_id, sse
from ._script import FakeReply

__all__ = ["GeminiDialect"]

_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def _args(arguments: str) -> Any:
    try:
        return json.loads(arguments) if arguments else {}
    except ValueError:
        return arguments


class GeminiDialect(Dialect):
    vendor = "gemini"

    def _call_parts(self, reply: FakeReply) -> list[dict[str, Any]]:
        parts = []
        for call in reply.calls:
            function: dict[str, Any] = {"name": call.name, "args": _args(call.arguments_json)}
            if call.id:
                function["id"] = call.id
            parts.append({"functionCall": function, "thoughtSignature": f"sig-{next_id()}"})
        return parts

    def _usage(self, reply: FakeReply, ctx: RenderContext) -> dict[str, int]:
        prompt, completion = reply.token_usage(ctx.request_size)
        usage = {
            "promptTokenCount": prompt,  # includes the cached tokens
            "candidatesTokenCount": completion,
            "totalTokenCount": prompt + completion,
        }
        if reply.cache_read_tokens:
            usage["cachedContentTokenCount"] = reply.cache_read_tokens
        return usage

    def _response(
        self, parts: list[dict[str, Any]], ctx: RenderContext, **extra: Any
    ) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if "finishReason" in extra:
            candidate["finishReason"] = extra.pop("finishReason")
        return {
            "candidates": [candidate],
            "modelVersion": ctx.model,
            "responseId": f"fake-{next_id()}",
            **extra,
        }

    def reply_json(self, reply: FakeReply, ctx: RenderContext) -> dict[str, Any]:
        parts: list[dict[str, Any]] = [{"text": reply.text}] if reply.text else []
        parts.extend(self._call_parts(reply))
        return self._response(
            parts, ctx, finishReason="STOP", usageMetadata=self._usage(reply, ctx)
        )

    def stream_events(self, reply: FakeReply, ctx: RenderContext) -> Iterator[Event]:
        for text in reply.text_chunks():
            yield sse(self._response([{"text": text}], ctx)), True
        call_parts = self._call_parts(reply)
        if call_parts:
            yield sse(self._response(call_parts, ctx)), True
        final = self._response(
            [{"text": ""}], ctx, finishReason="STOP", usageMetadata=self._usage(reply, ctx)
        )
        yield sse(final), False

    def error_json(
        self, status: int, message: str, retry_after: float | None = None
    ) -> dict[str, Any]:
        error: dict[str, Any] = {
            "code": status,
            "message": message,
            "status": _STATUSES.get(status, "INTERNAL" if status >= 500 else "FAILED_PRECONDITION"),
        }
        if retry_after is not None:
            error["details"] = [
                {
                    "@type": "type.googleapis.com/google.rpc.RetryInfo",
                    "retryDelay": f"{retry_after:g}s",
                }
            ]
        return {"error": error}

    def malformed_event(self) -> bytes:
        return b'data: {"candidates": [{"content": {"parts": [{"text": "unterminated\r\n\r\n'

    def embeddings_json(self, vectors: list[list[float]], ctx: RenderContext) -> dict[str, Any]:
        if isinstance(ctx.body, dict) and "requests" in ctx.body:
            return {"embeddings": [{"values": vector} for vector in vectors]}
        return {"embedding": {"values": vectors[0] if vectors else []}}
