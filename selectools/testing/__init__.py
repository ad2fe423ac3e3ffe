"""Offline providers for testing agents (yours too): scripted turns, an echo stub."""

from __future__ import annotations

from ..providers.stubs import LocalProvider
from .scripted import ScriptedProvider, ScriptedReply, ScriptedRequest, reply, tool_call

__all__ = [
    "LocalProvider",
    "ScriptedProvider",
    "ScriptedReply",
    "ScriptedRequest",
    "reply",
    "tool_call",
]
