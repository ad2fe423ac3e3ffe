"""The one look of every selectools plotly chart: readable in light and dark notebook themes.

Plotly's default template paints a white page and a pale blue plot with dark
blue text, which glares in JupyterLab's and Notebook 7's dark themes while every
other selectools view follows the theme. The charts instead draw on a
transparent background (the notebook's own shows through) with mid-grey text
and faint grid lines, which read on white and on near-black alike, so a saved
figure needs no knowledge of the theme it will be opened in.
"""

from __future__ import annotations

from typing import Any

__all__ = ["TEXT", "theme_neutral"]

#: text colour with enough contrast on both a white and a near-black page
TEXT = "#8c8c8c"
_GRID = "rgba(140, 140, 140, 0.25)"
_LINE = "rgba(140, 140, 140, 0.55)"


def theme_neutral(figure: Any) -> Any:
    """``figure`` with transparent backgrounds and theme-neutral text, axes and grid."""
    axis = {"gridcolor": _GRID, "zerolinecolor": _LINE, "linecolor": _LINE}
    figure.update_layout(
        paper_bgcolor="rgba(0, 0, 0, 0)",
        plot_bgcolor="rgba(0, 0, 0, 0)",
        font={"color": TEXT},
        legend={"bgcolor": "rgba(0, 0, 0, 0)"},
    )
    figure.update_xaxes(**axis)
    figure.update_yaxes(**axis)
    return figure
