"""The live jobs table: one output, redrawn through its display id as jobs fire (real kernel)."""

from __future__ import annotations

import os
from html import unescape
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "observability.ipynb"

pytestmark = [pytest.mark.kernel, pytest.mark.slow]


class RecordingClient(NotebookClient):
    """Keeps every iopub message per cell (the saved notebook folds display updates in)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.messages: dict[int, list[dict]] = {}

    def process_message(self, msg, cell, cell_index):
        self.messages.setdefault(cell_index, []).append(msg)
        return super().process_message(msg, cell, cell_index)


def test_scheduler_table_updates_in_place(monkeypatch):
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = RecordingClient(
        nb,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()
    index = next(i for i, c in enumerate(nb.cells) if "show_scheduler(scheduler)" in c.source)
    messages = client.messages[index]
    shown = [m for m in messages if m["msg_type"] == "display_data"]
    updates = [m for m in messages if m["msg_type"] == "update_display_data"]
    assert len(shown) == 1
    display_id = shown[0]["content"]["transient"]["display_id"]
    # one redraw per firing (3), each of the same output
    assert len(updates) == 3
    assert {m["content"]["transient"]["display_id"] for m in updates} == {display_id}
    first = shown[0]["content"]["data"]["text/html"]
    assert "not run yet" in first and "0/1" in first
    htmls = [m["content"]["data"]["text/html"] for m in updates]
    texts = [unescape(html) for html in htmls]  # the view's own symbols are character references
    assert "#1 ✗ ConnectionError: status page unreachable" in texts[0]
    assert "#1 ✓ api has 3 open incidents." in texts[1]
    assert "#2 ✗ ConnectionError" in texts[2] and "2/2" in texts[2] and "1 failure" not in texts[2]
    assert "2 failures" in texts[2]
    # the notebook keeps the final table (the output holds the last update)
    (output,) = [o for o in nb.cells[index].outputs if o.output_type == "display_data"]
    assert output.data["text/html"] == htmls[-1]
    assert "runs 2/2" in output.data["text/plain"]
