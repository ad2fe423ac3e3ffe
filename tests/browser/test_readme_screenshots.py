"""The README's pictures of the notebook UI are real: JupyterLab runs three demo notebooks and
screenshots their outputs.

The browser test writes the pictures into the run's screenshot folder and, with
``SELECTOOLS_UPDATE_SCREENSHOTS=1``, over the README's copies in ``docs/img/`` (how they are
regenerated). The quick test checks the committed copies: referenced by the README, PNG, small.
"""

from __future__ import annotations

import os
import shutil
import struct
from pathlib import Path

import pytest

from ._lab import open_notebook, wait

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "docs" / "img"
#: (picture, notebook, the output it shows: a CSS selector in the output area, a text it holds)
PICTURES = (
    ("notebook-tour.png", "notebook_tour.ipynb", ".selectools-run", "3 tool calls"),
    ("notebook-budget-run.png", "session.ipynb", ".selectools-run", "budget_exceeded"),
    ("notebook-ledger.png", "session.ipynb", ".selectools-ledger", "Run ledger"),
    ("notebook-eval-diff.png", "eval_runs.ipynb", ".selectools-eval-diff", "regressed"),
)
MAX_BYTES = 150_000


def test_readme_pictures_are_committed_small_pngs():
    readme = (ROOT / "README.md").read_text()
    for name, *_ in PICTURES:
        path = IMAGES / name
        assert f"docs/img/{name}" in readme, name
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", name
        width, height = struct.unpack(">II", data[16:24])
        assert len(data) < MAX_BYTES and 300 <= width <= 1400 and height >= 100, (name, len(data))


@pytest.mark.browser
@pytest.mark.slow
def test_screenshots_of_the_tour_ledger_budget_and_eval_diff_in_jupyterlab(lab, browser, shots):
    update = os.environ.get("SELECTOOLS_UPDATE_SCREENSHOTS") == "1"
    for notebook in dict.fromkeys(notebook for _, notebook, *_ in PICTURES):
        shutil.copy(ROOT / "notebooks" / notebook, lab.work / notebook)
        page = open_notebook(lab, browser, f"lab/tree/{notebook}?reset")
        page.set_viewport_size({"width": 1300, "height": 1000})
        # Run All (these notebooks open with a markdown cell, so no first prompt to watch)
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_text("Run All Cells", exact=True).click()
        for name, source, selector, text in PICTURES:
            if source != notebook:
                continue
            found = page.locator(f".jp-OutputArea-output {selector}").filter(has_text=text).last
            wait(lambda found=found: found.count() > 0, f"{selector} in {notebook}", 120, page=page)
            found.scroll_into_view_if_needed()
            picture = shots / name
            found.screenshot(path=str(picture))
            size = picture.stat().st_size
            assert size < MAX_BYTES, f"{name} is {size} bytes"
            if update:
                shutil.copy(picture, IMAGES / name)
        page.close()
