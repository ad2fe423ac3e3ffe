"""``FileSandbox``: the one directory the file tools may touch.

A model chooses the paths a file tool opens, so a path is never checked and
then opened by name (a directory swapped for a symlink between the two would
lead outside). Instead every path is walked from an open descriptor of the
root, one component at a time: each directory is opened relative to the one
before it with ``O_NOFOLLOW | O_DIRECTORY`` (``openat``), ``..`` pops back to
a descriptor already held (the kernel's ``..`` is never used), and a symlink
is read and resolved *by the walk*, inside the root — its target is walked the
same way, and one that leads out is refused. A swap during the walk makes an
``O_NOFOLLOW`` open fail, and the walk looks at the component again: whatever
it finds, it never leaves the root. Reads, writes (temp file and rename in the
same directory descriptor), listings and checks all go through that walk.

Refused with :class:`PathEscapeError`: ``..`` leaving the root, absolute paths
elsewhere, symlinks that point outside, percent-encoded or backslash traversal,
NUL bytes. Not covered: a directory *moved* out of the root by another process
while a call is inside it (the descriptor follows the directory); the root
itself is trusted. ``root=None`` turns confinement off (paths are then the
user's own: relative to the working directory, absolute allowed).

Writes are atomic (temp file, fsync, rename), so a crash never leaves half a file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote

from ._errors import PathEscapeError, ReadOnlyError, ToolboxError

__all__ = ["FileSandbox", "Located"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC | os.O_NONBLOCK
_MAX_SYMLINKS = 40
_MAX_RETRIES = 100  # a component that keeps changing under the walk


def _segments(path: str) -> list[str]:
    return path.replace("\\", "/").split("/")


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


@dataclass(frozen=True)
class Located:
    """Where a walk ended: ``name`` inside the open directory ``dir_fd``.

    ``display`` is the path from the root, as the tools print it; ``name`` is
    ``"."`` when the path is the root itself, and may not exist yet.
    """

    dir_fd: int
    name: str
    display: str


@dataclass(frozen=True)
class FileSandbox:
    """Confine file tools to ``root`` (default ``"."``: the working directory at call time).

    ``root=None`` means no confinement. ``read_only`` refuses every write;
    ``max_read_bytes`` caps what ``read_file`` returns in one piece (larger
    files: ``read_file_stream``).
    """

    root: str | os.PathLike[str] | None = "."
    read_only: bool = False
    max_read_bytes: int = 1_000_000

    @property
    def confined(self) -> bool:
        return self.root is not None

    def root_path(self) -> str:
        """The root's real path (symlinks resolved); it must be an existing directory."""
        if self.root is None:
            return os.sep
        base = os.fspath(self.root)
        real = os.path.realpath(base)
        if not os.path.isdir(real):
            raise ToolboxError(
                f"The file tools' root {base!r} is not an existing directory; "
                "create it or pass another root (root=None: no confinement)"
            )
        return real

    # -- the walk ---------------------------------------------------------------------

    def _components(self, path: str, root: str) -> list[str]:
        """``path`` as components relative to the root, after the checks that need no I/O."""
        if not isinstance(path, str):
            raise PathEscapeError(repr(path), root, "the path must be a string")
        if "\x00" in path:
            raise PathEscapeError(path, root, "it contains a NUL byte")
        if not self.confined:
            return [p for p in os.path.join(os.getcwd(), path).split("/") if p]
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
        if os.path.isabs(path):
            # An absolute path is accepted when it names something inside the root
            # (also through the alias the root was given as); it is then walked
            # from the root like any relative path, so this translation cannot leak.
            candidates = {os.path.normpath(path), os.path.realpath(path)}
            for candidate in candidates:
                for base in {root, os.path.abspath(os.fspath(self.root or os.sep))}:
                    if _within(candidate, base):
                        return os.path.relpath(candidate, base).split(os.sep)
            reason = "an absolute path outside the root"
            if ".." in _segments(path):
                reason = "'..' leaves the root"
            raise PathEscapeError(path, root, reason)
        parts = path.split("/")
        depth = 0
        for part in parts:  # a lexical '..' above the root is refused before any I/O
            depth += -1 if part == ".." else 0 if part in ("", ".") else 1
            if depth < 0:
                raise PathEscapeError(path, root, "'..' leaves the root")
        return parts

    @contextlib.contextmanager
    def locate(self, path: str, *, create_dirs: bool = False) -> Iterator[Located]:
        """Walk ``path`` from the root; the descriptors stay open for the ``with`` block.

        Every symlink on the way (the last component included) is resolved inside
        the root. A missing last component is fine (``create_dirs`` also creates
        missing directories before it); a missing directory is FileNotFoundError.
        """
        root = self.root_path()
        todo = self._components(path, root)
        stack: list[tuple[int, str]] = [(os.open(root, _DIR_FLAGS & ~os.O_NOFOLLOW), "")]
        hops = retries = 0
        try:
            while todo:
                part = todo.pop(0)
                if part in ("", "."):
                    continue
                if part == "..":
                    if len(stack) > 1:
                        os.close(stack.pop()[0])
                    elif self.confined:
                        reason = "a symlink on the path points outside the root"
                        raise PathEscapeError(
                            path, root, reason if hops else "'..' leaves the root"
                        )
                    continue
                dir_fd = stack[-1][0]
                last = not any(p not in ("", ".") for p in todo)
                try:
                    info = os.stat(part, dir_fd=dir_fd, follow_symlinks=False)
                except FileNotFoundError:
                    if last:
                        todo.insert(0, part)
                        break
                    if not create_dirs:
                        raise FileNotFoundError(
                            errno.ENOENT, f"No such directory: {part!r} on the path {path!r}"
                        ) from None
                    with contextlib.suppress(FileExistsError):
                        self._check_writable(path)
                        os.mkdir(part, 0o777, dir_fd=dir_fd)
                    todo.insert(0, part)
                    continue
                if stat.S_ISLNK(info.st_mode):
                    hops += 1
                    if hops > _MAX_SYMLINKS:
                        raise PathEscapeError(path, root, "too many symlinks on the path")
                    try:
                        target = os.readlink(part, dir_fd=dir_fd)
                    except OSError:  # swapped back since the stat: look again
                        retries = self._retry(retries, path, root)
                        todo.insert(0, part)
                        continue
                    if target.startswith("/"):
                        if self.confined and not _within(os.path.normpath(target), root):
                            raise PathEscapeError(
                                path, root, "a symlink on the path points outside the root"
                            )
                        for fd, _ in stack[1:]:
                            os.close(fd)
                        del stack[1:]
                        target = os.path.relpath(os.path.normpath(target), root)
                    todo[:0] = target.split("/")
                    continue
                if last:
                    todo.insert(0, part)
                    break
                try:
                    stack.append((os.open(part, _DIR_FLAGS, dir_fd=dir_fd), part))
                except OSError as exc:
                    if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT):
                        raise
                    if exc.errno == errno.ENOTDIR and stat.S_ISREG(info.st_mode):
                        raise NotADirectoryError(
                            errno.ENOTDIR, f"{part!r} on the path {path!r} is a file"
                        ) from None
                    retries = self._retry(retries, path, root)  # it changed since the stat
                    todo.insert(0, part)
            name = next((p for p in todo if p not in ("", ".")), ".")
            names = [n for _, n in stack[1:]] + ([name] if name != "." else [])
            display = "/".join(names) or "."
            if not self.confined:
                display = self._display_unconfined("/" + "/".join(names))
            yield Located(stack[-1][0], name, display)
        finally:
            for fd, _ in stack:
                os.close(fd)

    @staticmethod
    def _retry(retries: int, path: str, root: str) -> int:
        if retries >= _MAX_RETRIES:
            raise PathEscapeError(path, root, "the path keeps changing while it is opened")
        return retries + 1

    @staticmethod
    def _display_unconfined(absolute: str) -> str:
        cwd = os.getcwd()
        return os.path.relpath(absolute, cwd) if _within(absolute, cwd) else absolute

    def _check_writable(self, path: str) -> None:
        if self.read_only:
            raise ReadOnlyError(
                f"Writing {path!r} refused: the file tools are read-only "
                "(configured with read_only=True)"
            )

    # -- operations -------------------------------------------------------------------

    def stat(self, path: str) -> tuple[os.stat_result | None, str]:
        """``(stat of the file or directory, or None if missing, display path)``."""
        with self.locate(path) as at:
            try:
                return os.stat(at.name, dir_fd=at.dir_fd, follow_symlinks=False), at.display
            except FileNotFoundError:
                return None, at.display

    def open_file(self, path: str) -> tuple[int, os.stat_result]:
        """A read-only descriptor of the regular file at ``path``, and its stat."""
        with self.locate(path) as at:
            if at.name == ".":
                raise IsADirectoryError(f"{path!r} is a directory; use list_dir or list_files")
            try:
                fd = os.open(at.name, _FILE_FLAGS, dir_fd=at.dir_fd)
            except FileNotFoundError:
                raise FileNotFoundError(
                    f"No such file: {path!r} (relative to the tools' root)"
                ) from None
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise PathEscapeError(path, self.root_path(), "it became a symlink") from None
                if exc.errno == errno.EISDIR:
                    raise IsADirectoryError(f"{path!r} is a directory") from None
                raise
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise IsADirectoryError(f"{path!r} is {kind}; use list_dir or list_files")
        os.set_blocking(fd, True)
        return fd, info

    def open_dir(self, path: str) -> tuple[int, str]:
        """A descriptor of the directory at ``path`` (caller closes it) and its display path."""
        with self.locate(path) as at:
            try:
                fd = os.open(at.name, _DIR_FLAGS, dir_fd=at.dir_fd)
            except FileNotFoundError:
                raise FileNotFoundError(f"No such directory: {path!r}") from None
            except OSError as exc:
                if exc.errno in (errno.ENOTDIR, errno.ELOOP):
                    raise NotADirectoryError(f"{path!r} is not a directory") from None
                raise
            return fd, at.display

    def write_text(self, path: str, text: str, *, encoding: str, append: bool) -> str:
        """Write (or append) atomically; returns the display path.

        Temp file and rename happen in the same directory descriptor, so the file
        written is the one the walk found, whatever happens to the names around it.
        """
        self._check_writable(path)
        data = text.encode(encoding)
        with self.locate(path, create_dirs=True) as at:
            if at.name == ".":
                raise IsADirectoryError(f"{path!r} is a directory, not a file")
            existing = b""
            mode = 0o644
            try:
                info = os.stat(at.name, dir_fd=at.dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                info = None
            if info is not None:
                if stat.S_ISDIR(info.st_mode):
                    raise IsADirectoryError(f"{at.display!r} is a directory, not a file")
                mode = info.st_mode & 0o7777
                if append:
                    fd = os.open(at.name, _FILE_FLAGS, dir_fd=at.dir_fd)
                    os.set_blocking(fd, True)
                    with os.fdopen(fd, "rb") as handle:
                        existing = handle.read()
            tmp = f".{at.name}.{secrets.token_hex(6)}.tmp"
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = os.open(tmp, flags, 0o600, dir_fd=at.dir_fd)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(existing + data)
                    handle.flush()
                    os.fchmod(handle.fileno(), mode)
                    os.fsync(handle.fileno())
                os.replace(tmp, at.name, src_dir_fd=at.dir_fd, dst_dir_fd=at.dir_fd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=at.dir_fd)
                raise
            os.fsync(at.dir_fd)
            return at.display


DEFAULT_SANDBOX = FileSandbox()
