"""Anthropic Messages API: ``/v1/messages`` as JSON or as named SSE events.

A stream is ``message_start``, then per content block ``content_block_start`` /
``content_block_delta`` (``text_delta`` or ``input_json_delta``) /
``content_block_stop``, then ``message_delta`` (stop reason, output tokens) and
``message_stop``. Errors mid-stream are an ``error`` event.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ._dialect import Dialect, Event, RenderContext, next_id, split_arguments, sse
from ._script import FakeReply

__all__ = ["AnthropicDialect"]

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _tool_input(arguments: str) -> Any:
    """The ``input`` object; arguments that are not JSON (or nest past the stack) are passed
    on as a bare string, so a test can script any hostile arguments."""
    try:
        return json.loads(arguments) if arguments else {}
    except (ValueError, RecursionError):
        return arguments


class AnthropicDialect(Dialect):
    vendor = "anthropic"

    def _blocks(self, reply: FakeReply) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        if reply.text:
            blocks.append({"type": "text", "text": reply.text})
        for call in reply.calls:
            blocks.append(
                {
                    "type": "tool_use",
                    "id": call.id or f"toolu_fake_{next_id()}",
                    "name": call.name,
                    "input": _tool_input(call.arguments_json),
                }
            )
        return blocks

    def reply_json(self, reply: FakeReply, ctx: RenderContext) -> dict[str, Any]:
        prompt, completion = reply.token_usage(ctx.request_size)
        return {
            "id": f"msg_fake_{next_id()}",
            "type": "message",
            "role": "assistant",
            "model": ctx.model,
            "content": self._blocks(reply),
            "stop_reason": "tool_use" if reply.calls else "end_turn",
            "stop_sequence": None,
            "usage": {**_input_usage(reply, prompt), "output_tokens": completion},
        }

    def stream_events(self, reply: FakeReply, ctx: RenderContext) -> Iterator[Event]:
        prompt, completion = reply.token_usage(ctx.request_size)
        start = {
            "type": "message_start",
            "message": {
                "id": f"msg_fake_{next_id()}",
                "type": "message",
                "role": "assistant",
                "model": ctx.model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {**_input_usage(reply, prompt), "output_tokens": 1},
            },
        }
        yield sse(start, "message_start"), False
        index = 0
        if reply.text:
            opening: dict[str, Any] = {"type": "text", "text": ""}
            yield _block_start(index, opening), False
            yield sse({"type": "ping"}, "ping"), False
            for text in reply.text_chunks():
                delta = {"type": "text_delta", "text": text}
                yield _block_delta(index, delta), True
            yield _block_stop(index), False
            index += 1
        for call in reply.calls:
            opening = {
                "type": "tool_use",
                "id": call.id or f"toolu_fake_{next_id()}",
                "name": call.name,
                "input": {},
            }
            yield _block_start(index, opening), False
            for piece in split_arguments(call.arguments_json):
                delta = {"type": "input_json_delta", "partial_json": piece}
                yield _block_delta(index, delta), True
            yield _block_stop(index), False
            index += 1
        end = {
            "type": "message_delta",
            "delta": {
                "stop_reason": "tool_use" if reply.calls else "end_turn",
                "stop_sequence": None,
            },
            "usage": {"output_tokens": completion},
        }
        yield sse(end, "message_delta"), False
        yield sse({"type": "message_stop"}, "message_stop"), False

    def error_json(
        self, status: int, message: str, retry_after: float | None = None
    ) -> dict[str, Any]:
        kind = _ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    def error_event(self, status: int, message: str) -> bytes:
        return sse(self.error_json(status, message), "error")

    def malformed_event(self) -> bytes:
        return b'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0,\n\n'


def _block_start(index: int, block: dict[str, Any]) -> bytes:
    return sse(
        {"type": "content_block_start", "index": index, "content_block": block},
        "content_block_start",
    )


def _block_delta(index: int, delta: dict[str, Any]) -> bytes:
    return sse(
        {"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta"
    )


def _block_stop(index: int) -> bytes:
    return sse({"type": "content_block_stop", "index": index}, "content_block_stop")


def _input_usage(reply: FakeReply, prompt: int) -> dict[str, int]:
    """Anthropic's input counts: ``input_tokens`` leaves out the cache reads and writes."""
    cached = reply.cache_read_tokens + reply.cache_write_tokens
    return {
        "input_tokens": max(prompt - cached, 0),
        "cache_read_input_tokens": reply.cache_read_tokens,
        "cache_creation_input_tokens": reply.cache_write_tokens,
    }
