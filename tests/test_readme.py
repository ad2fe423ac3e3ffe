"""The README: short, its example runs, its links resolve, its commands are the ones CI runs.

The guides' examples (docs/*.md) are run by tests/test_docs_examples.py; the README keeps one.
"""

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


def test_readme_is_short_and_has_an_example():
    assert _python_blocks()
    assert len(README.read_text().splitlines()) < 150  # the rest lives on the site (docs/)


def test_readme_examples_run(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "readme"}
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        for block in _python_blocks():
            exec(compile(block, str(README), "exec"), namespace)
    printed = output.getvalue()
    assert "A laptop costs $999.\n" in printed
    assert "tool_execution" in printed  # the timeline lists the tool call


def test_readme_links_resolve():
    """Every relative link (and picture) in the README points at a file or folder of the repo."""
    links = re.findall(r"\]\(([^)#]+)\)", README.read_text())
    relative = [link for link in links if "://" not in link]
    assert "docs/security.md" in relative and "docs/img/notebook-tour.png" in relative
    missing = [link for link in relative if not (README.parent / link).exists()]
    assert not missing, missing


def test_readme_links_every_guide():
    linked = set(re.findall(r"\]\((docs/[\w-]+\.md)\)", README.read_text()))
    guides = {
        f"docs/{page.name}"
        for page in (README.parent / "docs").glob("*.md")
        if page.name != "index.md"
    }
    assert guides - linked == set()


@pytest.mark.parametrize(
    ("command", "also_in"),
    [
        ('pip install -e ".[dev]" && python -m pytest', ".ci/run"),
        (
            'pip install -e ".[demos]" nbconvert && jupyter nbconvert --to notebook --execute '
            "notebooks/*.ipynb --output-dir build/notebooks",
            "docs/getting-started.md",
        ),
    ],
)
def test_readme_gives_the_quickstart_commands(command, also_in):
    assert command in README.read_text()
    assert command in (README.parent / also_in).read_text()


def _extra(name: str, seen: frozenset[str] = frozenset()) -> set[str]:
    """The requirement names an extra of this package installs, its own extras followed."""
    import tomllib

    project = tomllib.loads((README.parent / "pyproject.toml").read_text())["project"]
    names: set[str] = set()
    for requirement in project["optional-dependencies"][name]:
        match = re.match(r"([A-Za-z0-9_.-]+)(?:\[([^\]]*)\])?", requirement)
        assert match is not None, requirement
        if match.group(1) == project["name"]:
            for inner in match.group(2).split(","):
                if inner not in seen:
                    names |= _extra(inner, seen | {name})
        else:
            names.add(match.group(1).lower())
    return names


def test_the_quickstart_install_can_open_the_tour():
    """The first command's extra brings JupyterLab and Notebook 7, which the next command opens."""
    assert "jupyter lab notebooks/notebook_tour.ipynb" in README.read_text()
    assert {"jupyterlab", "notebook", "ipykernel"} <= _extra("demos")


def test_the_readme_says_why_tests_skip():
    text = README.read_text()
    command = text.index('pip install -e ".[dev]" && python -m pytest')
    assert "SELECTOOLS_SEEDS" in text[command : command + 600]


def _table_rows(text: str) -> list[tuple[int, int, int]]:
    """(line, cells, header cells) of each table row; an unescaped ``|`` always splits a cell."""
    rows = []
    lines = text.splitlines()
    header = 0
    for number, line in enumerate(lines, 1):
        if not line.startswith("|"):
            header = 0
            continue
        cells = len(re.split(r"(?<!\\)\|", line.strip().strip("|")))
        if not header:
            header = cells
        rows.append((number, cells, header))
    return rows


def test_every_table_row_is_as_wide_as_its_header():
    """A row with a stray ``|`` (a code span) or a row from another table breaks the layout."""
    pages = [README, *sorted((README.parent / "docs").glob("*.md"))]
    broken = [
        f"{page.name}:{number} has {cells} cells, its header {header}"
        for page in pages
        for number, cells, header in _table_rows(page.read_text())
        if cells != header
    ]
    assert not broken, broken
