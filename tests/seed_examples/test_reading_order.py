"""A page's examples pasted in order into one notebook: nothing an earlier block did stops a later one.

``test_foundation_pages`` runs each example in a fresh namespace with its own
setup. A reader pastes the page top to bottom instead, so a later block meets
what the earlier ones left behind (issue 29: ORCHESTRATION adds ``writer`` and
``research`` again a few blocks after adding them). Here the page's executable
examples run in order in one namespace with only the preludes (the reader's own
agents) and no per-example setup. A block may fail only for a name or a file
the page never defines (the reader's own), or for a reason listed in ``PAGES``.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import warnings

import pytest

from ._catalog import EXAMPLES, PRELUDES, _run_source

ORCHESTRATION = "docs/modules/ORCHESTRATION.md"

#: page -> {example id: why it fails in reading order though no name is missing}
PAGES: dict[str, dict[str, str]] = {
    ORCHESTRATION: {
        "orchestration-34-astream": "`graph` is the reader's; the last one the page built "
        "(Cancellation) has no nodes",
        "orchestration-38-inspecting-the-trace": "the same empty `graph`",
        "orchestration-39-accessing-node-level-results": "the same empty `graph`",
    },
    "docs/modules/RAG.md": {},
    "docs/modules/HYBRID_SEARCH.md": {},
    "docs/modules/USAGE.md": {},
}

#: what a block may fail with: a name or a file the page never defines (the reader's own)
READERS_OWN = (NameError, FileNotFoundError)


def _in_reading_order(page: str) -> tuple[dict[str, tuple[str, Exception]], list[str]]:
    """Run ``page``'s executable examples in order; ``(failures by id, warning texts)``."""
    examples = sorted(
        (e for e in EXAMPLES.values() if e.page == page and e.executable and not e.server),
        key=lambda e: (e.seed, e.line),
    )
    namespace: dict = {"__name__": "__main__", "__builtins__": builtins}
    preludes: set[str] = set()
    failures: dict[str, tuple[str, Exception]] = {}
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("always")
        for example in examples:
            for name in example.prelude:
                if name not in preludes:
                    _run_source(PRELUDES[name], namespace, f"<prelude {name}>")
                    preludes.add(name)
            try:
                _run_source(example.filled_code(), namespace, f"<{example.id}>")
            except Exception as exc:
                failures[example.id] = (f"{type(exc).__name__}: {exc}", exc)
    return failures, [str(w.message) for w in caught]


@pytest.mark.parametrize("page", sorted(PAGES))
@pytest.mark.usefixtures("in_tmp_dir")
def test_page_runs_in_reading_order(page):
    failures, _ = _in_reading_order(page)
    known = PAGES[page]
    unexpected = {
        example_id: error
        for example_id, (error, exc) in failures.items()
        if example_id not in known and not isinstance(exc, READERS_OWN)
    }
    assert unexpected == {}
    assert set(known) <= set(failures), "a listed gap runs now: drop it from PAGES"


@pytest.mark.usefixtures("in_tmp_dir")
def test_orchestration_blocks_that_add_a_node_again_replace_it():
    failures, messages = _in_reading_order(ORCHESTRATION)
    assert "orchestration-11-input-and-output-transforms" not in failures
    assert "orchestration-25-graph-as-callable" not in failures
    assert any("replaces the earlier node 'writer'" in m for m in messages), messages
    assert any("replaces the earlier subgraph 'research'" in m for m in messages), messages


@pytest.fixture
def in_tmp_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path
