"""What the three memory kinds (entity, knowledge graph, knowledge) share.

Errors with one base (:class:`MemoryStoreError`), the JSON reading of the
extractors' replies (their model call is :mod:`selectools._side_call`), the
SQLite opening every SQLite store shares (:mod:`selectools._storage`), and the
format version written into every store, so a file from a newer selectools is refused with a clear
message instead of being misread or overwritten.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from .._storage import NewerFormatError
from ..exceptions import SelectoolsError

if TYPE_CHECKING:
    import sqlite3

__all__ = [
    "FORMAT_VERSION",
    "ExtractionError",
    "MemoryStoreError",
    "StoreVersionError",
    "UnknownBackendError",
    "check_version",
    "open_store_db",
    "parse_json_array",
]

#: The on-disk format every memory store writes (bumped on incompatible changes).
FORMAT_VERSION = 1


class MemoryStoreError(SelectoolsError):
    """A memory store (entities, triples, knowledge) could not be read or written."""


class UnknownBackendError(MemoryStoreError, ValueError):
    """A backend name that selectools does not provide."""

    def __init__(self, feature: str, name: object, known: tuple[str, ...]) -> None:
        self.name = name
        self.known = known
        super().__init__(
            f"{feature}: unknown backend {name!r}; choose one of {', '.join(map(repr, known))} "
            "or pass a store object"
        )


class StoreVersionError(MemoryStoreError, NewerFormatError):
    """The store was written by a newer selectools (format version above ours)."""

    def __init__(self, where: str, found: object) -> None:
        self.where = where
        self.found = found
        Exception.__init__(
            self,
            f"{where} was written in store format {found!r} by a newer selectools; this version "
            f"reads format {FORMAT_VERSION} and earlier. Upgrade selectools "
            "(a newer selectools-jupyter) to open it; the store was left untouched.",
        )


class ExtractionError(MemoryStoreError, ValueError):
    """The extraction model's reply was not the JSON array the prompt asked for."""

    def __init__(self, what: str, reply: str, problem: str) -> None:
        self.reply = reply
        self.problem = problem
        shown = reply if len(reply) <= 200 else reply[:199] + "…"
        super().__init__(f"{what} extraction: {problem}; the model replied {shown!r}")


def check_version(found: object, where: str) -> None:
    """Refuse a store whose format is newer than :data:`FORMAT_VERSION` (or not a version)."""
    if found is None:
        return
    if isinstance(found, bool) or not isinstance(found, int) or found < 1:
        raise MemoryStoreError(f"{where} has an unreadable format version {found!r}")
    if found > FORMAT_VERSION:
        raise StoreVersionError(where, found)


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse_json_array(what: str, text: str) -> list[dict[str, Any]]:
    """The JSON array of objects in a model reply (a fenced block or the first ``[...]``)."""
    body = text.strip()
    fenced = _FENCE.search(body)
    if fenced:
        body = fenced.group(1).strip()
    elif not body.startswith("["):
        start, end = body.find("["), body.rfind("]")
        if start != -1 and end > start:
            body = body[start : end + 1]
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise ExtractionError(what, text, f"the reply is not JSON ({exc.msg})") from None
    if isinstance(data, dict):
        # some models wrap the array: {"entities": [...]}
        lists = [v for v in data.values() if isinstance(v, list)]
        if len(lists) == 1:
            data = lists[0]
    if not isinstance(data, list):
        raise ExtractionError(what, text, f"expected a JSON array, got {type(data).__name__}")
    bad = [item for item in data if not isinstance(item, dict)]
    if bad:
        raise ExtractionError(what, text, f"expected objects in the array, got {bad[0]!r}")
    return data


def open_store_db(path: str, schema: str, what: str) -> sqlite3.Connection:
    """A SQLite memory store (see :func:`selectools._storage.open_sqlite`); newer formats refused."""
    from .._storage import NewerFormatError, open_sqlite

    try:
        return open_sqlite(
            path, schema, what=what, format_version=FORMAT_VERSION, error=MemoryStoreError
        )
    except NewerFormatError as exc:
        raise StoreVersionError(exc.where, exc.found) from None
