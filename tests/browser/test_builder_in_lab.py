"""graph.edit() in a real JupyterLab 4 + Chromium: the canvas draws the kernel's graph, a cell that
changes the graph redraws it, a canvas edit changes the graph, and the insert button writes the graph's
Python into a new cell."""

from __future__ import annotations

import pytest

from ._lab import wait

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CELLS = [
    "%load_ext selectools",
    "from selectools.builder import template, to_graph\n"
    "from selectools.builder.runtime import agent\n"
    "flow = to_graph(template('reviewer_loop'))",
    "flow.edit(var='flow')",
    "flow.add_node('editor', agent('editor'))\nflow.add_edge('editor', 'END')",
    "print('graph name:', flow.name)",
]


def test_the_builder_widget_is_bound_to_the_kernels_graph(lab, browser, shots):
    lab.write_notebook("builder.ipynb", CELLS)
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(lab.url("lab/tree/builder.ipynb"))
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
        lab.wait_for_idle_kernel()
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_text("Run All Cells", exact=True).click()
        # the last cell changes the graph in Python: the canvas redraws after it
        nodes = page.locator(".sb-widget .sb-node")
        wait(
            lambda: nodes.count() == 6, "the canvas to draw the graph and the added node", page=page
        )
        names = page.locator(".sb-widget .sb-node-name").all_inner_texts()
        assert {"writer", "reviewer", "review", "editor"} <= set(names), names
        page.screenshot(path=str(shots / "builder-widget-jupyterlab.png"))
        # a canvas edit changes the kernel's graph (the same object)
        page.locator(".sb-widget .sb-props input").first.fill("renamed_flow")
        page.wait_for_timeout(1000)  # the canvas sends its edits debounced
        # the insert button queues the graph's Python as a new cell, which JupyterLab adds
        # below the next cell run (a kernel can add cells only in an execute reply)
        cells_before = page.locator(".jp-Notebook .jp-Cell").count()
        page.locator('.sb-widget [data-insert="python"]').click()
        toast = page.locator(".sb-widget .sb-toast").filter(has_text="appears below the next cell")
        wait(lambda: toast.count() > 0, "the toast saying where the cell goes", page=page)
        page.locator(".jp-Notebook .jp-Cell .jp-InputArea-editor").last.click()
        page.keyboard.press("Shift+Enter")
        wait(lambda: page.locator(".jp-Notebook .jp-Cell").count() > cells_before,
             "a new cell with the graph's Python", page=page)  # fmt: skip
        texts = page.locator(".jp-Notebook .jp-Cell .jp-InputArea-editor").all_inner_texts()
        inserted = next(t for t in texts if "def renamed_flow()" in t)
        assert '"editor"' in inserted  # the graph as the kernel has it (the editor added in Python)
        outputs = page.locator(".jp-Notebook .jp-Cell .jp-OutputArea-output").all_inner_texts()
        assert any("graph name: renamed_flow" in o for o in outputs), outputs
        assert not errors, errors
    finally:
        page.close()
