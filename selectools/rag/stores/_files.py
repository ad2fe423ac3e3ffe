"""What the file-backed stores share: the JSON sidecar of documents, and holding a folder.

Chroma's and Qdrant's local modes keep state in the process that opened the
folder and are not safe with two processes writing at once, so the stores over
them hold the folder's lock file for as long as they are open
(:func:`hold_folder`): a second process waits for the first to close its store.
"""

from __future__ import annotations

import hashlib
import json
import threading
import uuid
import weakref
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from ..._storage import atomic_write_bytes, file_lock, new_file_lock, remove_orphans, try_acquire
from ..document import Document
from ..errors import DocumentLoadError, VectorStoreInUseError


class FolderHold:
    """This process's hold on a folder's lock file, shared by every store over the folder here."""

    _held: ClassVar[dict[Path, tuple[Any, int]]] = {}
    _guard = threading.Lock()

    def __init__(self, folder: Path, timeout: float, remedy: str) -> None:
        if timeout < 0:
            raise ValueError(f"lock_timeout must be >= 0 seconds, got {timeout!r}")
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder.resolve()
        self._released = False
        with self._guard:  # a second store in this process shares the hold (the engine does too)
            lock, count = self._held.get(self.folder, (None, 0))
            if lock is None:
                lock = new_file_lock(self.folder / ".selectools-store.lock", timeout)
                if not try_acquire(lock, timeout):
                    raise VectorStoreInUseError(str(folder), timeout, remedy)
            self._held[self.folder] = (lock, count + 1)

    def release(self) -> None:
        with self._guard:
            if self._released:
                return
            self._released = True
            lock, count = self._held.pop(self.folder)
            if count > 1:
                self._held[self.folder] = (lock, count - 1)
            else:
                lock.release()


def hold_folder(owner: object, folder: Path, timeout: float, remedy: str) -> FolderHold:
    """Hold ``folder`` for ``owner``'s lifetime (or until ``release()``), across processes.

    Waits up to ``timeout`` seconds for another process to close its store over
    the folder, then raises :class:`VectorStoreInUseError` ending with ``remedy``.
    """
    hold = FolderHold(folder, timeout, remedy)
    weakref.finalize(owner, hold.release)
    return hold


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


DOCUMENTS = "documents.json"
#: what a damaged or missing saved store's error tells the user to do
REBUILD = "restore the folder from a backup, or add the documents to a new store and save it"
_Saved = TypeVar("_Saved", bound="SavedByGeneration")


class SavedByGeneration:
    """``save``/``load`` of a store kept in a folder whose ``documents.json`` is written last.

    Each save writes its data file under a new generation, then ``documents.json``
    naming it (the commit), holding the folder's lock file (``_lock_file``). A store
    saved back to the folder it came from first reads what another process saved
    there meanwhile and replays its own changes onto it (``_replay_onto``), so two
    processes adding lose nothing. The store supplies ``_read``, ``_write`` (which
    ends in :meth:`_commit`) and ``_replay_onto``.
    """

    _lock_file: ClassVar[str]
    #: (stem, suffix) of the data files this store writes; older ones are removed on save
    _data_files: ClassVar[tuple[tuple[str, str], ...]]
    _lock: Any
    _origin: tuple[Path, str] | None
    _added: Any
    _deleted: Any
    _cleared: bool
    embedder: Any

    def save(self, path: str | Path) -> None:
        """Write the store to the folder ``path`` (see the class docstring)."""
        folder = Path(path)
        folder.mkdir(parents=True, exist_ok=True)
        with self._lock, file_lock(folder / self._lock_file):
            on_disk = _saved_generation(folder / DOCUMENTS)
            if on_disk is not None and self._origin is not None:
                origin, generation = self._origin
                if origin == folder.resolve() and generation != on_disk:
                    self._replay_onto(type(self)._read(folder, self.embedder))
            self._write(folder)

    @classmethod
    def load(cls: type[_Saved], path: str | Path, embedder: Any = None) -> _Saved:
        """A store saved with :meth:`save`, ready to search, add to and save again."""
        folder = Path(path)
        if not folder.is_dir():
            return cls._read(folder, embedder)  # the error names what is missing
        with file_lock(folder / cls._lock_file):
            return cls._read(folder, embedder)

    @classmethod
    def _read(cls: type[_Saved], folder: Path, embedder: Any) -> _Saved:
        raise NotImplementedError

    def _write(self, folder: Path) -> None:
        raise NotImplementedError

    def _replay_onto(self, current: Any) -> None:
        raise NotImplementedError

    def _commit(
        self,
        folder: Path,
        data_file: tuple[str, str, bytes] | None,
        ids: list[str],
        docs: list[Document],
        extra: dict[str, Any],
    ) -> None:
        """Write ``data_file`` (stem, suffix, bytes) under a new generation, then ``documents.json``.

        ``documents.json`` names the data file and its SHA-256 (``<stem>_file``,
        ``<stem>_sha256``); writing it is the commit, so a process killed before
        it leaves the previous save whole. Older data files and temporaries go last.
        """
        generation = uuid.uuid4().hex
        extra = {**extra, "generation": generation}
        keep = None
        if data_file is not None:
            stem, suffix, data = data_file
            keep = f"{stem}-{generation}{suffix}"
            atomic_write_bytes(folder / keep, data)
            extra[f"{stem}_file"] = keep
            extra[f"{stem}_sha256"] = hashlib.sha256(data).hexdigest()
        atomic_write_bytes(folder / DOCUMENTS, dump_documents(ids, docs, extra))  # the commit
        for stem, suffix in self._data_files:
            for stale in folder.glob(f"{stem}*{suffix}"):
                if stale.name != keep:
                    stale.unlink(missing_ok=True)
            remove_orphans(folder, suffix)
        remove_orphans(folder, ".json")
        self._origin = (folder.resolve(), generation)
        self._added.clear()
        self._deleted.clear()
        self._cleared = False


def read_checked(path: Path, sha256: str | None, what: str) -> bytes:
    """A saved store's data file, checked against the SHA-256 its ``documents.json`` recorded.

    Saves made before checksums were recorded (``sha256`` None) are read unchecked.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DocumentLoadError(
            str(path), f"the {what} file is missing ({exc}); {REBUILD}"
        ) from None
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        raise DocumentLoadError(
            str(path),
            f"the {what} file is damaged (its checksum does not match {DOCUMENTS}); {REBUILD}",
        )
    return data


def _saved_generation(documents: Path) -> str | None:
    """The generation a folder's ``documents.json`` names ("" before saves had one; None: none)."""
    try:
        payload = json.loads(documents.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return ""  # damaged: reading it again (to merge) names the problem
    return str(payload.get("generation", "")) if isinstance(payload, dict) else ""
