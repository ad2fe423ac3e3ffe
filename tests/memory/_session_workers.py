"""Child processes for the session tests: writers to kill mid-save, and concurrent writers.

Run as ``python tests/memory/_session_workers.py <mode> <backend> <location> ...``.
Every saved session is self-checking: ``payload`` is ``size`` copies of
``"<writer>:<version>"``, so a reader can tell a whole version from a torn one.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from selectools.sessions import JsonFileSessionStore, RedisSessionStore, SQLiteSessionStore

SESSION_ID = "shared-session"


def open_store(backend: str, location: str):
    if backend == "json":
        return JsonFileSessionStore(location)
    if backend == "sqlite":
        return SQLiteSessionStore(location)
    return RedisSessionStore(url=location)


def session(writer: str, version: int, size: int) -> dict:
    stamp = f"{writer}:{version}"
    return {"writer": writer, "version": version, "payload": [stamp] * size}


def check(data: dict | None) -> tuple[str, int]:
    """Raise unless ``data`` is one whole version; returns (writer, version)."""
    assert data is not None, "the session disappeared"
    stamp = f"{data['writer']}:{data['version']}"
    payload = data["payload"]
    assert payload and all(item == stamp for item in payload), "a torn session"
    return data["writer"], data["version"]


def main() -> None:
    mode, backend, location, writer = sys.argv[1:5]
    count, size = int(sys.argv[5]), int(sys.argv[6])
    store = open_store(backend, location)
    if mode == "forever":  # save bigger and bigger versions until killed
        print("ready", flush=True)
        version = 0
        while True:
            version += 1
            store.save(SESSION_ID, session(writer, version, size))
    else:  # "count": save `count` versions, then exit
        for version in range(1, count + 1):
            store.save(SESSION_ID, session(writer, version, size))


if __name__ == "__main__":
    main()
