"""The MEMORY, SESSIONS and BUDGET doc examples run, and are still verbatim copies of the seed.

Each runnable example executes in a fresh namespace inside a temporary working
directory (the examples write ./sessions, conversation.json ...), with stdout
captured. The provenance tests read the seed docs from ``$SELECTOOLS_SEEDS``: not run when it
is unset, failing (never skipping) when it is set and a seed is missing.
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import pytest

from selectools.testing import FakeLLMServer

from .examples import BY_ID, EXAMPLES, SEED, SeedExample

# The seed docs folder. Unset: these checks are not run here; set: every check runs and a
# missing folder, seed file or block is a failure, never a skip.
SEEDS_SET = bool(os.environ.get("SELECTOOLS_SEEDS"))
SEEDS = Path(os.environ.get("SELECTOOLS_SEEDS", ""))


def _execute(example: SeedExample, namespace: dict) -> None:
    if example.after:
        _execute(BY_ID[example.after], namespace)
    if example.prelude:
        exec(compile(example.prelude, f"<prelude of {example.id}>", "exec"), namespace)
    exec(compile(example.filled(), f"<{SEED}:{example.line} {example.id}>", "exec"), namespace)
    if example.epilogue:
        exec(compile(example.epilogue, f"<epilogue of {example.id}>", "exec"), namespace)


@pytest.mark.parametrize("example", [e for e in EXAMPLES if e.kind != "skip"], ids=lambda e: e.id)
def test_example_runs(example, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__main__"}
    out = io.StringIO()
    with contextlib.ExitStack() as stack:
        if example.kind == "server":
            server = stack.enter_context(FakeLLMServer())
            for name, value in server.env(api_key="sk-seed-example-key").items():
                monkeypatch.setenv(name, value)
            server.add(*(eval(item, {}) for item in example.script))
            namespace["fake_server"] = server
        stack.enter_context(contextlib.redirect_stdout(out))
        _execute(example, namespace)
        if example.kind == "server":
            assert server.remaining == 0, "the example made fewer model calls than scripted"
            assert server.errors == []
    for text in example.stdout:
        assert text in out.getvalue(), f"{text!r} not printed; got:\n{out.getvalue()}"


def test_catalogue_is_consistent():
    assert len({e.id for e in EXAMPLES}) == len(EXAMPLES)
    for example in EXAMPLES:
        assert example.kind in ("runs", "fragment", "server", "skip"), example.id
        assert (example.kind == "skip") == bool(example.reason), example.id
        assert (example.kind == "server") == bool(example.script), example.id
        if example.kind == "runs":
            assert not (example.prelude or example.fill), f"{example.id} runs as written"
        if example.after:
            assert example.after in BY_ID


@pytest.mark.skipif(
    not SEEDS_SET,
    reason="SELECTOOLS_SEEDS is not set (.ci/run sets it when ../shared/seeds exists)",
)
def test_examples_are_verbatim_copies_of_the_seed():
    lines = (SEEDS / SEED).read_text(encoding="utf-8").split("\n")
    for example in EXAMPLES:
        assert lines[example.line - 1].startswith("```"), f"{example.id}: line is not a fence"
        copied = example.source.split("\n")
        assert lines[example.line : example.line + len(copied)] == copied, example.id
        assert lines[example.line + len(copied)].startswith("```"), f"{example.id}: block is longer"


@pytest.mark.skipif(
    not SEEDS_SET,
    reason="SELECTOOLS_SEEDS is not set (.ci/run sets it when ../shared/seeds exists)",
)
def test_every_python_block_of_the_pages_is_accounted_for():
    lines = (SEEDS / SEED).read_text(encoding="utf-8").split("\n")
    pages = [(6624, 7128), (10600, 11125), (16262, 16353)]
    fences = {
        number
        for number, text in enumerate(lines, 1)
        if text.startswith("```python") and any(a <= number <= b for a, b in pages)
    }
    # blocks that list the library's own internals rather than user code
    listings = {6697, 6730, 6811, 6826, 6854, 6870}
    assert fences - listings == {e.line for e in EXAMPLES}
