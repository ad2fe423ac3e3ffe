"""Trace stores: keep every run's :class:`~selectools.trace.AgentTrace` and find it again.

Three backends share one interface: :class:`InMemoryTraceStore` (a dict, for a
notebook session or a test), :class:`JSONLTraceStore` (one JSON trace per line,
readable with ``jq`` and diffable) and :class:`SQLiteTraceStore` (indexed
queries over many runs). Each can ``save``/``load``/``delete`` a trace, ``query``
by run id, a time range and metadata, and turn its traces into a pandas
DataFrame (one row per run) for a notebook.

``store.observer()`` saves each run as it ends::

    store = SQLiteTraceStore("traces.db")
    agent = Agent(..., config=AgentConfig(observers=[store.observer()]))

Nothing is half-written (every write goes through :mod:`selectools._storage`):
JSONL appends one complete line with a single write and ``fsync`` under a lock
file shared by processes, and rewrites (``delete``) replace the file
atomically; SQLite writes run in transactions. A record that cannot be read (a
line torn by a crash, a damaged row) is skipped by ``query`` and listed in
``store.unreadable``; ``load`` of that run raises :class:`TraceStoreError`
naming it. Each JSONL line carries ``trace_format``
(:data:`JSONL_TRACE_FORMAT`; lines without it read as format 1); a file with a
line of a newer format is neither read nor written: :class:`TraceFormatError`.
"""

from __future__ import annotations

import json
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._display import render
from .._storage import (
    NewerFormatError,
    append_record,
    atomic_write_text,
    file_lock,
    open_sqlite,
    transaction,
)
from ..exceptions import SelectoolsError
from ..observer import AgentObserver
from ..stability import beta
from ..trace import AgentTrace

if TYPE_CHECKING:
    import pandas

    from ..types import AgentResult

__all__ = [
    "JSONL_TRACE_FORMAT",
    "InMemoryTraceStore",
    "JSONLTraceStore",
    "SQLiteTraceStore",
    "TraceFormatError",
    "TraceNotFoundError",
    "TraceStore",
    "TraceStoreError",
    "TraceStoreObserver",
    "TraceSummary",
]

TimeLike = float | int | datetime


class TraceNotFoundError(SelectoolsError, KeyError):
    """``load``/``delete`` of a run id the store does not hold."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        super().__init__(f"no trace with run_id {run_id!r} in this store; see store.query()")

    def __str__(self) -> str:
        return str(self.args[0])


class TraceStoreError(SelectoolsError, ValueError):
    """A stored trace cannot be read (damaged on disk); the store left it as it was."""


class TraceFormatError(TraceStoreError, NewerFormatError):
    """A JSONL trace file holds a line of a newer format: not read, not written to."""


#: the line format :class:`JSONLTraceStore` writes (and the newest it reads)
JSONL_TRACE_FORMAT = 1
_FORMAT_KEY = "trace_format"


def _jsonl_line(trace: AgentTrace) -> str:
    return json.dumps({_FORMAT_KEY: JSONL_TRACE_FORMAT, **trace.to_dict()}, default=str) + "\n"


@dataclass(frozen=True)
class TraceSummary:
    """One stored run at a glance (what ``to_dataframe`` puts in a row)."""

    run_id: str
    parent_run_id: str | None
    started_at: float
    ended_at: float | None
    steps: int
    total_tokens: int
    total_cost_usd: float
    metadata: dict[str, Any]

    @property
    def duration_ms(self) -> float | None:
        return None if self.ended_at is None else (self.ended_at - self.started_at) * 1000.0

    @classmethod
    def of(cls, trace: AgentTrace) -> TraceSummary:
        return cls(
            trace.run_id,
            trace.parent_run_id,
            trace.started_at,
            trace.ended_at,
            len(trace.steps),
            trace.total_tokens,
            trace.total_cost_usd,
            dict(trace.metadata),
        )


def _seconds(value: TimeLike | None) -> float | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise TypeError(f"since/until must be epoch seconds or a datetime, got {type(value).__name__}")


def _matches(
    trace: AgentTrace,
    run_id: str | None,
    since: float | None,
    until: float | None,
    metadata: Mapping[str, Any] | None,
) -> bool:
    if run_id is not None and trace.run_id != run_id:
        return False
    if since is not None and trace.started_at < since:
        return False
    if until is not None and trace.started_at > until:
        return False
    if metadata:
        for key, value in metadata.items():
            if key not in trace.metadata or trace.metadata[key] != value:
                return False
    return True


class TraceStore(ABC):
    """Where traces are kept. Subclasses implement ``save``, ``_all``, ``delete``."""

    #: records the last read skipped because they could not be read (where, and why)
    unreadable: list[str] = []  # noqa: RUF012 - replaced per instance by each read

    @abstractmethod
    def save(self, trace: AgentTrace) -> str:
        """Store ``trace`` (replacing one with the same run id); returns its run id."""

    @abstractmethod
    def delete(self, run_id: str) -> None:
        """Remove a trace; :class:`TraceNotFoundError` when there is none."""

    @abstractmethod
    def _all(self) -> Iterable[AgentTrace]:
        """Every stored trace, in any order."""

    def load(self, run_id: str) -> AgentTrace:
        """The trace of ``run_id``; :class:`TraceNotFoundError` when there is none.

        :class:`TraceStoreError` when that run's record is on disk but unreadable.
        """
        found = self.query(run_id=run_id)
        if not found:
            damaged = [u for u in self.unreadable if repr(run_id) in u]
            if damaged:
                raise TraceStoreError(damaged[0])
            raise TraceNotFoundError(run_id)
        return found[0]

    def query(
        self,
        *,
        run_id: str | None = None,
        since: TimeLike | None = None,
        until: TimeLike | None = None,
        metadata: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> list[AgentTrace]:
        """Traces matching every given filter, oldest first.

        ``since``/``until`` bound the run's start (epoch seconds or a datetime,
        both inclusive); ``metadata`` keeps runs whose ``trace.metadata`` has
        each key with that value; ``limit`` keeps the newest ``limit`` of them.
        """
        lo, hi = _seconds(since), _seconds(until)
        found = [t for t in self._all() if _matches(t, run_id, lo, hi, metadata)]
        found.sort(key=lambda t: t.started_at)
        return found[-limit:] if limit else found

    def summaries(self, **filters: Any) -> list[TraceSummary]:
        """:meth:`query`'s runs as :class:`TraceSummary` rows."""
        return [TraceSummary.of(t) for t in self.query(**filters)]

    def to_dataframe(self, **filters: Any) -> pandas.DataFrame:
        """One row per run (run id, start, duration, steps, tokens, cost, metadata); needs pandas.

        Takes :meth:`query`'s filters.
        """
        return render(self, "dataframe", **filters)

    def observer(self) -> TraceStoreObserver:
        """An observer that saves each run's trace here when the run ends."""
        return TraceStoreObserver(self)

    def __len__(self) -> int:
        return sum(1 for _ in self._all())

    def __contains__(self, run_id: object) -> bool:
        return isinstance(run_id, str) and bool(self.query(run_id=run_id))


