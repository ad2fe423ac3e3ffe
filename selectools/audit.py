"""``AuditLogger``: an append-only JSONL audit trail of what an agent did.

Attach it as an observer (``AgentConfig(observers=[AuditLogger("./audit")])``).
Each event is one JSON line with ``event``, ``run_id``, ``ts`` (ISO-8601 UTC)
and the fields of :data:`RECORDED_EVENTS`. Tool arguments follow the
:class:`PrivacyLevel`; response and result content is never written, only
their lengths with ``include_content=True``. Below ``PrivacyLevel.FULL``, API
keys and bearer tokens are masked everywhere in a record, error texts included.

Files live in ``log_dir``: ``audit-YYYY-MM-DD.jsonl`` (UTC date) with
``daily_rotation=True`` (the default), else ``audit.jsonl``. With
``max_bytes``, a file that would grow past it is continued in
``audit-YYYY-MM-DD.1.jsonl``, ``.2``, ... (existing files are never renamed,
so concurrent writers always agree on where to write).

Durability: a record is one ``write()`` of a whole line to a file opened in
append mode, under a thread lock and the folder's lock file (``.audit.lock``,
shared by processes on every OS; see :mod:`selectools._storage`), so records
of threads and processes never interleave. A process killed mid-write
can leave at most one torn final line; :meth:`AuditLogger.read` skips it and
reports it in ``AuditLog.torn_lines`` (the next writer to open the file ends
that line first, so its own records stay whole). ``fsync=True`` also flushes each
record to disk (for power loss; a killed process loses nothing written).

Each record carries ``audit_format`` (:data:`AUDIT_FORMAT`); records without it
(written before it existed) read as format 1. A file holding a record of a
newer format is neither read nor appended to: :class:`AuditFormatError` says
which file and to upgrade.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._display import render
from ._storage import NewerFormatError, append_record, holding, new_file_lock
from .observer import AgentObserver

if TYPE_CHECKING:
    import pandas

    from .policy import PolicyDecision
    from .types import AgentResult, Message
    from .usage import UsageStats

__all__ = [
    "AUDIT_FORMAT",
    "RECORDED_EVENTS",
    "AuditFormatError",
    "AuditLog",
    "AuditLogger",
    "PrivacyLevel",
    "TornLine",
    "scrub_secrets",
]


class PrivacyLevel(str, Enum):
    """How tool arguments appear in the log."""

    FULL = "full"  #: verbatim (development)
    KEYS_ONLY = "keys_only"  #: argument names kept, values "<redacted>" (the default)
    HASHED = "hashed"  #: values replaced by a truncated SHA-256 (verify without exposing)
    NONE = "none"  #: arguments omitted: ``{}``

    def __str__(self) -> str:
        return self.value


#: event -> the fields its records carry (besides ``event``, ``run_id`` and ``ts``)
RECORDED_EVENTS: dict[str, tuple[str, ...]] = {
    "run_start": ("message_count",),
    "run_end": ("iterations", "tool_name", "total_cost_usd", "stop_reason"),
    "tool_start": ("call_id", "tool_name", "tool_args"),
    "tool_end": ("call_id", "tool_name", "duration_ms", "success"),
    "tool_error": ("call_id", "tool_name", "error", "error_type", "duration_ms"),
    "llm_end": ("model", "prompt_tokens", "completion_tokens", "cost_usd"),
    "policy_decision": ("tool_name", "decision", "reason"),
    "error": ("error", "error_type"),
    "guardrail": ("guardrail_name", "side", "action", "reason"),
    "coherence_blocked": ("call_id", "tool_name", "tool_args", "explanation"),
    "output_screening": ("call_id", "tool_name", "safe", "matched_patterns"),
}

#: the record format this version writes (and the newest it reads)
AUDIT_FORMAT = 1
_FORMAT_KEY = "audit_format"


class AuditFormatError(NewerFormatError):
    """An audit file holds a record of a newer format: not read, not appended to."""


def _check_format(record: dict[str, Any], path: Path, line: int) -> None:
    found = record.get(_FORMAT_KEY, 1)
    if not isinstance(found, int) or found > AUDIT_FORMAT:
        raise AuditFormatError(f"line {line} of the audit file {path}", found, AUDIT_FORMAT)


_HASH_CHARS = 16
_SECRETS = re.compile(
    r"(?P<bearer>\b[Bb]earer\s+)[A-Za-z0-9._~+/=-]{8,}"
    r"|\b(?:sk|pk|rk)-[A-Za-z0-9_-]{12,}"
    r"|\bAKIA[0-9A-Z]{16}\b"
    r"|\bAIza[0-9A-Za-z_-]{30,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}"
    r"|\bxox[abpr]-[A-Za-z0-9-]{10,}"
    r"|(?P<label>\b(?:api[_-]?key|apikey|access[_-]?token|secret|password|x-api-key)"
    r"[\"']?\s*[:=]\s*[\"']?)(?!<redacted>(?:[\s\"',;]|$))[^\s\"',;]{4,}",  # "<redacted>" stays
    re.IGNORECASE,
)


def scrub_secrets(text: str) -> str:
    """``text`` with API keys, bearer tokens and ``key=...`` secrets replaced by ``<secret>``."""

    def mask(match: re.Match[str]) -> str:
        return (match.group("bearer") or match.group("label") or "") + "<secret>"

    return _SECRETS.sub(mask, text)


@dataclass(frozen=True)
class TornLine:
    """A line that is not a complete JSON record (a writer killed mid-line)."""

    path: str
    line_number: int
    text: str


@dataclass
class AuditLog(Sequence[dict[str, Any]]):
    """The records read from an audit directory, oldest file first, and the torn lines skipped."""

    records: list[dict[str, Any]]
    torn_lines: list[TornLine] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, index: Any) -> Any:
        return self.records[index]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.records)

    def to_dataframe(self) -> pandas.DataFrame:
        """One row per record; ``ts`` parsed to UTC timestamps (needs pandas)."""
        return render(self, "dataframe")

    def __repr__(self) -> str:
        torn = f", {len(self.torn_lines)} torn line(s) skipped" if self.torn_lines else ""
        return f"AuditLog({len(self.records)} records from {len(self.files)} file(s){torn})"


class _Reader:
    """``read`` that works on the class (``AuditLogger.read(dir)``) and on a logger (``audit.read()``)."""

    def __get__(self, obj: AuditLogger | None, owner: type) -> Any:
        if obj is None:
            return read_audit
        return lambda **filters: read_audit(obj.log_dir, **filters)


class AuditLogger(AgentObserver):
    """Writes one JSON line per audited event (see the module docstring)."""

    read = _Reader()

    def __init__(
        self,
        log_dir: str | os.PathLike[str] = "./audit",
        privacy: PrivacyLevel | str = PrivacyLevel.KEYS_ONLY,
        daily_rotation: bool = True,
        include_content: bool = False,
        *,
        max_bytes: int | None = None,
        fsync: bool = False,
    ) -> None:
        try:
            self.privacy = PrivacyLevel(privacy)
        except ValueError:
            raise ValueError(
                f"AuditLogger: privacy must be a PrivacyLevel (FULL, KEYS_ONLY, HASHED, NONE), "
                f"got {privacy!r}"
            ) from None
        if max_bytes is not None and (not isinstance(max_bytes, int) or max_bytes < 1):
            raise ValueError(
                f"AuditLogger: max_bytes must be an int >= 1 or None, got {max_bytes!r}"
            )
        self.log_dir = Path(log_dir)
        self.daily_rotation = daily_rotation
        self.include_content = include_content
        self.max_bytes = max_bytes
        self.fsync = fsync
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._fd_path: Path | None = None
        self._fd_pid = 0
        self._dir_lock: Any = None  # the folder's lock file, shared with other processes
        self._segment = 0
        self._day = ""

    # -- writing ---------------------------------------------------------------
    def _base_name(self, day: str) -> str:
        return f"audit-{day}" if self.daily_rotation else "audit"

    def _path(self, day: str, segment: int) -> Path:
        suffix = f".{segment}" if segment else ""
        return self.log_dir / f"{self._base_name(day)}{suffix}.jsonl"

    def current_path(self) -> Path:
        """The file the next record goes to (before any size rollover it triggers)."""
        return self._path(_today(), self._segment)

    def write(self, event: str, run_id: str, **fields: Any) -> None:
        """Append one record (``event``, ``run_id``, ``ts`` then ``fields``)."""
        moment = datetime.now(timezone.utc)
        record: dict[str, Any] = {"event": event, "run_id": run_id, **fields}
        record[_FORMAT_KEY] = AUDIT_FORMAT
        record["ts"] = moment.strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")
        text = json.dumps(record, ensure_ascii=False, default=str)
        if self.privacy is not PrivacyLevel.FULL:
            text = scrub_secrets(text)
        data = (text + "\n").encode("utf-8")
        day = moment.strftime("%Y-%m-%d")
        with self._lock:
            self._append(day, data)

    def _append(self, day: str, data: bytes) -> None:
        if day != self._day:
            self._day, self._segment = day, 0  # a new day starts at segment 0
        path = self._path(day, self._segment)
        if self._dir_lock is None:
            self._dir_lock = new_file_lock(self.log_dir / ".audit.lock")
        with holding(self._dir_lock):
            fd = self._fd
            if fd is None or self._fd_path != path or self._fd_pid != os.getpid():
                fd = self._open(path)
            while self.max_bytes is not None:
                size = os.fstat(fd).st_size
                if not size or size + len(data) <= self.max_bytes:
                    break
                self._segment += 1  # full: continue in the next segment
                fd = self._open(self._path(day, self._segment))
            # a line torn by a killed writer is ended first, so this record stays whole
            append_record(fd, data, fsync=self.fsync)

    def _open(self, path: Path) -> int:
        self.close()
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            _check_first_record(fd, path)  # never append to a file of a newer format
        except BaseException:
            os.close(fd)
            raise
        self._fd, self._fd_path, self._fd_pid = fd, path, os.getpid()
        return fd

    def close(self) -> None:
        """Close the open file (the next record reopens it)."""
        fd, self._fd = self._fd, None
        if fd is not None and self._fd_pid == os.getpid():
            os.close(fd)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.update(_lock=None, _fd=None, _fd_path=None, _fd_pid=0)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"AuditLogger(log_dir={str(self.log_dir)!r}, privacy=PrivacyLevel.{self.privacy.name}, "
            f"daily_rotation={self.daily_rotation})"
        )

    # -- privacy -----------------------------------------------------------------
    def _args(self, args: Mapping[str, Any] | None) -> dict[str, Any]:
        values = dict(args or {})
        privacy = self.privacy
        if privacy is PrivacyLevel.FULL:
            return values
        if privacy is PrivacyLevel.NONE:
            return {}
        if privacy is PrivacyLevel.KEYS_ONLY:
            return dict.fromkeys(values, "<redacted>")
        return {key: _hash(value) for key, value in values.items()}

    # -- observer events -----------------------------------------------------------
    def on_run_start(self, run_id: str, messages: list[Message], system_prompt: str) -> None:
        self.write("run_start", run_id, message_count=len(messages))

    def on_run_end(self, run_id: str, result: AgentResult) -> None:
        self.write(
            "run_end",
            run_id,
            iterations=result.iterations,
            tool_name=result.tool_name,
            total_cost_usd=result.usage.total_cost_usd if result.usage is not None else 0.0,
            stop_reason=result.stop_reason,
        )

    def on_tool_start(
        self, run_id: str, call_id: str, tool_name: str, tool_args: dict[str, Any]
    ) -> None:
        self.write(
            "tool_start",
            run_id,
            call_id=call_id,
            tool_name=tool_name,
            tool_args=self._args(tool_args),
        )

    def on_tool_end(
        self, run_id: str, call_id: str, tool_name: str, result: str, duration_ms: float
    ) -> None:
        extra = {"result_length": len(result or "")} if self.include_content else {}
        self.write(
            "tool_end",
            run_id,
            call_id=call_id,
            tool_name=tool_name,
            duration_ms=round(duration_ms, 3),
            success=True,
            **extra,
        )

    def on_tool_error(
        self,
        run_id: str,
        call_id: str,
        tool_name: str,
        error: BaseException,
        tool_args: dict[str, Any],
        duration_ms: float,
    ) -> None:
        self.write(
            "tool_error",
            run_id,
            call_id=call_id,
            tool_name=tool_name,
            error=str(error),
            error_type=type(error).__name__,
            duration_ms=round(duration_ms, 3),
        )

    def on_llm_end(self, run_id: str, response: str, usage: UsageStats) -> None:
        extra = {"response_length": len(response)} if self.include_content else {}
        self.write(
            "llm_end",
            run_id,
            model=usage.model,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            cost_usd=usage.cost_usd,
            **extra,
        )

    def on_policy_decision(
        self,
        run_id: str,
        tool_name: str,
        decision: PolicyDecision,
        reason: str,
        tool_args: dict[str, Any],
    ) -> None:
        value = getattr(decision, "value", decision)
        self.write("policy_decision", run_id, tool_name=tool_name, decision=value, reason=reason)

    def on_error(self, run_id: str, error: BaseException, context: dict[str, Any]) -> None:
        self.write(
            "error",
            run_id,
            error=str(error),
            error_type=type(error).__name__,
            phase=context.get("phase"),
        )

    def on_guardrail_triggered(
        self, run_id: str, guardrail_name: str, side: str, action: str, reason: str
    ) -> None:
        self.write(
            "guardrail",
            run_id,
            guardrail_name=guardrail_name,
            side=side,
            action=action,
            reason=reason,
        )

    def on_coherence_blocked(
        self,
        run_id: str,
        call_id: str,
        tool_name: str,
        tool_args: dict[str, Any],
        explanation: str,
    ) -> None:
        self.write(
            "coherence_blocked",
            run_id,
            call_id=call_id,
            tool_name=tool_name,
            tool_args=self._args(tool_args),
            explanation=explanation,
        )

    def on_tool_output_screened(
        self, run_id: str, call_id: str, tool_name: str, safe: bool, matched_patterns: list[str]
    ) -> None:
        self.write(
            "output_screening",
            run_id,
            call_id=call_id,
            tool_name=tool_name,
            safe=safe,
            matched_patterns=list(matched_patterns),
        )


def _check_first_record(fd: int, path: Path) -> None:
    """Raise :class:`AuditFormatError` when the file's first record is of a newer format."""
    os.lseek(fd, 0, os.SEEK_SET)  # appends still go to the end (O_APPEND)
    first = os.read(fd, 65536).split(b"\n", 1)[0] + b"\n"
    record = _parse(first)
    if record is not None:
        _check_format(record, path, 1)


