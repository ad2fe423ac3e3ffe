"""Persistent sessions: save a conversation under an id and pick it up later, even in another process.

Three backends share the :class:`SessionStore` protocol (``save``, ``load``,
``exists``, ``delete``, ``list_sessions``): :class:`JsonFileSessionStore` (a file
per session), :class:`SQLiteSessionStore` (one database file) and
:class:`RedisSessionStore` (shared across machines). Each supports a TTL
(``ttl_seconds``, also spelled ``default_ttl``; per save ``save(...,
ttl_seconds=...)``) and a ``namespace`` that keeps stores sharing a location
apart. Saves are atomic: a crash mid-save leaves the previous version readable.

``load`` returns the saved dict plus ``session_id``, ``created_at`` and
``updated_at`` (ISO 8601, UTC) unless the dict already had those keys.

With ``AgentConfig(session_store=..., session_id=...)`` the agent loads the
session when it is built and saves it after every run. Each run is one turn
under the session's lock (``store.lock(session_id)``: a lock file, or a Redis
lock), held across processes from the reload at the start of the run to the
save at its end: two concurrent turns on one session run one after the other,
the second sees the first, and no turn is lost. A session written by a newer
selectools is refused (:class:`SessionFormatError`), never overwritten.
"""

from __future__ import annotations

from ._base import SessionFormatError, SessionLock, SessionStore, SessionStoreError
from ._json_file import JsonFileSessionStore
from ._redis import RedisSessionStore
from ._sqlite import SQLiteSessionStore

__all__ = [
    "JsonFileSessionStore",
    "RedisSessionStore",
    "SQLiteSessionStore",
    "SessionFormatError",
    "SessionLock",
    "SessionStore",
    "SessionStoreError",
]
