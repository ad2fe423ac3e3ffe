"""The agent: ``Agent`` and its configuration ``AgentConfig``."""

from __future__ import annotations

from .config import AgentConfig
from .core import Agent

__all__ = ["Agent", "AgentConfig"]
