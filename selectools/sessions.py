"""The documented path of the session stores; it lives in :mod:`selectools.memory.sessions`."""

from __future__ import annotations

from .memory.sessions import (
    JsonFileSessionStore,
    RedisSessionStore,
    SessionFormatError,
    SessionLock,
    SessionStore,
    SessionStoreError,
    SQLiteSessionStore,
)

__all__ = [
    "JsonFileSessionStore",
    "RedisSessionStore",
    "SQLiteSessionStore",
    "SessionFormatError",
    "SessionLock",
    "SessionStore",
    "SessionStoreError",
]
