"""OpenAI Chat Completions (also served on Azure's deployment paths) and Embeddings.

Streams are ``chat.completion.chunk`` events ending with ``data: [DONE]``; tool
calls stream as an opening delta (id, name) followed by argument fragments;
usage arrives in a final chunk when ``stream_options.include_usage`` is set.
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Iterator
from typing import Any

from ._dialect import Dialect, Event, RenderContext, next_id, split_arguments, sse
from ._script import FakeReply

__all__ = ["OpenAIDialect"]

_ERROR_TYPES = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


class OpenAIDialect(Dialect):
    vendor = "openai"

    def _calls(self, reply: FakeReply) -> list[dict[str, Any]]:
        return [
            {
                "id": call.id or f"call_fake_{next_id()}",
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_json},
            }
            for call in reply.calls
        ]

    def _usage(self, reply: FakeReply, ctx: RenderContext) -> dict[str, Any]:
        prompt, completion = reply.token_usage(ctx.request_size)
        # prompt_tokens include the cached ones; OpenAI bills no cache writes
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": reply.cache_read_tokens},
        }

    def reply_json(self, reply: FakeReply, ctx: RenderContext) -> dict[str, Any]:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": reply.text or None,
            "refusal": None,
        }
        if reply.calls:
            message["tool_calls"] = self._calls(reply)
        return {
            "id": f"chatcmpl-fake-{next_id()}",
            "object": "chat.completion",
            "created": ctx.created,
            "model": ctx.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": "tool_calls" if reply.calls else "stop",
                }
            ],
            "usage": self._usage(reply, ctx),
        }

    def stream_events(self, reply: FakeReply, ctx: RenderContext) -> Iterator[Event]:
        chunk_id = f"chatcmpl-fake-{next_id()}"

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            return sse(
                {
                    "id": chunk_id,
                    "object": "chat.completion.chunk",
                    "created": ctx.created,
                    "model": ctx.model,
                    "choices": [
                        {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
                    ],
                }
            )

        yield chunk({"role": "assistant", "content": ""}), False
        for text in reply.text_chunks():
            yield chunk({"content": text}), True
        for index, call in enumerate(self._calls(reply)):
            opening = {
                "index": index,
                "id": call["id"],
                "type": "function",
                "function": {"name": call["function"]["name"], "arguments": ""},
            }
            yield chunk({"tool_calls": [opening]}), True
            for piece in split_arguments(call["function"]["arguments"]):
                yield (
                    chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                    True,
                )
        yield chunk({}, "tool_calls" if reply.calls else "stop"), False
        options = ctx.body.get("stream_options") if isinstance(ctx.body, dict) else None
        if isinstance(options, dict) and options.get("include_usage"):
            usage = {
                "id": chunk_id,
                "object": "chat.completion.chunk",
                "created": ctx.created,
                "model": ctx.model,
                "choices": [],
                "usage": self._usage(reply, ctx),
            }
            yield sse(usage), False
        yield b"data: [DONE]\n\n", False

    def error_json(
        self, status: int, message: str, retry_after: float | None = None
    ) -> dict[str, Any]:
        kind, code = _ERROR_TYPES.get(status, ("server_error", None))
        return {"error": {"message": message, "type": kind, "param": None, "code": code}}

    def embeddings_json(self, vectors: list[list[float]], ctx: RenderContext) -> dict[str, Any]:
        as_base64 = isinstance(ctx.body, dict) and ctx.body.get("encoding_format") == "base64"
        data = []
        for index, vector in enumerate(vectors):
            embedding: Any = vector
            if as_base64:
                packed = struct.pack(f"<{len(vector)}f", *vector)
                embedding = base64.b64encode(packed).decode("ascii")
            data.append({"object": "embedding", "index": index, "embedding": embedding})
        tokens = max(1, ctx.request_size // 4)
        return {
            "object": "list",
            "data": data,
            "model": ctx.model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
