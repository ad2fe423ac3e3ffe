"""Offline providers for testing agents (yours too): scripted turns, recordings, an echo stub.

``FakeLLMServer`` (a local server speaking the LLM vendors' wire protocols) and
its scripting types load on first use, since they bring in ``http.server``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ..providers.stubs import LocalProvider
from .replay import RecordingProvider, ReplayProvider
from .scripted import ScriptedProvider, ScriptedReply, ScriptedRequest, reply, tool_call

__all__ = [
    "FakeLLMServer",
    "FakeReply",
    "FakeToolCall",
    "Fault",
    "LocalProvider",
    "RecordedRequest",
    "RecordingProvider",
    "ReplayProvider",
    "ScriptedProvider",
    "ScriptedReply",
    "ScriptedRequest",
    "reply",
    "tool_call",
]

_LAZY = dict.fromkeys(
    ("FakeLLMServer", "FakeReply", "FakeToolCall", "Fault", "RecordedRequest"), ".fake_server"
)


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .fake_server import FakeLLMServer, FakeReply, FakeToolCall, Fault, RecordedRequest
