"""Atomic file writes and the JSON sidecar of documents the file-backed stores share."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ..document import Document
from ..errors import DocumentLoadError


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` all or nothing (temp file, fsync, rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def dump_documents(ids: list[str], docs: list[Document], extra: dict[str, Any]) -> bytes:
    payload = {
        "version": 1,
        **extra,
        "documents": [
            {"id": i, "text": d.text, "metadata": d.metadata}
            for i, d in zip(ids, docs, strict=True)
        ],
    }
    return json.dumps(payload, ensure_ascii=False).encode("utf-8")


def load_documents(path: Path) -> tuple[list[str], list[Document], dict[str, Any]]:
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DocumentLoadError(str(path), "no saved store here (call save() first)") from None
    except (OSError, ValueError) as exc:
        raise DocumentLoadError(str(path), f"not a saved store ({exc})") from None
    if payload.get("version") != 1:
        raise DocumentLoadError(
            str(path), f"saved by an unknown version ({payload.get('version')!r})"
        )
    rows = payload.pop("documents")
    ids = [row["id"] for row in rows]
    docs = [Document(text=row["text"], metadata=row["metadata"]) for row in rows]
    return ids, docs, payload
