"""A page's examples pasted in order into one notebook: nothing an earlier block did stops a later one.

``test_foundation_pages`` runs each example in a fresh namespace with its own
setup. A reader pastes the page top to bottom instead, so a later block meets
what the earlier ones left behind (issue 29: ORCHESTRATION adds ``writer`` and
``research`` again a few blocks after adding them). Here the page's executable
examples run in order in one namespace with only the preludes (the reader's own
agents) and no per-example setup; the failures left are the page's own gaps,
each listed with its reason.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import warnings

import pytest

from ._catalog import EXAMPLES, PRELUDES, _run_source

ORCHESTRATION = "docs/modules/ORCHESTRATION.md"

#: example id -> why it cannot run in reading order (each is a name the page never defines)
ORCHESTRATION_GAPS = {
    "orchestration-05-creating-state": "Message is used before the page imports it",
    "orchestration-06-accessing-last-output": "STATE_KEY_LAST_OUTPUT is used before it is imported",
    "orchestration-18-add-parallel-nodes": "MergePolicy is never imported on the page",
    "orchestration-22-checkpointstore-protocol": "the Protocol sketch never imports Protocol",
    "orchestration-23-usage": "checkpoint_id comes from an interrupted run the page does not show",
    "orchestration-34-astream": "`graph` is the reader's; the last one built (Cancellation) is empty",
    "orchestration-38-inspecting-the-trace": "the same empty `graph`",
    "orchestration-39-accessing-node-level-results": "the same empty `graph`",
}


def _in_reading_order(page: str) -> tuple[dict[str, str], list[str]]:
    """Run ``page``'s executable examples in order; ``(failures by id, warning texts)``."""
    examples = sorted(
        (e for e in EXAMPLES.values() if e.page == page and e.executable and not e.server),
        key=lambda e: (e.seed, e.line),
    )
    namespace: dict = {"__name__": "__main__", "__builtins__": builtins}
    preludes: set[str] = set()
    failures: dict[str, str] = {}
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
                failures[example.id] = f"{type(exc).__name__}: {exc}"
    return failures, [str(w.message) for w in caught]


@pytest.mark.usefixtures("in_tmp_dir")
def test_orchestration_page_runs_in_reading_order():
    failures, messages = _in_reading_order(ORCHESTRATION)
    assert set(failures) == set(ORCHESTRATION_GAPS), failures
    assert not any(f.startswith("ValueError") for f in failures.values()), failures
    # the blocks that add a node under a name used earlier replace it, and say so
    assert any("replaces the earlier node 'writer'" in m for m in messages), messages
    assert any("replaces the earlier subgraph 'research'" in m for m in messages), messages


@pytest.fixture
def in_tmp_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path
