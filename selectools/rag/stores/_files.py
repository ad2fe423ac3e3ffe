"""The JSON sidecar of documents the file-backed stores share."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..document import Document
from ..errors import DocumentLoadError


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
