"""MkDocs hooks for the selectools site (see mkdocs.yml).

* The demo notebooks live in ``notebooks/`` (nbval runs them there): they are added to the site
  as they are committed, outputs included; mkdocs-jupyter renders them and never executes them.
  Saved plotly figures (JSON only) get an HTML view that draws them with plotly.js.
* ``<!-- api: selectools.pkg -->`` in a page expands to one mkdocstrings block per name in that
  package's ``__all__``, so the API reference follows ``__all__`` without a hand-kept list. A
  name that an earlier page already documents (same object) is linked instead of rendered again.
  Every name gets the anchor ``selectools.pkg.Name`` (tests/test_docs_site.py checks them).
"""

from __future__ import annotations

import functools
import importlib
import json
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import griffe
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
PLOTLY_MIME = "application/vnd.plotly.v1+json"
# the notebook pages' charts load plotly.js when viewed (building the site needs no network)
PLOTLY_JS = "https://cdn.plot.ly/plotly-2.35.2.min.js"
_API_MARK = re.compile(r"^<!-- api: ([\w.]+) -->$", re.MULTILINE)

# where an object is defined -> the public path it is rendered under (pages render in file order)
_rendered: dict[str, str] = {}
# notebook copies made for one build, removed after it
_temporary: list[Path] = []


@event_priority(100)  # before mkdocs-jupyter looks for notebooks in the file list
def on_files(files: Files, config: Any) -> Files:
    figures_dir = Path(tempfile.mkdtemp(prefix="selectools-docs-"))
    _temporary.append(figures_dir)
    for notebook in sorted(NOTEBOOKS.glob("*.ipynb")):
        source = ROOT if _with_figures(notebook, figures_dir / "notebooks") is None else figures_dir
        # a real file under a source root (mkdocs-jupyter reads abs_src_path)
        files.append(
            File(
                f"notebooks/{notebook.name}",
                src_dir=str(source),
                dest_dir=config["site_dir"],
                use_directory_urls=config["use_directory_urls"],
            )
        )
    return files


def _with_figures(notebook: Path, out_dir: Path) -> Path | None:
    """A copy of ``notebook`` whose plotly outputs also carry HTML that draws them, or None.

    A saved plotly figure is JSON only (``application/vnd.plotly.v1+json``), which nbconvert
    cannot show; the copy adds a ``text/html`` view that draws that JSON with plotly.js.
    """
    content = json.loads(notebook.read_text(encoding="utf-8"))
    figures = 0
    for cell in content["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if PLOTLY_MIME in data and "text/html" not in data:
                figures += 1
                data["text/html"] = _figure_html(
                    f"figure-{notebook.stem}-{figures}", data[PLOTLY_MIME]
                )
    if not figures:
        return None
    out_dir.mkdir(parents=True, exist_ok=True)
    copy = out_dir / notebook.name
    copy.write_text(json.dumps(content), encoding="utf-8")
    return copy


def _figure_html(element_id: str, figure: dict[str, Any]) -> str:
    spec = json.dumps({"data": figure.get("data", []), "layout": figure.get("layout", {})})
    spec = spec.replace("</", "<\\/")  # the JSON sits inside a <script> element
    return (
        f'<div id="{element_id}" class="selectools-figure"></div>\n'
        f'<script src="{PLOTLY_JS}"></script>\n'
        f"<script>(function () {{ var figure = {spec};\n"
        f'Plotly.newPlot("{element_id}", figure.data, figure.layout, {{responsive: true}}); }})();'
        "</script>\n"
    )


def on_post_build(config: Any) -> None:
    while _temporary:
        shutil.rmtree(_temporary.pop(), ignore_errors=True)


def on_pre_build(config: Any) -> None:
    _rendered.clear()
    _static_package.cache_clear()  # `mkdocs serve` rebuilds after edits


def public_names(package: str) -> list[str]:
    """The names a package exports, as the API pages list them.

    Importing a package runs only its ``__init__`` (the exports are lazy), so the site builds
    with the ``docs`` extra alone: nothing here imports an optional dependency.
    """
    module = importlib.import_module(package)
    return [name for name in module.__all__ if name != "__version__"]


@functools.cache
def _static_package() -> Any:
    """``selectools`` as static analysis sees it (what mkdocstrings renders), loaded once."""
    return griffe.load("selectools", search_paths=[str(ROOT)])


def _static(path: str) -> Any:
    found = _static_package()
    for part in path.split(".")[1:]:
        found = found.members[part]
    return found


def source_path(package: str, name: str) -> str:
    """Where the object ``package.name`` is defined (two names of one object share it).

    A name the package provides only at run time (a module ``__getattr__`` that static analysis
    cannot follow) is looked up at run time.
    """
    members = _static(package).members
    if name not in members:
        value = getattr(importlib.import_module(package), name)
        return f"{value.__module__}.{value.__qualname__}"
    member = members[name]
    if not member.is_alias:
        return str(member.path)
    try:
        return str(member.final_target.path)
    except griffe.AliasResolutionError:
        return str(member.target_path)


def _api_blocks(package: str) -> str:
    names = public_names(package)
    sources = {name: source_path(package, name) for name in names}
    # the name an object is defined under renders it; another name for it links there
    for name in sorted(names, key=lambda name: sources[name].rsplit(".", 1)[-1] != name):
        _rendered.setdefault(sources[name], f"{package}.{name}")
    blocks = []
    for name in names:
        path, first = f"{package}.{name}", _rendered[sources[name]]
        if first != path:
            blocks.append(f"### `{name}` {{#{path}}}\n\nThe same object as [`{first}`][{first}].\n")
        elif name in _static(package).members:
            blocks.append(f"::: {path}\n")
        else:
            blocks.append(f'<a id="{path}"></a>\n\n::: {sources[name]}\n')
    return "\n".join(blocks)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    return _API_MARK.sub(lambda match: _api_blocks(match.group(1)), markdown)