def _hash(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:_HASH_CHARS]


def _today() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d")


_FILE = re.compile(r"^audit(?:-(\d{4}-\d{2}-\d{2}))?(?:\.(\d+))?\.jsonl$")


def read_audit(
    log_dir: str | os.PathLike[str] = "./audit",
    *,
    event: str | Sequence[str] | None = None,
    run_id: str | None = None,
    since: str | datetime | None = None,
    until: str | datetime | None = None,
) -> AuditLog:
    """Read every audit file of ``log_dir`` (oldest first), keeping records that match the filters.

    ``since``/``until`` are dates (``"2026-03-12"``) or datetimes, inclusive,
    compared with each record's ``ts``. Lines that are not complete JSON
    records are skipped and listed in ``AuditLog.torn_lines``; a record of a
    newer format raises :class:`AuditFormatError`.
    """
    root = Path(log_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"no audit directory at {str(root)!r}; pass AuditLogger's log_dir")
    found = []
    for path in root.iterdir():
        match = _FILE.match(path.name)
        if match and path.is_file():
            found.append((match.group(1) or "", int(match.group(2) or 0), path))
    found.sort()
    wanted = {event} if isinstance(event, str) else set(event) if event is not None else None
    low = _bound(since, start=True)
    high = _bound(until, start=False)
    records: list[dict[str, Any]] = []
    torn: list[TornLine] = []
    for _day, _segment, path in found:
        with open(path, "rb") as handle:
            for number, raw in enumerate(handle, 1):
                record = _parse(raw)
                if record is None:
                    if raw.strip():
                        torn.append(TornLine(str(path), number, raw.decode("utf-8", "replace")))
                    continue
                _check_format(record, path, number)
                if wanted is not None and record.get("event") not in wanted:
                    continue
                if run_id is not None and record.get("run_id") != run_id:
                    continue
                ts = str(record.get("ts", ""))
                if (low and ts < low) or (high and ts > high):
                    continue
                records.append(record)
    return AuditLog(records, torn, [str(p) for _, _, p in found])


def _parse(raw: bytes) -> dict[str, Any] | None:
    if not raw.endswith(b"\n"):
        return None  # the last line of a killed writer
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) and "event" in value else None


def _bound(value: str | datetime | None, start: bool) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")
    text = str(value)
    if len(text) == 10:  # a date: the whole day
        return text + ("T00:00:00.000000+00:00" if start else "T23:59:59.999999+00:00")
    return text
