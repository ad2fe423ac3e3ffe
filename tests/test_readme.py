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
