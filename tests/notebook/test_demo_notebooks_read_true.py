"""The demo notebooks as a reader meets them: tags not comments, whole lines, rich views, Run All.

nbval reads cell tags (``nbval-check-output``, ``nbval-ignore-output``, ...), so the
demo code carries no ``# NBVAL_*`` comments; code lines fit a cell without being cut;
the toolbox, memory and observability notebooks show runs with the package's views;
``serve.ipynb`` leaves both of its playgrounds live after Run All; and every notebook
runs through Run All with no error (a cell tagged ``raises-exception`` would stop it).
"""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from .conftest import checkout_on_path

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
#: what a code line may take: the width a cell shows without scrolling in Lab, the docs and GitHub
LINE = 88
#: the tags nbval knows (its plugin's metadata_tags)
NBVAL_TAGS = {
    "nbval-check-output",
    "nbval-ignore-output",
    "nbval-skip",
    "nbval-raises-exception",
    "raises-exception",
}


def _code_cells(path: Path) -> list[nbformat.NotebookNode]:
    return [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_nbval_markers_are_cell_tags_not_comments(path):
    for cell in _code_cells(path):
        assert not re.search(r"^\s*#\s*NBVAL_", cell.source, flags=re.MULTILINE), cell.source
        tags = {t for t in cell.metadata.get("tags", []) if t.startswith("nbval")}
        assert tags <= NBVAL_TAGS, tags


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_code_lines_fit_the_cell(path):
    long = [
        line for cell in _code_cells(path) for line in cell.source.splitlines() if len(line) > LINE
    ]
    assert not long, long


@pytest.mark.parametrize("name", ["toolbox", "memory", "observability"])
def test_runs_are_shown_with_the_rich_views_not_printed(name):
    path = next(p for p in NOTEBOOKS if p.stem == name)
    cells = _code_cells(path)
    printed = [c.source for c in cells if re.search(r"print\(\w+\.content\)", c.source)]
    assert not printed, printed  # an AgentResult has a view: the answer, tool cards, usage
    shown = [
        o
        for c in cells
        for o in c.outputs
        if 'class="selectools selectools-result"' in o.get("data", {}).get("text/html", "")
    ]
    assert shown, f"{name}: no run is shown with its rich view"


def _live(url: str) -> int:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status


@pytest.mark.kernel
@pytest.mark.slow
def test_serve_notebook_leaves_its_playgrounds_live_after_run_all():
    path = next(p for p in NOTEBOOKS if p.stem == "serve")
    nb = nbformat.read(path, as_version=4)
    with checkout_on_path():
        client = NotebookClient(
            nb,
            timeout=120,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
        )
        with client.setup_kernel():
            for index, cell in enumerate(nb.cells):
                client.execute_cell(cell, index)
            # Run All has finished; the kernel is still up, as in JupyterLab
            frames = [
                src
                for cell in nb.cells
                if cell.cell_type == "code"
                for output in cell.outputs
                for src in re.findall(
                    r'<iframe src="([^"]+)"', output.get("data", {}).get("text/html", "")
                )
            ]
            assert len(frames) == 2, frames  # the handle's playground and the magic's
            for src in frames:
                assert _live(src.replace("&amp;", "&")) == 200, src


@pytest.mark.kernel
@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_run_all_finishes_with_no_error_output(path):
    """As JupyterLab's Run All: any failing cell stops it, whatever its tags say."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:  # nbclient would let a tagged cell fail; Run All does not
        cell.metadata["tags"] = []
    with checkout_on_path():
        NotebookClient(
            nb,
            timeout=120,
            kernel_name="python3",
            allow_errors=False,
            resources={"metadata": {"path": str(path.parent)}},
        ).execute()  # raises CellExecutionError at the first cell whose reply is an error
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
