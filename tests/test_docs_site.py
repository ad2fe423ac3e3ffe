"""The documentation site builds with ``mkdocs build --strict``, and its API reference shows
every public name with its docstring.

``--strict`` makes the build fail on a broken link, a missing anchor or an API reference that
does not resolve (mkdocs.yml sets every check to warn, and strict turns warnings into errors).
"""

from __future__ import annotations

import html
import importlib
import inspect
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytest.importorskip("mkdocs")
pytest.importorskip("mkdocstrings_handlers.python")
pytest.importorskip("mkdocs_jupyter")
griffe = pytest.importorskip("griffe")

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "docs" / "api"
BUILD_DEADLINE = 300  # seconds; the build takes ~20-30 s on a loaded 2-core machine


def _documented_packages() -> list[str]:
    """The packages the API pages expand (``<!-- api: ... -->``), in page order."""
    marks = (re.findall(r"<!-- api: ([\w.]+) -->", page.read_text()) for page in API.glob("*.md"))
    return sorted(package for found in marks for package in found)


def _public_names() -> list[tuple[str, str]]:
    pairs = []
    for package in _documented_packages():
        module = importlib.import_module(package)
        pairs += [(package, name) for name in module.__all__ if name != "__version__"]
    return pairs


def _static(path: str) -> griffe.Object | griffe.Alias:
    """The object mkdocstrings renders for a dotted path (what static analysis sees)."""
    package = _selectools()
    for part in path.split(".")[1:]:
        package = package.members[part]
    return package


_loaded: list = []


def _selectools() -> griffe.Object:
    if not _loaded:
        _loaded.append(griffe.load("selectools", search_paths=[str(ROOT)]))
    return _loaded[0]


def _docstring(package: str, name: str) -> str:
    """The docstring the API reference renders for ``package.name``."""
    static = _static(package)
    if name in static.members:
        found = static.members[name]
    else:  # provided only at run time (a module __getattr__): rendered from where it is defined
        value = getattr(importlib.import_module(package), name)
        found = _static(value.__module__).members[value.__qualname__]
    return found.docstring.value if found.docstring else ""


class _Text(HTMLParser):
    """The visible text of a page, and the ids of its elements."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids.update(value for key, value in attrs if key == "id" and value)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _letters(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", html.unescape(text).lower())


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1"}
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_DEADLINE,
    )
    assert build.returncode == 0, build.stderr[-4000:]
    return out


def _first_output_line(notebook: Path) -> str:
    """The first line of text the committed notebook shows under a code cell."""
    for cell in json.loads(notebook.read_text())["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "text/html" in data:  # the page shows the HTML, not this text
                continue
            text = output.get("text") or data.get("text/plain", "")
            lines = [line for line in "".join(text).splitlines() if line.strip()]
            if lines:
                return lines[0]
    raise AssertionError(f"{notebook.name} has no saved output")


@pytest.mark.slow
@pytest.mark.timeout(BUILD_DEADLINE + 60)
def test_the_site_builds_strict_with_every_page(site):
    for page in ["getting-started", "providers", "evals", "api", "api/evals"]:
        assert (site / page / "index.html").is_file(), page
    # every demo notebook is a page showing its committed outputs (the build does not run it)
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert len(notebooks) >= 10
    for notebook in notebooks:
        parsed = _Text()
        parsed.feed((site / "notebooks" / notebook.stem / "index.html").read_text())
        assert _letters(_first_output_line(notebook)) in _letters(" ".join(parsed.text)), notebook
        # a saved plotly figure is JSON only: the page draws it with plotly.js
        figures = sum(
            "application/vnd.plotly.v1+json" in output.get("data", {})
            for cell in json.loads(notebook.read_text())["cells"]
            for output in cell.get("outputs", [])
        )
        page = (site / "notebooks" / notebook.stem / "index.html").read_text()
        assert page.count("Plotly.newPlot(") == figures, notebook


@pytest.mark.slow
@pytest.mark.timeout(BUILD_DEADLINE + 60)
def test_every_public_name_renders_with_its_docstring(site):
    pages: dict[str, _Text] = {}
    for package in _documented_packages():
        page = "api" if package == "selectools" else f"api/{package.split('.', 1)[1]}"
        parsed = _Text()
        parsed.feed((site / page / "index.html").read_text())
        pages[package] = parsed
    all_text = _letters(" ".join(chunk for parsed in pages.values() for chunk in parsed.text))
    names = _public_names()
    assert len(names) > 300
    undocumented, unrendered = [], []
    for package, name in names:
        docstring = (_docstring(package, name) or "").strip()
        if not docstring:
            undocumented.append(f"{package}.{name}")
            continue
        anchored = f"{package}.{name}" in pages[package].ids
        # another name for a class or function links to where the object itself is rendered
        value = getattr(importlib.import_module(package), name)
        own = inspect.getdoc(value) if inspect.isclass(value) or inspect.isroutine(value) else None
        shown = [docstring, own or ""]
        if not anchored or not any(
            _letters(doc.splitlines()[0]) in all_text for doc in shown if doc
        ):
            unrendered.append(f"{package}.{name}")
    assert not undocumented, f"public names without a docstring: {undocumented}"
    assert not unrendered, f"public names missing from the API reference: {unrendered}"


@pytest.mark.parametrize(
    ("page", "reported"),
    [
        ("[gone](missing.md)", "missing.md"),  # a link to a page that does not exist
        ("[gone](#nowhere)", "nowhere"),  # an anchor that does not exist
        ("[Agent][selectools.NoSuchName]", "selectools.NoSuchName"),  # an API reference
        ("[home](index.md#home)", None),  # the control: a good link builds
    ],
)
def test_a_broken_link_or_reference_fails_the_build(tmp_path, page, reported: str | None):
    """--strict with this mkdocs.yml's checks really fails (a tiny site, built fast)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(f"# Home\n\n{page}\n")
    config = (ROOT / "mkdocs.yml").read_text()
    validation = config[config.index("validation:") : config.index("markdown_extensions:")]
    (tmp_path / "mkdocs.yml").write_text(f"site_name: t\nplugins: [autorefs]\n{validation}")
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "s")],
        cwd=tmp_path,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    if reported is None:
        assert build.returncode == 0, build.stderr
    else:
        assert build.returncode != 0
        assert reported in build.stderr
