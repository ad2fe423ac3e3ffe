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
itself is trusted. Where there is no ``openat`` (Windows) the same walk runs
on path strings: the same rules, without the guarantee against a racing swap.
``root=None`` turns confinement off (paths are then the
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

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC
_FILE_FLAGS = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | getattr(os, "O_NONBLOCK", 0)
#: Walk by descriptor where the platform has openat and friends (Linux, macOS, BSD).
#: Elsewhere (Windows) the same walk runs on path strings: still confined, but
#: without the guarantee against a swap racing the walk.
BY_DESCRIPTOR = {os.open, os.stat, os.mkdir, os.readlink, os.unlink, os.rename} <= set(
    os.supports_dir_fd
) and hasattr(os, "fwalk")
_MAX_SYMLINKS = 40
_MAX_RETRIES = 100  # a component that keeps changing under the walk


def _segments(path: str) -> list[str]:
    return path.replace("\\", "/").split("/")


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


@dataclass(frozen=True)
class Dir:
    """A directory reached by the walk: an open descriptor, or (without openat) its path."""

    fd: int | None
    path: str

    @classmethod
    def open(cls, path: str, name: str | None = None, parent: Dir | None = None) -> Dir:
        """The directory ``name`` inside ``parent`` (or at ``path``), never through a symlink."""
        if not BY_DESCRIPTOR:
            full = path if parent is None or name is None else os.path.join(parent.path, name)
            if parent is not None and os.path.islink(full):
                raise OSError(errno.ELOOP, "a symlink", full)
            if not os.path.isdir(full):
                raise OSError(errno.ENOTDIR if os.path.exists(full) else errno.ENOENT, "", full)
            return cls(None, full)
        if parent is None or name is None:
            return cls(os.open(path, _DIR_FLAGS & ~_NOFOLLOW), path)
        return cls(os.open(name, _DIR_FLAGS, dir_fd=parent.fd), os.path.join(parent.path, name))

    def at(self, name: str) -> tuple[str, int | None]:
        """``(path, dir_fd)`` arguments that name ``name`` inside this directory."""
        if self.fd is None:
            return os.path.join(self.path, name), None
        return name, self.fd

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)


@dataclass(frozen=True)
class Located:
    """Where a walk ended: ``name`` inside the directory ``parent``.

    ``display`` is the path from the root, as the tools print it; ``name`` is
    ``"."`` when the path is the root itself, and may not exist yet.
    """

    parent: Dir
    name: str
    display: str

    def at(self) -> tuple[str, int | None]:
        return self.parent.at(self.name)


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
        if os.sep != "/":
            path = path.replace(os.sep, "/")
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
        stack: list[tuple[Dir, str]] = [(Dir.open(root), "")]
        hops = retries = 0
        try:
            while todo:
                part = todo.pop(0)
                if part in ("", "."):
                    continue
                if part == "..":
                    if len(stack) > 1:
                        stack.pop()[0].close()
                    elif self.confined:
                        reason = "a symlink on the path points outside the root"
                        raise PathEscapeError(
                            path, root, reason if hops else "'..' leaves the root"
                        )
                    continue
                here = stack[-1][0]
                name, dir_fd = here.at(part)
                last = not any(p not in ("", ".") for p in todo)
                try:
                    info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
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
                        os.mkdir(name, 0o777, dir_fd=dir_fd)
                    todo.insert(0, part)
                    continue
                if stat.S_ISLNK(info.st_mode):
                    hops += 1
                    if hops > _MAX_SYMLINKS:
                        raise PathEscapeError(path, root, "too many symlinks on the path")
                    try:
                        target = os.readlink(name, dir_fd=dir_fd)
                    except OSError:  # swapped back since the stat: look again
                        retries = self._retry(retries, path, root)
                        todo.insert(0, part)
                        continue
                    if target.startswith("/"):
                        if self.confined and not _within(os.path.normpath(target), root):
                            raise PathEscapeError(
                                path, root, "a symlink on the path points outside the root"
                            )
                        for opened, _ in stack[1:]:
                            opened.close()
                        del stack[1:]
                        target = os.path.relpath(os.path.normpath(target), root)
                    todo[:0] = target.split("/")
                    continue
                if last:
                    todo.insert(0, part)
                    break
                try:
                    stack.append((Dir.open(root, part, here), part))
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
            for opened, _ in stack:
                opened.close()

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
            name, dir_fd = at.at()
            try:
                return os.stat(name, dir_fd=dir_fd, follow_symlinks=False), at.display
            except FileNotFoundError:
                return None, at.display

    def open_file(self, path: str) -> tuple[int, os.stat_result]:
        """A read-only descriptor of the regular file at ``path``, and its stat."""
        with self.locate(path) as at:
            if at.name == ".":
                raise IsADirectoryError(f"{path!r} is a directory; use list_dir or list_files")
            fd = self._open_existing(path, at)
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise IsADirectoryError(f"{path!r} is {kind}; use list_dir or list_files")
        if _FILE_FLAGS & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)  # non-blocking only so that opening a FIFO cannot hang
        return fd, info

    def _open_existing(self, path: str, at: Located) -> int:
        name, dir_fd = at.at()
        try:
            return os.open(name, _FILE_FLAGS | getattr(os, "O_BINARY", 0), dir_fd=dir_fd)
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

    def open_dir(self, path: str) -> tuple[Dir, str]:
        """The directory at ``path`` (the caller closes it) and its display path."""
        with self.locate(path) as at:
            try:
                if at.name == ".":
                    return Dir.open(at.parent.path, ".", at.parent), at.display
                return Dir.open(at.parent.path, at.name, at.parent), at.display
            except OSError as exc:
                if exc.errno == errno.ENOENT:
                    raise FileNotFoundError(f"No such directory: {path!r}") from None
                if exc.errno in (errno.ENOTDIR, errno.ELOOP):
                    raise NotADirectoryError(f"{path!r} is not a directory") from None
                raise

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
            name, dir_fd = at.at()
            existing = b""
            mode = 0o644
            try:
                info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                info = None
            if info is not None:
                if stat.S_ISDIR(info.st_mode):
                    raise IsADirectoryError(f"{at.display!r} is a directory, not a file")
                mode = info.st_mode & 0o7777
                if append:
                    with os.fdopen(self._open_existing(path, at), "rb") as handle:
                        existing = handle.read()
            tmp, _ = at.parent.at(f".{at.name}.{secrets.token_hex(6)}.tmp")
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
            fd = os.open(tmp, flags | getattr(os, "O_BINARY", 0), 0o600, dir_fd=dir_fd)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(existing + data)
                    handle.flush()
                    if hasattr(os, "fchmod"):
                        os.fchmod(handle.fileno(), mode)
                    os.fsync(handle.fileno())
                if not hasattr(os, "fchmod"):
                    os.chmod(tmp, mode)
                os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=dir_fd)
                raise
            if dir_fd is not None:
                os.fsync(dir_fd)
            return at.display


DEFAULT_SANDBOX = FileSandbox()
