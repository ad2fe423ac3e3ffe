"""The demo notebooks read in one order: start_here lists them all, each intro links to the next."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
_LINK = re.compile(r"\]\(([\w-]+)\.ipynb\)")


def _order() -> list[str]:
    start = nbformat.read(NOTEBOOKS / "start_here.ipynb", as_version=4)
    table = start.cells[0].source
    return [m for line in table.splitlines() if line.startswith("| ") for m in _LINK.findall(line)]


def test_start_here_lists_every_notebook_once():
    order = _order()
    assert len(order) == len(set(order))
    present = {p.stem for p in NOTEBOOKS.glob("*.ipynb")} - {"start_here"}
    assert set(order) == present


def test_each_intro_links_back_to_the_previous_and_on_to_the_next():
    order = _order()
    for position, name in enumerate(order):
        intro = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4).cells[0]
        assert intro.cell_type == "markdown", name
        linked = _LINK.findall(intro.source.split("\n\n")[-1])
        expected = [
            *(order[position - 1 : position] if position else []),
            *order[position + 1 : position + 2],
            "start_here",
        ]
        assert linked == expected, name
        for target in linked:
            assert (NOTEBOOKS / f"{target}.ipynb").is_file()
