"""The interface each vendor's wire format implements, and the framing helpers.

A dialect renders a scripted reply as that vendor's JSON body or as its stream
of events, and renders errors in that vendor's error shape. Stream events are
``(bytes, is_content)`` pairs: the server counts content events (text deltas
and tool-argument fragments) to inject a fault part-way through.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ._script import FakeReply

__all__ = ["Dialect", "Event", "RenderContext", "ndjson", "split_arguments", "sse"]

Event = tuple[bytes, bool]

_counter = itertools.count(1)
_counter_lock = threading.Lock()


def next_id() -> int:
    with _counter_lock:
        return next(_counter)


def sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def ndjson(data: Any) -> bytes:
    return (json.dumps(data) + "\n").encode()


def split_arguments(text: str, pieces: int = 3) -> list[str]:
    """Cut a tool call's argument text into fragments, as models stream them."""
    if len(text) < pieces:
        return [text] if text else []
    size = -(-len(text) // pieces)
    return [text[i : i + size] for i in range(0, len(text), size)]


@dataclass
class RenderContext:
    """What a dialect needs to know about the request it answers."""

    model: str
    request_size: int
    body: Any
    created: int = 0

    def __post_init__(self) -> None:
        self.created = int(time.time())


class Dialect(ABC):
    """One vendor's wire format."""

    vendor = ""
    stream_content_type = "text/event-stream"

    @abstractmethod
    def reply_json(self, reply: FakeReply, ctx: RenderContext) -> dict[str, Any]:
        """The non-streamed response body."""

    @abstractmethod
    def stream_events(self, reply: FakeReply, ctx: RenderContext) -> Iterator[Event]:
        """The streamed response, event by event, ending with the vendor's final event."""

    @abstractmethod
    def error_json(
        self, status: int, message: str, retry_after: float | None = None
    ) -> dict[str, Any]:
        """The vendor's error body."""

    def embeddings_json(self, vectors: list[list[float]], ctx: RenderContext) -> dict[str, Any]:
        """The vendor's embeddings response (no route reaches a vendor without one)."""
        raise NotImplementedError(f"{self.vendor} has no embeddings API")

    def error_event(self, status: int, message: str) -> bytes:
        return sse(self.error_json(status, message))

    def malformed_event(self) -> bytes:
        return b'data: {"choices": [{"delta": {"content": "unterminated\n\n'
