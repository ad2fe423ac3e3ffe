"""Record a provider's replies once, then replay them offline.

``RecordingProvider`` wraps any provider and keeps every request it saw and
every reply it gave; ``save(path)`` writes them as JSON. ``ReplayProvider``
plays such a file back in order, so a demo recorded against a real model runs
anywhere without a key (Binder, CI). With ``strict=True`` a replay checks that
the conversation still matches the recording and fails loudly where it diverged.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from .._storage import atomic_write_text
from ..exceptions import ProviderError
from ..providers import _adapt
from ..providers._base import RequestProvider
from ..providers.base import LLMRequest, StreamItem, provider_label
from ..types import Message, text_content
from ..usage import UsageStats

__all__ = ["RecordingProvider", "ReplayProvider"]

_FORMAT = "selectools-recording"
_VERSION = 1


def _request_summary(request: LLMRequest) -> dict[str, Any]:
    messages = request.messages
    return {
        "model": request.model,
        "last_message": text_content(messages[-1]) if messages else "",
        "message_count": len(messages),
        "tools": [t.name for t in request.tools or ()],
    }


class RecordingProvider(RequestProvider):
    """Wraps ``provider`` and records each call; ``save(path)`` writes the recording.

    The wrapped provider may implement any part of the protocol (it is called
    through :mod:`selectools.providers._adapt`); whole replies are recorded, and
    streams hand them out as stream items.
    """

    def __init__(self, provider: Any) -> None:
        self.provider = provider
        self.name = provider_label(provider)
        self.supports_native_tools = bool(getattr(provider, "supports_native_tools", False))
        self.default_model = getattr(provider, "default_model", None)
        self.calls: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"RecordingProvider({self.name!r}, calls={len(self.calls)})"

    def _record(self, request: LLMRequest, message: Message, usage: UsageStats) -> None:
        entry = {
            "request": _request_summary(request),
            "response": message.to_dict(),
            "usage": usage.to_dict(),
        }
        with self._lock:
            self.calls.append(entry)

    def _complete(self, request: LLMRequest) -> tuple[Message, UsageStats]:
        message, usage = _adapt.complete(self.provider, request)
        self._record(request, message, usage)
        return message, usage

    async def _acomplete(self, request: LLMRequest) -> tuple[Message, UsageStats]:
        message, usage = await _adapt.acomplete(self.provider, request)
        self._record(request, message, usage)
        return message, usage

    def _stream(self, request: LLMRequest) -> Iterator[StreamItem]:
        # Recording keeps whole replies; replays re-chunk them.
        yield from _adapt.as_items(*self._complete(request))

    async def _astream(self, request: LLMRequest) -> AsyncIterator[StreamItem]:
        for item in _adapt.as_items(*(await self._acomplete(request))):
            yield item

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the recording atomically (a crash never leaves half a file)."""
        target = Path(path)
        payload = {
            "format": _FORMAT,
            "version": _VERSION,
            "provider": self.name,
            "calls": self.calls,
        }
        return atomic_write_text(target, json.dumps(payload, indent=2))


class ReplayProvider(RequestProvider):
    """Plays a recording back, one reply per call, in order.

    ``recording`` is a path written by :meth:`RecordingProvider.save`, or the
    loaded dict / a ``RecordingProvider``. ``strict=True`` compares each request's
    last message with the recorded one and raises on the first divergence.
    """

    def __init__(
        self,
        recording: str | os.PathLike[str] | dict[str, Any] | RecordingProvider,
        *,
        strict: bool = False,
    ) -> None:
        if isinstance(recording, RecordingProvider):
            data: dict[str, Any] = {"provider": recording.name, "calls": list(recording.calls)}
        elif isinstance(recording, dict):
            data = recording
        else:
            path = Path(recording)
            try:
                data = json.loads(path.read_text())
            except FileNotFoundError:
                raise FileNotFoundError(f"ReplayProvider: no recording at {str(path)!r}") from None
            except json.JSONDecodeError as exc:
                raise ValueError(
                    f"ReplayProvider: {str(path)!r} is not valid JSON ({exc})"
                ) from None
        calls = data.get("calls")
        if not isinstance(calls, list):
            raise ValueError(
                "ReplayProvider: the recording has no 'calls' list; record one with RecordingProvider.save()"
            )
        self.name = f"replay:{data.get('provider', 'unknown')}"
        self.strict = strict
        self.supports_native_tools = True
        self._calls = calls
        self._position = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ReplayProvider(calls={len(self._calls)}, played={self._position})"

    @property
    def remaining(self) -> int:
        return len(self._calls) - self._position

    def _next(self, request: LLMRequest) -> tuple[Message, UsageStats]:
        with self._lock:
            index = self._position
            if index >= len(self._calls):
                raise ProviderError(
                    f"ReplayProvider: the recording has only {len(self._calls)} replies; "
                    "the run asked for more (re-record it)",
                    provider=self.name,
                    retryable=False,
                )
            self._position += 1
        entry = self._calls[index]
        if self.strict:
            expected = entry.get("request", {}).get("last_message")
            actual = _request_summary(request)["last_message"]
            if expected is not None and expected != actual:
                raise ProviderError(
                    f"ReplayProvider: call {index + 1} diverged from the recording: "
                    f"expected last message {expected!r}, got {actual!r}",
                    provider=self.name,
                    retryable=False,
                )
        return Message.from_dict(entry["response"]), UsageStats.from_dict(entry.get("usage", {}))

    def _complete(self, request: LLMRequest) -> tuple[Message, UsageStats]:
        return self._next(request)

    async def _acomplete(self, request: LLMRequest) -> tuple[Message, UsageStats]:
        return self._next(request)

    def _stream(self, request: LLMRequest) -> Iterator[StreamItem]:
        message, usage = self._next(request)
        text = message.text
        words = text.split(" ")
        for index, word in enumerate(words):
            chunk = word if index == len(words) - 1 else word + " "
            if chunk:
                yield chunk
        yield from message.tool_calls or ()
        yield usage

    async def _astream(self, request: LLMRequest) -> AsyncIterator[StreamItem]:
        for item in self._stream(request):
            yield item
