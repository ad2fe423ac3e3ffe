"""Charts follow a dark theme: a trace Gantt and an eval chart in JupyterLab Dark and Notebook 7.

plotly's default template paints white; selectools' charts are transparent with
theme-neutral text, so in a dark theme the chart's background in the screenshot
is the notebook's own, dark one.
"""

from __future__ import annotations

import io
from typing import Any

import pytest

from ._lab import open_notebook, output_texts, run_all, wait

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CELLS = [
    "from selectools import Agent, tool\n"
    "from selectools.evals import EvalSuite, TestCase\n"
    "from selectools.testing import ScriptedProvider, tool_call\n"
    "@tool()\n"
    "def look(key: str) -> str:\n"
    '    """Look a key up."""\n'
    "    return key.upper()\n"
    'result = Agent(tools=[look], provider=ScriptedProvider([tool_call("look", key="a"), "A"])).run("x")',
    "result.trace.gantt()",
    'cases = [TestCase(input="x", name="x", expect_contains="nope", tags=["t"])]\n'
    'EvalSuite(Agent(provider=ScriptedProvider(default="A")), cases).run().chart()',
]


def _luminance(png: bytes) -> float:
    """The median luminance (0-255) of a screenshot's pixels: its background's, for a chart."""
    from PIL import Image

    counts = Image.open(io.BytesIO(png)).convert("L").histogram()
    half, seen = sum(counts) / 2, 0
    for shade, count in enumerate(counts):
        seen += count
        if seen >= half:
            return float(shade)
    return 255.0


def _charts_are_dark(server: Any, browser: Any, path: str, name: str, shots: Any) -> None:
    server.write_notebook(name, CELLS)
    page = open_notebook(server, browser, path)
    run_all(page)
    charts = page.locator(".js-plotly-plot")
    wait(lambda: charts.count() == 2, "the two charts to draw", page=page)
    wait(lambda: page.locator(".js-plotly-plot .main-svg").count() >= 2, "their SVG")
    page.screenshot(path=str(shots / f"dark-charts-{name}.png"), full_page=True)
    first_cell = _luminance(page.locator(".jp-Notebook .jp-Cell").first.screenshot())
    assert first_cell < 80, f"the theme is not dark ({first_cell})"  # the page around the charts
    for index in range(2):
        chart = charts.nth(index)
        chart.scroll_into_view_if_needed()
        shade = _luminance(chart.screenshot())
        assert shade < 80, f"chart {index} glares in the dark theme: luminance {shade}"
    assert "Error" not in output_texts(page)
    page.close()


def test_charts_are_dark_in_jupyterlab_dark(lab_dark, browser, shots):
    _charts_are_dark(lab_dark, browser, "lab/tree/dark.ipynb?reset", "dark.ipynb", shots)


def test_charts_are_dark_in_notebook7_dark(notebook7_dark, browser, shots):
    _charts_are_dark(notebook7_dark, browser, "notebooks/dark7.ipynb", "dark7.ipynb", shots)
