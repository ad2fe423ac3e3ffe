"""Offline providers for testing agents (yours too): scripted turns, recordings, an echo stub."""

from __future__ import annotations

from ..providers.stubs import LocalProvider
from .replay import RecordingProvider, ReplayProvider
from .scripted import ScriptedProvider, ScriptedReply, ScriptedRequest, reply, tool_call

__all__ = [
    "LocalProvider",
    "RecordingProvider",
    "ReplayProvider",
    "ScriptedProvider",
    "ScriptedReply",
    "ScriptedRequest",
    "reply",
    "tool_call",
]
