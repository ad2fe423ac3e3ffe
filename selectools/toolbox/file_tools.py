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
from collections.abc import Iterator
from pathlib import Path

from ..tools import Tool, tool
from ._bind import bind
from ._errors import ToolboxError
from ._sandbox import DEFAULT_SANDBOX, FileSandbox

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


def _existing_file(box: FileSandbox, filepath: str) -> Path:
    real = box.resolve(filepath)
    if not real.exists():
        raise FileNotFoundError(f"No such file: {filepath!r} (relative to the tools' root)")
    if real.is_dir():
        raise IsADirectoryError(f"{filepath!r} is a directory; use list_dir or list_files")
    return real


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
    real = _existing_file(box, filepath)
    size = real.stat().st_size
    if size > box.max_read_bytes:
        raise ToolboxError(
            f"{filepath!r} is {size} bytes, more than read_file returns at once "
            f"({box.max_read_bytes}); use read_file_stream to read it line by line"
        )
    with os.fdopen(box.open_read(real), "r", encoding=encoding) as handle:
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
    real = box.resolve(filepath)
    box.write_text(real, content, encoding=encoding, append=mode == "a")
    verb = "Appended" if mode == "a" else "Wrote"
    return f"{verb} {len(content)} characters to {box.display(real)}"


def _walk(box: FileSandbox, top: Path, recursive: bool, show_hidden: bool) -> Iterator[Path]:
    """Files under ``top``; symlinks are listed only when they stay inside the root."""
    root = box.root_path()
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        if not show_hidden:
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        dirnames.sort()
        for name in sorted(filenames):
            if not show_hidden and name.startswith("."):
                continue
            path = Path(dirpath, name)
            real = os.path.realpath(path)
            if real != root and not real.startswith(root + os.sep):
                continue  # a link pointing out of the root is not the model's to see
            if os.path.isfile(real):
                yield path
        if not recursive:
            return


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
    top = box.resolve(directory)
    if not top.is_dir():
        raise NotADirectoryError(f"{directory!r} is not a directory")
    found = [
        box.display(p)
        for p in _walk(box, top, recursive, show_hidden)
        if fnmatch.fnmatchcase(p.name, pattern)
    ]
    if not found:
        return f"No files matching {pattern!r} in {box.display(top)}"
    return "\n".join(found)


@tool
def file_exists(path: str, *, _sandbox: FileSandbox | None = None) -> str:
    """Check whether a file or directory exists.

    Args:
        path: Path to check, relative to the tools' root directory.
    """
    box = _box(_sandbox)
    real = box.resolve(path)
    if real.is_dir():
        return f"True: {path} is a directory"
    if real.exists():
        return f"True: {path} is a file ({real.stat().st_size} bytes)"
    return f"False: {path} does not exist"


@tool
def read_file_stream(
    filepath: str, encoding: str = "utf-8", *, _sandbox: FileSandbox | None = None
) -> Iterator[str]:
    """Read a text file line by line, streaming each line as it is read (for large files).

    Args:
        filepath: Path of the file, relative to the tools' root directory.
        encoding: Text encoding of the file.
    """
    box = _box(_sandbox)
    real = _existing_file(box, filepath)
    with os.fdopen(box.open_read(real), "r", encoding=encoding, newline="") as handle:
        yield from handle


@tool
def list_dir(path: str = ".", *, _sandbox: FileSandbox | None = None) -> str:
    """List a directory's entries: folders end with "/", files show their size.

    Args:
        path: Directory to list, relative to the tools' root directory.
    """
    box = _box(_sandbox)
    top = box.resolve(path)
    if not top.is_dir():
        raise NotADirectoryError(f"{path!r} is not a directory")
    dirs: list[str] = []
    files: list[str] = []
    with os.scandir(top) as entries:
        for entry in entries:
            if entry.is_symlink():
                files.append(f"{entry.name} (symlink)")
            elif entry.is_dir():
                dirs.append(entry.name + "/")
            else:
                files.append(f"{entry.name} ({entry.stat().st_size} bytes)")
    lines = sorted(dirs) + sorted(files)
    if not lines:
        return f"{box.display(top)} is empty"
    return "\n".join(lines)


_TOOLS = (read_file, write_file, list_files, file_exists, read_file_stream, list_dir)


def make_file_tools(
    root: str | os.PathLike[str] | None = None,
    *,
    read_only: bool = False,
    max_read_bytes: int = 1_000_000,
) -> list[Tool]:
    """The file tools confined to ``root`` (default: the working directory at call time).

    ``read_only=True`` makes ``write_file`` refuse; ``max_read_bytes`` caps
    what ``read_file`` returns at once.
    """
    sandbox = FileSandbox(root, read_only=read_only, max_read_bytes=max_read_bytes)
    if sandbox == DEFAULT_SANDBOX:
        return list(_TOOLS)
    return [bind(t, _sandbox=sandbox) for t in _TOOLS]