class TraceStoreObserver(AgentObserver):
    """Saves every finished run's trace to a :class:`TraceStore`."""

    def __init__(self, store: TraceStore) -> None:
        self.store = store

    def on_run_end(self, run_id: str, result: AgentResult) -> None:
        if result.trace is not None:
            self.store.save(result.trace)


@beta
class InMemoryTraceStore(TraceStore):
    """Traces in a dict, optionally keeping only the newest ``max_traces``."""

    def __init__(self, max_traces: int | None = None) -> None:
        if max_traces is not None and max_traces < 1:
            raise ValueError(f"max_traces must be at least 1 (or None), got {max_traces}")
        self.max_traces = max_traces
        self._traces: dict[str, AgentTrace] = {}
        self._lock = threading.Lock()

    def save(self, trace: AgentTrace) -> str:
        with self._lock:
            self._traces.pop(trace.run_id, None)
            self._traces[trace.run_id] = trace
            if self.max_traces is not None:
                while len(self._traces) > self.max_traces:
                    del self._traces[next(iter(self._traces))]
        return trace.run_id

    def delete(self, run_id: str) -> None:
        with self._lock:
            if self._traces.pop(run_id, None) is None:
                raise TraceNotFoundError(run_id)

    def _all(self) -> list[AgentTrace]:
        with self._lock:
            return list(self._traces.values())

    def load(self, run_id: str) -> AgentTrace:
        with self._lock:
            found = self._traces.get(run_id)
        if found is None:
            raise TraceNotFoundError(run_id)
        return found

    def __repr__(self) -> str:
        return f"InMemoryTraceStore({len(self._traces)} traces)"


