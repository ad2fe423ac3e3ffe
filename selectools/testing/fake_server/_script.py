"""What a test scripts the fake server to do: replies, tool calls and faults.

A reply is what the "model" answers on one chat request; a :class:`Fault` is
what goes wrong instead (or part-way through a streamed reply). Requests the
server received are kept as :class:`RecordedRequest` values so a test can
assert on exactly what a client sent, headers included.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import struct
from dataclasses import dataclass, field
from typing import Any

from ...types import ToolCall

__all__ = [
    "FakeReply",
    "FakeToolCall",
    "Fault",
    "RecordedRequest",
    "as_reply",
    "fake_embedding",
]

_WORD = re.compile(r"\S+\s*|\s+")
_FAULT_KINDS = ("status", "reset", "stall", "malformed", "truncate", "drip")


@dataclass(frozen=True)
class Fault:
    """A failure to inject. Build one with the class methods.

    ``after_chunks`` is ``None`` for a failure before the response starts;
    for a streamed reply, ``n`` lets ``n`` content events (text deltas or tool
    argument fragments) through first. Preamble events (the role chunk,
    ``message_start``, ``content_block_start``) are always sent before content.
    """

    kind: str
    status: int = 500
    message: str = ""
    retry_after: float | None = None
    seconds: float = 0.0
    after_chunks: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in _FAULT_KINDS:
            raise ValueError(f"Fault kind must be one of {_FAULT_KINDS}, got {self.kind!r}")
        if self.after_chunks is not None and self.after_chunks < 0:
            raise ValueError(f"after_chunks must be >= 0 or None, got {self.after_chunks}")

    @classmethod
    def status_code(
        cls,
        status: int,
        message: str = "",
        *,
        retry_after: float | None = None,
        after_chunks: int | None = None,
    ) -> Fault:
        """An error response (or, with ``after_chunks``, an error event mid-stream)."""
        if not 400 <= status <= 599:
            raise ValueError(f"an error status must be 4xx or 5xx, got {status}")
        return cls("status", status, message, retry_after, after_chunks=after_chunks)

    @classmethod
    def rate_limit(cls, retry_after: float | None = 1.0, message: str = "") -> Fault:
        """HTTP 429 with a ``Retry-After`` header (seconds)."""
        return cls.status_code(429, message or "Rate limit reached", retry_after=retry_after)

    @classmethod
    def server_error(cls, status: int = 500, message: str = "") -> Fault:
        """HTTP 500 (or another 5xx)."""
        return cls.status_code(status, message or "The server had an error")

    @classmethod
    def unavailable(cls, message: str = "") -> Fault:
        """HTTP 503."""
        return cls.status_code(503, message or "The service is temporarily unavailable")

    @classmethod
    def reset(cls, after_chunks: int | None = None) -> Fault:
        """Drop the TCP connection with a reset (before replying, or mid-stream)."""
        return cls("reset", after_chunks=after_chunks)

    @classmethod
    def stall(cls, seconds: float, after_chunks: int | None = None) -> Fault:
        """Go silent for ``seconds`` (pick more than the client's timeout)."""
        return cls("stall", seconds=seconds, after_chunks=after_chunks)

    @classmethod
    def drip_headers(cls, interval: float = 0.2) -> Fault:
        """Send the status line and headers one byte every ``interval`` seconds (minutes in all).

        No single read waits long, so only a total deadline on the response ends it.
        """
        return cls("drip", seconds=interval)

    @classmethod
    def malformed_json(cls, after_chunks: int | None = None) -> Fault:
        """A 200 whose JSON body (or stream event) is broken."""
        return cls("malformed", after_chunks=after_chunks)

    @classmethod
    def truncated_stream(cls, after_chunks: int = 1) -> Fault:
        """End a streamed reply cleanly but early: no finish / stop / done event.

        A non-streamed request gets half of its JSON body instead.
        """
        return cls("truncate", after_chunks=after_chunks)


@dataclass(frozen=True)
class FakeToolCall:
    """A tool call the fake model makes; ``arguments`` as a string is sent verbatim.

    Use a string to send arguments that are not valid JSON:
    ``FakeToolCall("get_price", '{"product": "pho')``.
    """

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    @property
    def arguments_json(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments)


@dataclass
class FakeReply:
    """One scripted model turn.

    ``chunks`` fixes how ``text`` streams (default: word by word); ``usage`` is
    ``(prompt_tokens, completion_tokens)`` (default: estimated from sizes), of which
    ``cache_read_tokens`` / ``cache_write_tokens`` prompt tokens were read from / written to
    the prompt cache (each vendor reports them in its own fields: OpenAI
    ``prompt_tokens_details.cached_tokens``, Anthropic ``cache_read_input_tokens`` and
    ``cache_creation_input_tokens``, Gemini ``cachedContentTokenCount``);
    ``latency`` is waited before replying and ``chunk_latency`` between
    streamed events; ``fault`` breaks the reply part-way (see :class:`Fault`).
    """

    text: str = ""
    tool_calls: list[FakeToolCall | ToolCall] = field(default_factory=list)
    chunks: list[str] | None = None
    usage: tuple[int, int] | None = None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    latency: float = 0.0
    chunk_latency: float = 0.0
    fault: Fault | None = None

    def __post_init__(self) -> None:
        self.tool_calls = [_as_fake_call(call) for call in self.tool_calls]

    @property
    def calls(self) -> list[FakeToolCall]:
        return [call for call in self.tool_calls if isinstance(call, FakeToolCall)]

    def text_chunks(self) -> list[str]:
        if self.chunks is not None:
            return list(self.chunks)
        return _WORD.findall(self.text)

    def token_usage(self, request_size: int) -> tuple[int, int]:
        if self.usage is not None:
            return self.usage
        produced = len(self.text) + sum(len(c.name) + len(c.arguments_json) for c in self.calls)
        return max(1, request_size // 4), max(1, (produced + 3) // 4)


def _as_fake_call(call: FakeToolCall | ToolCall) -> FakeToolCall:
    if isinstance(call, FakeToolCall):
        return call
    if isinstance(call, ToolCall):
        return FakeToolCall(call.tool_name, dict(call.parameters), call.id)
    raise TypeError(f"tool calls must be FakeToolCall or ToolCall objects, got {call!r}")


@dataclass
class RecordedRequest:
    """A request the server received.

    ``vendor`` is ``"openai"``, ``"azure"``, ``"anthropic"``, ``"gemini"`` or
    ``"ollama"``; ``route`` is ``"chat"`` or ``"embeddings"``; header names are
    lower-cased; ``json`` is the decoded body (``None`` if it was not JSON).
    """

    vendor: str
    route: str
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    json: Any
    stream: bool
    model: str | None

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


def as_reply(item: Any) -> FakeReply | Fault:
    """Coerce what a test scripted into a reply or a fault (with a clear error if it can't)."""
    if isinstance(item, (FakeReply, Fault)):
        return item
    if isinstance(item, str):
        return FakeReply(text=item)
    if isinstance(item, (ToolCall, FakeToolCall)):
        return FakeReply(tool_calls=[item])
    if (
        isinstance(item, (list, tuple))
        and item
        and all(isinstance(c, (ToolCall, FakeToolCall)) for c in item)
    ):
        return FakeReply(tool_calls=list(item))
    scripted = _from_scripted_reply(item)
    if scripted is not None:
        return scripted
    raise TypeError(
        f"FakeLLMServer cannot play {type(item).__name__}: script a str, a ToolCall / "
        "FakeToolCall (or a list of them), a FakeReply, a Fault, or a function of the "
        "RecordedRequest returning one of those"
    )


def _from_scripted_reply(item: Any) -> FakeReply | None:
    """Accept :class:`selectools.testing.ScriptedReply` too, so scripts can be shared."""
    from ..scripted import ScriptedReply

    if not isinstance(item, ScriptedReply):
        return None
    if item.error is not None:
        raise TypeError(
            "a ScriptedReply with error= cannot be played over HTTP; script a Fault instead "
            "(Fault.server_error(), Fault.rate_limit(), ...)"
        )
    usage = (item.usage.prompt_tokens, item.usage.completion_tokens) if item.usage else None
    return FakeReply(
        text=item.text,
        tool_calls=list(item.tool_calls),
        chunks=item.chunks,
        usage=usage,
        cache_read_tokens=item.usage.cache_read_tokens if item.usage else 0,
        cache_write_tokens=item.usage.cache_write_tokens if item.usage else 0,
        latency=item.latency or 0.0,
        chunk_latency=item.chunk_latency or 0.0,
    )


def fake_embedding(text: str, dimensions: int) -> list[float]:
    """A deterministic unit vector for ``text`` (same text, same vector)."""
    values: list[float] = []
    counter = 0
    while len(values) < dimensions:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        for (number,) in struct.iter_unpack(">i", digest):
            values.append(number / 2**31)
        counter += 1
    values = values[:dimensions]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [round(v / norm, 6) for v in values]
