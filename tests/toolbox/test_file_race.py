"""A directory swapped for a symlink while the file tools open paths: nothing outside leaks.

A racing thread keeps swapping ``root/d`` (a real directory) for a symlink to
a directory outside the root and back. Thousands of reads, writes and listings
through ``d/`` run meanwhile; each may succeed (the real directory) or be
refused (the symlink), but none may return, list or write anything outside.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from selectools.exceptions import ToolExecutionError
from selectools.toolbox import get_tools_by_category

ROUNDS = 4000


@contextlib.contextmanager
def swapping(directory: Path, outside: Path) -> Iterator[list[int]]:
    """Swap ``directory`` and a symlink to ``outside`` until the block ends; yields the swap count."""
    parked = directory.with_name(directory.name + "-parked")
    stop = threading.Event()
    swaps = [0]

    def run() -> None:
        while not stop.is_set():
            os.rename(directory, parked)
            with contextlib.suppress(FileExistsError):  # a write may have made a new d/
                os.symlink(outside, directory)
            time.sleep(0)
            while True:  # a write may create d/ again at any moment: clear it and retry
                if directory.is_symlink():
                    os.unlink(directory)
                else:
                    shutil.rmtree(directory, ignore_errors=True)
                try:
                    os.rename(parked, directory)
                    break
                except OSError:
                    continue
            swaps[0] += 1
            time.sleep(0)  # let the tools see the real directory too

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield swaps
    finally:
        stop.set()
        thread.join(10)


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "d").mkdir(parents=True)
    outside.mkdir()
    (root / "d" / "f.csv").write_text("where\ninside\n")
    (outside / "f.csv").write_text("where\nOUTSIDE\n")
    (outside / "only-outside.txt").write_text("x")
    return root, outside


def _attempts(tool, args: dict, rounds: int) -> tuple[list[str], int]:
    results, refused = [], 0
    for _ in range(rounds):
        try:
            out = tool.execute(args)
        except ToolExecutionError:
            refused += 1
            continue
        results.append(out if isinstance(out, str) else "".join(out))
    return results, refused


def test_reads_never_follow_a_swapped_in_symlink(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    tools = {t.name: t for t in get_tools_by_category("file", root=root)}
    data = {t.name: t for t in get_tools_by_category("data", root=root)}
    escapes = 0
    with swapping(root / "d", outside) as swaps:
        reads, refused = _attempts(tools["read_file"], {"filepath": "d/f.csv"}, ROUNDS)
        escapes += sum("OUTSIDE" in r for r in reads)
        streamed, _ = _attempts(tools["read_file_stream"], {"filepath": "d/f.csv"}, ROUNDS // 4)
        escapes += sum("OUTSIDE" in r for r in streamed)
        rows, _ = _attempts(data["process_csv_stream"], {"filepath": "d/f.csv"}, ROUNDS // 4)
        escapes += sum("OUTSIDE" in r for r in rows)
        listed, _ = _attempts(tools["list_dir"], {"path": "d"}, ROUNDS // 4)
        escapes += sum("only-outside" in r for r in listed)
        found, _ = _attempts(tools["list_files"], {"directory": "d"}, ROUNDS // 4)
        escapes += sum("only-outside" in r for r in found)
        exists, _ = _attempts(tools["file_exists"], {"path": "d/only-outside.txt"}, ROUNDS // 4)
        escapes += sum(r.startswith("True") for r in exists)
    print(
        f"{ROUNDS} reads during {swaps[0]} swaps: {len(reads)} read inside, "
        f"{refused} refused, {escapes} escapes (all tools)"
    )
    assert swaps[0] > 20, "the race did not run: the test proves nothing"
    assert reads, "no read succeeded: the test proves nothing"
    assert escapes == 0


def test_writes_never_land_outside(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    write = {t.name: t for t in get_tools_by_category("file", root=root)}["write_file"]
    with swapping(root / "d", outside) as swaps:
        for i in range(ROUNDS // 4):
            with contextlib.suppress(ToolExecutionError):
                write.execute({"filepath": f"d/new-{i}.txt", "content": "planted"})
            with contextlib.suppress(ToolExecutionError):
                write.execute({"filepath": "d/f.csv", "content": "!", "mode": "a"})
    planted = sorted(p.name for p in outside.iterdir())
    print(f"{ROUNDS // 2} writes during {swaps[0]} swaps; outside holds {planted}")
    assert planted == ["f.csv", "only-outside.txt"]
    assert (outside / "f.csv").read_text() == "where\nOUTSIDE\n"
    assert any(root.glob("d/new-*.txt"))