@beta
class JSONLTraceStore(TraceStore):
    """One JSON trace per line in ``path`` (created on first save)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._file_lock = self.path.with_name(f".{self.path.name}.lock")
        self.unreadable = []

    def save(self, trace: AgentTrace) -> str:
        line = _jsonl_line(trace).encode()
        with self._lock, file_lock(self._file_lock):
            if trace.run_id in self._ids():
                traces = [t for t in self._read() if t.run_id != trace.run_id]
                self._rewrite([*traces, trace])
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    append_record(fd, line, fsync=True)  # one write: whole or absent
                finally:
                    os.close(fd)
        return trace.run_id

    def delete(self, run_id: str) -> None:
        with self._lock, file_lock(self._file_lock):
            traces = self._read()
            kept = [t for t in traces if t.run_id != run_id]
            if len(kept) == len(traces):
                raise TraceNotFoundError(run_id)
            self._rewrite(kept)

    def _all(self) -> list[AgentTrace]:
        with self._lock:
            return self._read()

    def _ids(self) -> set[str]:
        return {t.run_id for t in self._read()}

    def _read(self) -> list[AgentTrace]:
        if not self.path.exists():
            return []
        traces = []
        unreadable = []
        text = self.path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                found = data.get(_FORMAT_KEY, 1)
                if not isinstance(found, int) or found > JSONL_TRACE_FORMAT:
                    where = f"line {number} of the trace file {self.path}"
                    raise TraceFormatError(where, found, JSONL_TRACE_FORMAT)
                traces.append(AgentTrace.from_dict(data))
            except TraceFormatError:
                raise
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                # a line torn by a crash mid-append, or edited by hand
                unreadable.append(
                    f"line {number} of {self.path} ({_run_id_in(line)}) is not a trace: {exc}"
                )
        self.unreadable = unreadable
        return traces

    def _rewrite(self, traces: list[AgentTrace]) -> None:
        text = "".join(_jsonl_line(t) for t in traces)
        atomic_write_text(self.path, text)

    def __repr__(self) -> str:
        return f"JSONLTraceStore({str(self.path)!r})"


_SCHEMA = """
create table if not exists traces (
    run_id text primary key,
    parent_run_id text,
    started_at real not null,
    ended_at real,
    metadata text not null,
    body text not null
);
create index if not exists traces_started on traces(started_at);
"""


@beta
class SQLiteTraceStore(TraceStore):
    """Traces in an SQLite database; queries use the ``started_at`` index and JSON metadata."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._conn = open_sqlite(
            self.path, _SCHEMA, what="trace store", error=TraceStoreError, durable=False
        )
        self.unreadable = []

    def save(self, trace: AgentTrace) -> str:
        row = (
            trace.run_id,
            trace.parent_run_id,
            trace.started_at,
            trace.ended_at,
            json.dumps(trace.metadata, default=str, sort_keys=True),
            json.dumps(trace.to_dict(), default=str),
        )
        with self._lock, transaction(self._conn):
            self._conn.execute("insert or replace into traces values (?, ?, ?, ?, ?, ?)", row)
        return trace.run_id

    def delete(self, run_id: str) -> None:
        with self._lock, transaction(self._conn):
            gone = self._conn.execute("delete from traces where run_id = ?", (run_id,)).rowcount
        if not gone:
            raise TraceNotFoundError(run_id)

    def _all(self) -> list[AgentTrace]:
        return self.query()

    def query(
        self,
        *,
        run_id: str | None = None,
        since: TimeLike | None = None,
        until: TimeLike | None = None,
        metadata: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> list[AgentTrace]:
        clauses: list[str] = []
        params: list[Any] = []
        if run_id is not None:
            clauses.append("run_id = ?")
            params.append(run_id)
        lo, hi = _seconds(since), _seconds(until)
        if lo is not None:
            clauses.append("started_at >= ?")
            params.append(lo)
        if hi is not None:
            clauses.append("started_at <= ?")
            params.append(hi)
        where = f" where {' and '.join(clauses)}" if clauses else ""
        # newest first when limited: reading stops once ``limit`` runs match, so the newest
        # 10 of a million runs decode 10 rows, not a million
        order = "desc" if limit else "asc"
        sql = f"select run_id, body from traces{where} order by started_at {order}, rowid {order}"
        traces: list[AgentTrace] = []
        unreadable: list[str] = []
        with self._lock:
            rows = self._conn.execute(sql, params)
            for stored_id, body in rows:
                try:
                    trace = AgentTrace.from_dict(json.loads(body))
                except (ValueError, KeyError, TypeError, AttributeError) as exc:
                    unreadable.append(f"trace {stored_id!r} in {self.path} cannot be read: {exc}")
                    continue
                # metadata is compared on the decoded values, as the other stores do
                if not metadata or _matches(trace, None, None, None, metadata):
                    traces.append(trace)
                    if limit and len(traces) == limit:
                        break
            rows.close()
        self.unreadable = unreadable
        return traces[::-1] if limit else traces

    def __len__(self) -> int:
        with self._lock:
            (count,) = self._conn.execute("select count(*) from traces").fetchone()
        return int(count)

    def close(self) -> None:
        self._conn.close()

    def __repr__(self) -> str:
        return f"SQLiteTraceStore({self.path!r})"


def _run_id_in(line: str) -> str:
    """The run id a damaged JSONL line names, for the report (``run_id 'x'``)."""
    import re

    found = re.search(r'"run_id"\s*:\s*"([^"\\]{1,200})"', line)
    return f"run_id {found.group(1)!r}" if found else "no run id readable"
