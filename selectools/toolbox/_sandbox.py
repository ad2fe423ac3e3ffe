"""``FileSandbox``: the one directory the file tools may touch.

A model chooses the paths a file tool opens, so every path is resolved against
the sandbox's root and refused unless its *real* location (symlinks followed)
is inside that root. Refused with :class:`PathEscapeError`: ``..`` leaving the
root, absolute paths elsewhere, symlinks (anywhere on the path) that point
outside, percent-encoded or backslash traversal, NUL bytes. Files are opened
with ``O_NOFOLLOW`` so a symlink swapped in after the check is refused too, and
writes are atomic (temp file, fsync, rename), so a crash never leaves half a file.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from ._errors import PathEscapeError, ReadOnlyError, ToolboxError

__all__ = ["FileSandbox"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _segments(path: str) -> list[str]:
    return path.replace("\\", "/").split("/")


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


@dataclass(frozen=True)
class FileSandbox:
    """Confine file tools to ``root`` (default: the working directory at call time).

    ``read_only`` refuses every write; ``max_read_bytes`` caps what ``read_file``
    returns in one piece (larger files: ``read_file_stream``).
    """

    root: str | os.PathLike[str] | None = None
    read_only: bool = False
    max_read_bytes: int = 1_000_000

    def root_path(self) -> str:
        """The root's real path (symlinks resolved); it must be an existing directory."""
        base = os.fspath(self.root) if self.root is not None else os.getcwd()
        real = os.path.realpath(base)
        if not os.path.isdir(real):
            raise ToolboxError(
                f"The file tools' root {base!r} is not an existing directory; "
                "create it or pass another root"
            )
        return real

    def resolve(self, path: str) -> Path:
        """The real path of ``path`` (relative to the root), or PathEscapeError."""
        root = self.root_path()
        if not isinstance(path, str):
            raise PathEscapeError(repr(path), root, "the path must be a string")
        if "\x00" in path:
            raise PathEscapeError(path, root, "it contains a NUL byte")
        decoded = path
        for _ in range(3):  # double and triple encoding too
            step = unquote(decoded)
            if step == decoded:
                break
            decoded = step
        if decoded != path and (
            ".." in _segments(decoded) or decoded.startswith(("/", "\\")) or "\x00" in decoded
        ):
            raise PathEscapeError(path, root, "percent-encoded traversal")
        if "\\" in path and ".." in _segments(path):
            raise PathEscapeError(path, root, "backslash traversal")
        candidate = os.path.join(root, path)  # an absolute path replaces the root
        real = os.path.realpath(candidate)  # symlinks resolved as the kernel would
        if not _within(real, root):
            if _within(os.path.normpath(candidate), root):
                reason = "a symlink on the path points outside the root"
            elif os.path.isabs(path) and ".." not in _segments(path):
                reason = "an absolute path outside the root"
            else:
                reason = "'..' leaves the root"
            raise PathEscapeError(path, root, reason)
        return Path(real)

    def display(self, real: Path) -> str:
        """``real`` relative to the root, as the tools print it."""
        rel = os.path.relpath(real, self.root_path())
        return Path(rel).as_posix()

    # -- I/O --------------------------------------------------------------------------

    def open_read(self, real: Path) -> int:
        """A read-only descriptor of ``real``; a symlink swapped in since the check is refused."""
        try:
            return os.open(real, os.O_RDONLY | _NOFOLLOW)
        except OSError as exc:
            if real.is_symlink():
                raise PathEscapeError(str(real), self.root_path(), "it became a symlink") from exc
            raise

    def write_text(self, real: Path, text: str, *, encoding: str, append: bool) -> None:
        """Write (or append) atomically: temp file in the same directory, fsync, rename."""
        if self.read_only:
            raise ReadOnlyError(
                f"Writing {self.display(real)!r} refused: the file tools are read-only "
                "(configured with read_only=True)"
            )
        data = text.encode(encoding)
        if real.is_dir():
            raise IsADirectoryError(f"{self.display(real)!r} is a directory, not a file")
        real.parent.mkdir(parents=True, exist_ok=True)
        # mkdir may have created directories: check again that nothing escaped.
        self.resolve(str(real))
        existing = b""
        mode = 0o644
        if real.exists():
            mode = real.stat().st_mode & 0o7777
            if append:
                fd = self.open_read(real)
                with os.fdopen(fd, "rb") as handle:
                    existing = handle.read()
        fd, tmp = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(existing + data)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, real)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        dir_fd = os.open(real.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


DEFAULT_SANDBOX = FileSandbox()
