"""Where the widgets' front-end files are: the one resolver every widget class uses.

The ES modules and CSS live in the repository's top-level ``widgets/`` folder (plain
files, no build step); the wheel ships that folder as ``selectools/_widgets``
(``[tool.hatch.build.targets.wheel.force-include]`` in ``pyproject.toml``). The folder
is found once, at import: the installed copy when there is one, else the checkout's.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["WIDGETS_DIR", "widget_path"]

_PACKAGE = Path(__file__).resolve().parents[1]


def _widgets_dir() -> Path:
    installed = _PACKAGE / "_widgets"
    return installed if installed.is_dir() else _PACKAGE.parent / "widgets"


#: the folder holding the widgets' ``.js`` and ``.css`` files
WIDGETS_DIR = _widgets_dir()


def widget_path(name: str) -> Path:
    """The front-end file ``name`` (e.g. ``"live_run.js"``); a clear error when it is missing."""
    path = WIDGETS_DIR / name
    if Path(name).name != name or not path.is_file():
        raise FileNotFoundError(
            f"selectools widget file {name!r} is not in {WIDGETS_DIR}: the installation is "
            "incomplete (reinstall selectools-jupyter, or run from a checkout with widgets/)"
        )
    return path
