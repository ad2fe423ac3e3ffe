"""The errors RAG raises: each says what was wrong and what to do about it."""

from __future__ import annotations

import errno
import importlib
from types import ModuleType

from .._install import install_hint
from .._storage import LockTimeout
from ..exceptions import SelectoolsError

__all__ = [
    "DimensionMismatchError",
    "DocumentLoadError",
    "DocumentNotFoundError",
    "MissingDependencyError",
    "RAGError",
    "UnknownVectorStoreError",
    "VectorStoreInUseError",
    "require_extra",
]


class RAGError(SelectoolsError):
    """Base class of the RAG errors."""


class DimensionMismatchError(RAGError, ValueError):
    """An embedding whose length differs from the store's vectors."""

    def __init__(self, expected: int, got: int, where: str) -> None:
        self.expected = expected
        self.got = got
        super().__init__(
            f"{where}: embedding has {got} dimensions but the store holds {expected}-dimensional "
            "vectors; use the same embedder for adding and searching (or a new store)"
        )


class VectorStoreInUseError(RAGError, LockTimeout):
    """A local store's folder stayed open in another process for longer than ``lock_timeout``."""

    def __init__(self, where: str, waited: float, remedy: str) -> None:
        self.where = where
        super().__init__(
            f"{where} is open in another process (waited {waited:g}s for it to close). "
            f"Close the store there (store.close()), or {remedy}"
        )


class UnknownVectorStoreError(RAGError, ValueError):
    """``VectorStore.create`` got a name it does not know."""

    def __init__(self, kind: str, known: list[str]) -> None:
        self.kind = kind
        self.known = known
        super().__init__(f"unknown vector store {kind!r}; choose one of: {', '.join(known)}")


class DocumentLoadError(RAGError, OSError):
    """A file could not be read or parsed: ``path`` (also ``filename``) says which, ``reason`` why."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"cannot load {path}: {reason}")
        self.filename = path

    def __str__(self) -> str:
        # OSError's own str() would print "[Errno None] None: 'path'" once filename is set
        return str(self.args[0])

    def __reduce__(self) -> tuple[object, ...]:
        # pickle would call cls(message); a worker process must send back path and reason
        return (_rebuild_load_error, (type(self), self.path, self.reason))


def _rebuild_load_error(cls: type[DocumentLoadError], path: str, reason: str) -> DocumentLoadError:
    error = DocumentLoadError.__new__(cls)
    DocumentLoadError.__init__(error, path, reason)
    if issubclass(cls, FileNotFoundError):
        error.errno, error.strerror = errno.ENOENT, reason
    return error


class DocumentNotFoundError(DocumentLoadError, FileNotFoundError):
    """The file or folder to load is not there (``except FileNotFoundError`` catches it too)."""

    def __init__(self, path: str, reason: str = "no such file") -> None:
        super().__init__(path, reason)
        self.errno = errno.ENOENT
        self.strerror = reason


class MissingDependencyError(RAGError, ImportError):
    """An optional package is not installed; the message names the extra to install."""


def require_extra(module: str, extra: str, feature: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` naming ``extra``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{feature} needs the '{module.split('.')[0]}' package, which is not installed. "
            f"Install it with: {install_hint(extra)}"
        ) from exc
