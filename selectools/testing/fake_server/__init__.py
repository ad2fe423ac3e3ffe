"""A wire-compatible fake LLM server for testing agents and providers offline.

See :class:`FakeLLMServer`. Scripted replies are plain strings, tool calls
(:class:`~selectools.types.ToolCall` or :class:`FakeToolCall`),
:class:`FakeReply` objects or :class:`Fault` objects.
"""

from __future__ import annotations

from ._script import FakeReply, FakeToolCall, Fault, RecordedRequest
from ._server import FakeLLMServer

__all__ = ["FakeLLMServer", "FakeReply", "FakeToolCall", "Fault", "RecordedRequest"]
