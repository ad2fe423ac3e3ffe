"""Child processes of the storage tests.

``python -m tests.storage._child turns BACKEND LOCATION TAG COUNT reuse|fresh``
runs COUNT agent turns on the session ``shared`` with a scripted model, the
prompts ``TAG-0`` ... (``reuse``: one agent for every turn; ``fresh``: a new
agent per turn, as a server worker does per request).

``python -m tests.storage._child hold BACKEND LOCATION`` takes the lock of
session ``shared``, prints ``held`` and sleeps until killed.

``python -m tests.storage._child dump PROTOCOL BACKEND LOCATION`` opens a store
in this fresh process and prints what it holds as JSON (see ``_records``).
"""

from __future__ import annotations

import json
import sys

from tests.storage._backends import open_store
from tests.storage._records import RECORDS


def turns(backend: str, location: str, tag: str, count: int, mode: str) -> None:
    from selectools import Agent, AgentConfig
    from selectools.memory import ConversationMemory
    from selectools.testing import ScriptedProvider

    store = open_store("sessions", backend, location)

    def agent() -> Agent:
        return Agent(
            provider=ScriptedProvider(default="noted", latency=0.03),
            memory=ConversationMemory(max_messages=10_000),
            config=AgentConfig(session_store=store, session_id="shared"),
        )

    current = agent()
    for turn in range(count):
        if mode == "fresh":
            current = agent()
        result = current.run(f"{tag}-{turn}")
        if result.error is not None:
            raise SystemExit(f"turn {turn} failed: {result.error!r}")


def main() -> None:
    command = sys.argv[1]
    if command == "turns":
        backend, location, tag, count, mode = sys.argv[2:7]
        turns(backend, location, tag, int(count), mode)
    elif command == "hold":
        import time

        backend, location = sys.argv[2:4]
        lock = open_store("sessions", backend, location).lock("shared")
        lock.acquire()
        print("held", flush=True)
        time.sleep(120)
    elif command == "dump":
        protocol, backend, location = sys.argv[2:5]
        records = RECORDS[protocol]
        store = open_store(protocol, backend, location)
        print(json.dumps(records.read_all(store, location)))
    else:
        raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    main()
