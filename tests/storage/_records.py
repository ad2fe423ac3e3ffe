"""Self-checking records for each store protocol, and how to damage them on disk.

Every record is a key with a version; its value carries ``SIZE`` copies of
``"<key>:<version>"``, so a reader tells a whole value from a torn one. Each
protocol's adapter writes a record, reads every record back (raising
``Torn`` for a partial value), and knows how to corrupt a record or mark it
as written by a newer format directly in the backend.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

SIZE = 300
KEYS = ("k0", "k1", "k2")


class Torn(AssertionError):
    """A record that is neither the old nor the new whole value."""


def stamp(key: str, version: int) -> str:
    return f"{key}:{version}"


def check_payload(key: str, version: int, payload: Any) -> None:
    if payload != [stamp(key, version)] * SIZE:
        raise Torn(f"record {key} v{version} is torn: {str(payload)[:80]}")


def _redis(location: str) -> tuple[Any, str]:
    import redis

    url, prefix = location.split("|")
    return redis.Redis.from_url(url), prefix


class Sessions:
    def write(self, store: Any, key: str, version: int) -> None:
        store.save(key, {"v": version, "payload": [stamp(key, version)] * SIZE})

    def read_one(self, store: Any, key: str) -> int | None:
        data = store.load(key)
        if data is None:
            return None
        check_payload(key, data["v"], data["payload"])
        return int(data["v"])

    def read_all(self, store: Any, location: str) -> dict[str, int]:
        found = {}
        for key in KEYS:
            version = self.read_one(store, key)
            if version is not None:
                found[key] = version
        return found

    def corrupt(self, backend: str, location: str, key: str) -> None:
        if backend == "json":
            path = Path(location) / f"{key}.json"
            path.write_text(path.read_text()[:40])
        elif backend == "sqlite":
            with sqlite3.connect(location) as db:
                db.execute(
                    'UPDATE sessions SET data = \'{"v": 1, "pay\' WHERE session_id = ?', (key,)
                )
        else:
            client, prefix = _redis(location)
            client.hset(f"{prefix}default:{key}", "data", '{"v": 1, "pay')

    def make_newer(self, backend: str, location: str, key: str) -> None:
        if backend == "json":
            path = Path(location) / f"{key}.json"
            record = json.loads(path.read_text())
            record["format"] = 99
            path.write_text(json.dumps(record))
        elif backend == "sqlite":
            with sqlite3.connect(location) as db:
                db.execute("PRAGMA user_version=99")
        else:
            client, prefix = _redis(location)
            client.hset(f"{prefix}default:{key}", "format", "99")

    def raw(self, backend: str, location: str, key: str) -> Any:
        """The bytes on disk (or in Redis) of one record, to prove it was not overwritten."""
        if backend == "json":
            return (Path(location) / f"{key}.json").read_bytes()
        if backend == "sqlite":
            return Path(location).read_bytes()
        client, prefix = _redis(location)
        return client.hgetall(f"{prefix}default:{key}")


class Checkpoints:
    """A checkpoint per write; the record ``key`` is the graph id, its version the step."""

    def write(self, store: Any, key: str, version: int) -> None:
        from selectools.orchestration import GraphState

        state = GraphState(data={"payload": [stamp(key, version)] * SIZE}, current_node="n")
        store.save(key, state, version)

    def read_one(self, store: Any, key: str) -> int | None:
        best = None
        for meta in store.list(key):
            state, step = store.load(meta.checkpoint_id)
            check_payload(key, step, state.data["payload"])
            best = step if best is None else max(best, step)
        return best

    def read_all(self, store: Any, location: str) -> dict[str, int]:
        found = {}
        for key in KEYS:
            version = self.read_one(store, key)
            if version is not None:
                found[key] = version
        return found

    def count(self, store: Any, location: str) -> int:
        return sum(len(store.list(key)) for key in KEYS)

    def _one_id(self, store: Any, key: str) -> str:
        return str(store.list(key)[0].checkpoint_id)

    def corrupt(self, backend: str, location: str, key: str, store: Any) -> str:
        checkpoint_id = self._one_id(store, key)
        if backend == "file":
            path = Path(location) / f"{checkpoint_id}.json"
            path.write_text(path.read_text()[:50])
        elif backend == "sqlite":
            with sqlite3.connect(location) as db:
                db.execute(
                    "UPDATE graph_checkpoints SET state = '{\"data\": {' WHERE checkpoint_id = ?",
                    (checkpoint_id,),
                )
        else:
            import psycopg

            dsn, table = location.split("|")
            with psycopg.connect(dsn) as conn:
                conn.execute(
                    f"UPDATE {table} SET state = '\"not a state\"'::jsonb WHERE checkpoint_id = %s",
                    (checkpoint_id,),
                )
        return checkpoint_id

    def make_newer(self, backend: str, location: str, key: str, store: Any) -> str:
        checkpoint_id = self._one_id(store, key)
        if backend == "file":
            path = Path(location) / f"{checkpoint_id}.json"
            doc = json.loads(path.read_text())
            doc["selectools_checkpoint_format"] = 99
            path.write_text(json.dumps(doc))
        elif backend == "sqlite":
            with sqlite3.connect(location) as db:
                db.execute(
                    "UPDATE graph_checkpoints SET state = "
                    "json_set(state, '$.selectools_checkpoint_format', 99) WHERE checkpoint_id = ?",
                    (checkpoint_id,),
                )
        else:
            import psycopg

            dsn, table = location.split("|")
            with psycopg.connect(dsn) as conn:
                conn.execute(
                    f"UPDATE {table} SET state = jsonb_set(state, "
                    "'{selectools_checkpoint_format}', '99') WHERE checkpoint_id = %s",
                    (checkpoint_id,),
                )
        return checkpoint_id


class Knowledge:
    """An entry per write (content ``key:version:`` + padding); persistent every other one."""

    def write(self, store: Any, key: str, version: int) -> None:
        from selectools.knowledge import KnowledgeEntry

        content = f"{stamp(key, version)}:" + "x" * SIZE
        store.add(KnowledgeEntry(content=content, category=key, persistent=version % 2 == 0))

    def read_all(self, store: Any, location: str) -> dict[str, int]:
        found: dict[str, int] = {}
        for entry in store.entries():
            key, version, pad = entry.content.split(":")
            if pad != "x" * SIZE:
                raise Torn(f"entry {entry.content[:40]} is torn")
            found[key] = max(found.get(key, 0), int(version))
        for category, facts in store.facts().items():
            for fact in facts:
                key, version, pad = fact.split(":")
                if key != category or pad != "x" * SIZE:
                    raise Torn(f"fact {fact[:40]} is torn")
        return found

    def count(self, store: Any, location: str) -> int:
        return len(store.entries())

    def corrupt(self, backend: str, location: str, key: str, store: Any) -> str:
        """Damage the first entry of ``key``; returns what the store should name (id or line)."""
        target = next(e for e in store.entries() if e.category == key)
        if backend == "file":
            for path in sorted((Path(location) / "logs").glob("*.jsonl")):
                lines = path.read_text().splitlines()
                for number, line in enumerate(lines):
                    if target.id in line:
                        lines[number] = line[: len(line) // 2]
                        path.write_text("\n".join(lines) + "\n")
                        return f"line {number + 1} of {path}"
            raise AssertionError("entry not found on disk")
        if backend == "sqlite":
            with sqlite3.connect(location) as db:
                db.execute(
                    "UPDATE knowledge_entries SET importance = 'lots' WHERE id = ?", (target.id,)
                )
            return target.id
        client, prefix = _redis(location)
        client.hset(f"{prefix}entries", target.id, '{"content": "torn')
        return target.id

    def make_newer(self, backend: str, location: str) -> None:
        if backend == "file":
            (Path(location) / ".selectools-knowledge.json").write_text('{"format": 99}')
        elif backend == "sqlite":
            with sqlite3.connect(location) as db:
                db.execute("PRAGMA user_version=99")
        else:
            client, prefix = _redis(location)
            client.set(f"{prefix}format", 99)


class Audit:
    """An audit record per write (``run_id`` is the key, ``v`` the version)."""

    def write(self, store: Any, key: str, version: int) -> None:
        store.write("storage_test", key, v=version, payload=[stamp(key, version)] * SIZE)

    def read_all(self, store: Any, location: str) -> dict[str, int]:
        from selectools.audit import read_audit

        found: dict[str, int] = {}
        for record in read_audit(location).records:
            key, version = record["run_id"], int(record["v"])
            check_payload(key, version, record["payload"])
            found[key] = max(found.get(key, 0), version)
        return found

    def count(self, store: Any, location: str) -> int:
        from selectools.audit import read_audit

        return len(read_audit(location).records)


class Baselines:
    """A baseline per key (suite name), replaced by each write; one case per baseline."""

    def write(self, store: Any, key: str, version: int) -> None:
        from selectools.evals import EvalReport
        from selectools.evals.case import CaseResult, CaseVerdict, TestCase

        result = CaseResult(
            case=TestCase(input=stamp(key, version), name="only"),
            verdict=CaseVerdict.PASS,
            output=json.dumps([stamp(key, version)] * SIZE),
        )
        store.save(EvalReport([result], name=key))

    def read_one(self, store: Any, key: str) -> int | None:
        report = store.load(key)
        if report is None:
            return None
        (result,) = report.results
        name, version = result.case.input.split(":")
        if name != key:
            raise Torn(f"baseline {key} holds {name}")
        check_payload(key, int(version), json.loads(result.output))
        return int(version)

    def read_all(self, store: Any, location: str) -> dict[str, int]:
        found = {}
        for key in KEYS:
            version = self.read_one(store, key)
            if version is not None:
                found[key] = version
        return found


class Snapshots(Baselines):
    """Recorded outputs per suite (key), accepted by each write; one case per suite."""

    def read_one(self, store: Any, key: str) -> int | None:
        recorded = store.load(key)
        if not recorded:
            return None
        (entry,) = recorded.values()
        name, version = entry["input"].split(":")
        if name != key:
            raise Torn(f"snapshot {key} holds {name}")
        check_payload(key, int(version), json.loads(entry["output"]))
        return int(version)


class Triples:
    """A triple per write: ``key --v--> "version:" + padding``."""

    def write(self, store: Any, key: str, version: int) -> None:
        from selectools.knowledge_graph import Triple

        store.add([Triple(key, "v", f"{version}:" + "x" * SIZE)])

    def read_all(self, store: Any, location: str) -> dict[str, int]:
        found: dict[str, int] = {}
        for triple in store.all():
            version, pad = triple.object.split(":")
            if pad != "x" * SIZE:
                raise Torn(f"triple {triple.subject} v{version} is torn")
            found[triple.subject] = max(found.get(triple.subject, 0), int(version))
        return found

    def count(self, store: Any, location: str) -> int:
        return int(store.count())


class Traces:
    """A trace per write (run id ``key-version``; the payload in its metadata)."""

    def write(self, store: Any, key: str, version: int) -> None:
        from selectools.trace import AgentTrace

        metadata = {"key": key, "v": version, "payload": [stamp(key, version)] * SIZE}
        store.save(AgentTrace(run_id=f"{key}-{version}", metadata=metadata))

    def read_all(self, store: Any, location: str) -> dict[str, int]:
        found: dict[str, int] = {}
        for trace in store.query():
            key, version = trace.metadata["key"], int(trace.metadata["v"])
            check_payload(key, version, trace.metadata["payload"])
            found[key] = max(found.get(key, 0), version)
        return found

    def count(self, store: Any, location: str) -> int:
        return len(store.query())


RECORDS: dict[str, Any] = {
    "snapshots": Snapshots(),
    "triples": Triples(),
    "traces": Traces(),
    "sessions": Sessions(),
    "checkpoints": Checkpoints(),
    "knowledge": Knowledge(),
    "audit": Audit(),
    "baselines": Baselines(),
}
