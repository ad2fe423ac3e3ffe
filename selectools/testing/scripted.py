"""``ScriptedProvider``: an offline provider that plays back scripted model turns.

Each call to the provider consumes the next scripted reply: text, one or more
tool calls, an error to raise, or a function that decides from the request.
Replies stream chunk by chunk (with optional latency) through ``stream`` and
``astream``, report estimated usage, and are recorded in ``provider.requests``
so a test can assert on what the model was shown. An offline run is labelled as
what it is: the provider's model is ``"scripted"``, which costs nothing, unless
a model is chosen on purpose (``ScriptedProvider(model="gpt-5-mini")`` or
``AgentConfig(model=...)``), whose registry prices are then applied.

    provider = ScriptedProvider([
        tool_call("get_price", product="laptop"),
        "The laptop costs $999.",
    ])
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..exceptions import ProviderError
from ..providers._base import RequestProvider
from ..providers.base import LLMRequest, StreamItem, estimate_usage
from ..types import Message, Role, ToolCall
from ..usage import UsageStats

__all__ = [
    "SCRIPTED_MODEL",
    "ScriptedProvider",
    "ScriptedReply",
    "ScriptedRequest",
    "reply",
    "tool_call",
]

#: the model a script reports unless it stands in for a real one: unpriced, so a run costs $0
SCRIPTED_MODEL = "scripted"

_WORD = re.compile(r"\S+\s*|\s+")


@dataclass
class ScriptedReply:
    """One scripted model turn.

    ``chunks`` fixes how ``text`` is streamed (default: word by word);
    ``latency`` is waited before the reply and ``chunk_latency`` between chunks;
    ``usage`` overrides the estimated usage; ``error`` is raised instead of replying.
    """

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    chunks: list[str] | None = None
    usage: UsageStats | None = None
    latency: float | None = None
    chunk_latency: float | None = None
    error: BaseException | None = None

    def stream_chunks(self) -> list[str]:
        if self.chunks is not None:
            return list(self.chunks)
        return _WORD.findall(self.text)


@dataclass
class ScriptedRequest:
    """What the provider was asked on one call."""

    model: str
    system_prompt: str
    messages: list[Message]
    tools: list[str]
    temperature: float
    max_tokens: int
    stream: bool

    @property
    def last_message(self) -> Message | None:
        return self.messages[-1] if self.messages else None


ReplyLike = str | ToolCall | Sequence[ToolCall] | ScriptedReply | BaseException
Responder = Callable[[ScriptedRequest], ReplyLike]

_call_ids = itertools.count(1)


def tool_call(name: str, /, **parameters: Any) -> ToolCall:
    """A tool call for a script: ``tool_call("search", query="python")``."""
    return ToolCall(tool_name=name, parameters=parameters, id=f"call_{next(_call_ids)}")


def reply(text: str = "", *calls: ToolCall, **options: Any) -> ScriptedReply:
    """A scripted turn with text and/or tool calls; ``options`` are :class:`ScriptedReply` fields."""
    return ScriptedReply(text=text, tool_calls=list(calls), **options)


def _as_reply(item: ReplyLike) -> ScriptedReply:
    if isinstance(item, ScriptedReply):
        return item
    if isinstance(item, str):
        return ScriptedReply(text=item)
    if isinstance(item, ToolCall):
        return ScriptedReply(tool_calls=[item])
    if isinstance(item, BaseException):
        return ScriptedReply(error=item)
    if isinstance(item, Sequence) and all(isinstance(c, ToolCall) for c in item):
        return ScriptedReply(tool_calls=[c for c in item if isinstance(c, ToolCall)])
    raise TypeError(
        f"ScriptedProvider cannot play {type(item).__name__!s}: use a str, a ToolCall, "
        "a list of ToolCalls, a ScriptedReply, an exception or a function returning one"
    )


class ScriptedProvider(RequestProvider):
    """Plays scripted replies in order; thread-safe; sync, async and streaming.

    ``replies`` is a sequence of reply-likes or a single function called with the
    :class:`ScriptedRequest` for every turn. When the script runs out, ``default``
    (if given) is replied forever; otherwise the call fails with a non-retryable
    :class:`~selectools.exceptions.ProviderError` that says how many replies ran.
    ``native_tools=False`` renders tool calls as ``TOOL_CALL {...}`` text instead,
    to exercise the text protocol. ``model`` names the model it stands in for
    (priced as that model); by default it is :data:`SCRIPTED_MODEL`, at no cost.
    ``provider.requests`` keeps the last ``keep_requests`` requests (``None``: all),
    so a scripted agent served for hours does not grow; ``calls`` counts every one.
    """

    def __init__(
        self,
        replies: Iterable[ReplyLike | Responder] | Responder = (),
        *,
        default: ReplyLike | None = None,
        latency: float = 0.0,
        chunk_latency: float = 0.0,
        model: str | None = None,
        name: str = "scripted",
        native_tools: bool = True,
        keep_requests: int | None = 1_000,
    ) -> None:
        if keep_requests is not None and keep_requests < 0:
            raise ValueError(f"keep_requests must be >= 0 or None, got {keep_requests!r}")
        self._responder: Responder | None = replies if callable(replies) else None
        self._script: list[ReplyLike | Responder] = [] if callable(replies) else list(replies)
        self.default = default
        self.latency = latency
        self.chunk_latency = chunk_latency
        self.default_model = model or SCRIPTED_MODEL
        self.name = name
        self.supports_native_tools = native_tools
        self.requests: list[ScriptedRequest] = []
        self.keep_requests = keep_requests
        self._calls = 0
        self._position = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ScriptedProvider(replies={len(self._script)}, played={self._position})"

    @property
    def calls(self) -> int:
        """How many times the provider was called (``requests`` may keep fewer)."""
        return self._calls

    @property
    def remaining(self) -> int:
        return max(len(self._script) - self._position, 0)

    def add(self, *replies: ReplyLike | Responder) -> ScriptedProvider:
        """Append replies to the script."""
        with self._lock:
            self._script.extend(replies)
        return self

    # -- playing ---------------------------------------------------------
    def _next(self, request: ScriptedRequest) -> ScriptedReply:
        with self._lock:
            self._calls += 1
            self.requests.append(request)
            if self.keep_requests is not None and len(self.requests) > self.keep_requests:
                del self.requests[0]
            if self._responder is not None:
                item: Any = self._responder
            elif self._position < len(self._script):
                item = self._script[self._position]
                self._position += 1
            elif self.default is not None:
                item = self.default
            else:
                raise ProviderError(
                    f"ScriptedProvider ran out of replies after {self._position} "
                    "(add more with provider.add(...) or pass default=...)",
                    provider=self.name,
                    retryable=False,
                )
        if callable(item) and not isinstance(item, (ScriptedReply, BaseException)):
            item = item(request)
        scripted = _as_reply(item)
        if scripted.error is not None:
            raise scripted.error
        return scripted

    def _scripted_request(self, request: LLMRequest, stream: bool) -> ScriptedRequest:
        return ScriptedRequest(
            model=request.model or self.default_model or "",
            system_prompt=request.system_prompt,
            messages=list(request.messages),
            tools=[t.name for t in request.tools or ()],
            temperature=request.temperature,
            max_tokens=request.max_tokens,
            stream=stream,
        )

    def _text_and_calls(self, scripted: ScriptedReply) -> tuple[str, list[ToolCall]]:
        if self.supports_native_tools or not scripted.tool_calls:
            return scripted.text, list(scripted.tool_calls)
        rendered = [
            "TOOL_CALL " + json.dumps({"tool_name": c.tool_name, "parameters": c.parameters})
            for c in scripted.tool_calls
        ]
        text = "\n".join(filter(None, [scripted.text, *rendered]))
        return text, []

    def _usage(self, request: ScriptedRequest, scripted: ScriptedReply, text: str) -> UsageStats:
        if scripted.usage is not None:
            return scripted.usage
        calls = (
            json.dumps([c.to_dict() for c in scripted.tool_calls]) if scripted.tool_calls else ""
        )
        return estimate_usage(
            request.model, self.name, request.system_prompt, request.messages, text + calls
        )

    def _message(self, scripted: ScriptedReply) -> Message:
        text, calls = self._text_and_calls(scripted)
        return Message(role=Role.ASSISTANT, content=text, tool_calls=calls or None)

    def _latency(self, scripted: ScriptedReply) -> tuple[float, float]:
        first = self.latency if scripted.latency is None else scripted.latency
        between = self.chunk_latency if scripted.chunk_latency is None else scripted.chunk_latency
        return first, between

    def _complete(self, llm_request: LLMRequest) -> tuple[Message, UsageStats]:
        request = self._scripted_request(llm_request, stream=False)
        scripted = self._next(request)
        first, _ = self._latency(scripted)
        if first:
            time.sleep(first)
        message = self._message(scripted)
        return message, self._usage(request, scripted, message.text)

    def _stream(self, llm_request: LLMRequest) -> Iterator[StreamItem]:
        request = self._scripted_request(llm_request, stream=True)
        scripted = self._next(request)
        first, between = self._latency(scripted)
        if first:
            time.sleep(first)
        for item in self._stream_items(request, scripted):
            yield item
            if between and isinstance(item, str):
                time.sleep(between)

    async def _acomplete(self, llm_request: LLMRequest) -> tuple[Message, UsageStats]:
        request = self._scripted_request(llm_request, stream=False)
        scripted = self._next(request)
        first, _ = self._latency(scripted)
        if first:
            await asyncio.sleep(first)
        message = self._message(scripted)
        return message, self._usage(request, scripted, message.text)

    async def _astream(self, llm_request: LLMRequest) -> AsyncIterator[StreamItem]:
        request = self._scripted_request(llm_request, stream=True)
        scripted = self._next(request)
        first, between = self._latency(scripted)
        if first:
            await asyncio.sleep(first)
        for item in self._stream_items(request, scripted):
            yield item
            if isinstance(item, str):
                await asyncio.sleep(between)

    def _stream_items(
        self, request: ScriptedRequest, scripted: ScriptedReply
    ) -> Iterator[StreamItem]:
        text, calls = self._text_and_calls(scripted)
        if self.supports_native_tools or not scripted.tool_calls:
            yield from scripted.stream_chunks()
        else:
            yield from _WORD.findall(text)
        yield from calls
        yield self._usage(request, scripted, text)
