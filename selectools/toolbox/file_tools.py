"""File tools: read, write, list and stream files inside one root directory.

Every path goes through a :class:`~selectools.toolbox.FileSandbox`: the
module-level tools are confined to the working directory at call time;
:func:`make_file_tools` (or ``get_tools_by_category("file", root=...)``) makes
copies confined to another directory, optionally read-only. Paths in results
are relative to the root.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Iterator

from ..tools import Tool, tool
from ._bind import bind
from ._errors import ToolboxError
from ._sandbox import DEFAULT_SANDBOX, Dir, FileSandbox

__all__ = [
    "file_exists",
    "list_dir",
    "list_files",
    "make_file_tools",
    "read_file",
    "read_file_stream",
    "write_file",
]


def _box(sandbox: FileSandbox | None) -> FileSandbox:
    return sandbox if sandbox is not None else DEFAULT_SANDBOX


@tool
def read_file(
    filepath: str, encoding: str = "utf-8", *, _sandbox: FileSandbox | None = None
) -> str:
    """Read a text file and return its contents.

    Args:
        filepath: Path of the file, relative to the tools' root directory.
        encoding: Text encoding of the file.
    """
    box = _box(_sandbox)
    fd, info = box.open_file(filepath)
    with os.fdopen(fd, "r", encoding=encoding) as handle:
        if info.st_size > box.max_read_bytes:
            raise ToolboxError(
                f"{filepath!r} is {info.st_size} bytes, more than read_file returns at once "
                f"({box.max_read_bytes}); use read_file_stream to read it line by line"
            )
        return handle.read()


@tool(param_metadata={"mode": {"enum": ["w", "a"]}})
def write_file(
    filepath: str,
    content: str,
    mode: str = "w",
    encoding: str = "utf-8",
    *,
    _sandbox: FileSandbox | None = None,
) -> str:
    """Write text to a file ("w" replaces it, "a" appends); missing folders are created.

    Args:
        filepath: Path of the file, relative to the tools' root directory.
        content: The text to write.
        mode: "w" to overwrite, "a" to append.
        encoding: Text encoding to write with.
    """
    if mode not in ("w", "a"):
        raise ValueError(f"mode must be 'w' (overwrite) or 'a' (append), got {mode!r}")
    box = _box(_sandbox)
    shown = box.write_text(filepath, content, encoding=encoding, append=mode == "a")
    verb = "Appended" if mode == "a" else "Wrote"
    return f"{verb} {len(content)} characters to {shown}"


def _walk(box: FileSandbox, directory: str, recursive: bool, show_hidden: bool) -> Iterator[str]:
    """Display paths of the files under ``directory``, walked by descriptor (``os.fwalk``).

    Symlinks are listed only when the walk resolves them, inside the root, to a file.
    """
    top, shown_top = box.open_dir(directory)
    try:
        for dirpath, dirnames, filenames, here in _fwalk(top):
            if not show_hidden:
                dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            dirnames.sort()
            prefix = os.path.normpath(os.path.join(shown_top, dirpath)).replace(os.sep, "/")
            for name in sorted(filenames):
                if not show_hidden and name.startswith("."):
                    continue
                shown = name if prefix == "." else f"{prefix}/{name}"
                path, dir_fd = here.at(name)
                info = os.stat(path, dir_fd=dir_fd, follow_symlinks=False)
                if stat.S_ISLNK(info.st_mode):
                    try:
                        target, _ = box.stat(shown)
                    except (OSError, ToolboxError):
                        continue  # a link pointing out of the root is not the model's to see
                    if target is None or not stat.S_ISREG(target.st_mode):
                        continue
                elif not stat.S_ISREG(info.st_mode):
                    continue
                yield shown
            if not recursive:
                return
    finally:
        top.close()


def _fwalk(top: Dir) -> Iterator[tuple[str, list[str], list[str], Dir]]:
    """``os.fwalk`` from an open directory (``os.walk`` on its path where there is no fwalk)."""
    if top.fd is not None:
        for dirpath, dirnames, filenames, fd in os.fwalk(".", dir_fd=top.fd, follow_symlinks=False):
            yield dirpath, dirnames, filenames, Dir(fd, os.path.join(top.path, dirpath))
        return
    for dirpath, dirnames, filenames in os.walk(top.path, followlinks=False):
        rel = os.path.relpath(dirpath, top.path)
        # os.walk counts a symlink to a directory as a directory: list it as a name instead
        links = [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
        dirnames[:] = [d for d in dirnames if d not in links]
        yield rel, dirnames, filenames + links, Dir(None, dirpath)


@tool
def list_files(
    directory: str = ".",
    pattern: str = "*",
    show_hidden: bool = False,
    recursive: bool = False,
    *,
    _sandbox: FileSandbox | None = None,
) -> str:
    """List the files in a directory whose names match a glob pattern (e.g. "*.py").

    Args:
        directory: Directory to list, relative to the tools' root directory.
        pattern: Glob pattern matched against file names.
        show_hidden: Include files and folders whose names start with a dot.
        recursive: Also list files in subdirectories.
    """
    if "/" in pattern or "\\" in pattern or ".." in pattern:
        raise ValueError(
            f"pattern {pattern!r} must match file names only (like '*.py'); "
            "put the folder in directory= and use recursive=True for subfolders"
        )
    box = _box(_sandbox)
    found = [
        p
        for p in _walk(box, directory, recursive, show_hidden)
        if fnmatch.fnmatchcase(p.rsplit("/", 1)[-1], pattern)
    ]
    if not found:
        _, top = box.stat(directory)
        return f"No files matching {pattern!r} in {top}"
    return "\n".join(found)


@tool
def file_exists(path: str, *, _sandbox: FileSandbox | None = None) -> str:
    """Check whether a file or directory exists.

    Args:
        path: Path to check, relative to the tools' root directory.
    """
    try:
        info, _ = _box(_sandbox).stat(path)
    except (FileNotFoundError, NotADirectoryError):
        info = None
    if info is None:
        return f"False: {path} does not exist"
    if stat.S_ISDIR(info.st_mode):
        return f"True: {path} is a directory"
    return f"True: {path} is a file ({info.st_size} bytes)"


@tool
def read_file_stream(
    filepath: str, encoding: str = "utf-8", *, _sandbox: FileSandbox | None = None
) -> Iterator[str]:
    """Read a text file line by line, streaming each line as it is read (for large files).

    Args:
        filepath: Path of the file, relative to the tools' root directory.
        encoding: Text encoding of the file.
    """
    fd, _ = _box(_sandbox).open_file(filepath)
    with os.fdopen(fd, "r", encoding=encoding, newline="") as handle:
        yield from handle


@tool
def list_dir(path: str = ".", *, _sandbox: FileSandbox | None = None) -> str:
    """List a directory's entries: folders end with "/", files show their size.

    Args:
        path: Directory to list, relative to the tools' root directory.
    """
    top, shown = _box(_sandbox).open_dir(path)
    dirs: list[str] = []
    files: list[str] = []
    try:
        with os.scandir(top.fd if top.fd is not None else top.path) as entries:
            for entry in entries:
                if entry.is_symlink():
                    files.append(f"{entry.name} (symlink)")
                elif entry.is_dir(follow_symlinks=False):
                    dirs.append(entry.name + "/")
                else:
                    size = entry.stat(follow_symlinks=False).st_size
                    files.append(f"{entry.name} ({size} bytes)")
    finally:
        top.close()
    lines = sorted(dirs) + sorted(files)
    if not lines:
        return f"{shown} is empty"
    return "\n".join(lines)


_TOOLS = (read_file, write_file, list_files, file_exists, read_file_stream, list_dir)


def make_file_tools(
    root: str | os.PathLike[str] | None = ".",
    *,
    read_only: bool = False,
    max_read_bytes: int = 1_000_000,
) -> list[Tool]:
    """The file tools confined to ``root`` (default ``"."``: the working directory at call time).

    ``root=None`` turns confinement off: any path the process can open, absolute
    ones included (for trusted use only).

    ``read_only=True`` makes ``write_file`` refuse; ``max_read_bytes`` caps
    what ``read_file`` returns at once.
    """
    sandbox = FileSandbox(root, read_only=read_only, max_read_bytes=max_read_bytes)
    if sandbox == DEFAULT_SANDBOX:
        return list(_TOOLS)
    return [bind(t, _sandbox=sandbox) for t in _TOOLS]
