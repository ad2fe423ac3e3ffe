"""The README's Python examples run as written (in order, sharing one namespace).

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


def test_readme_has_an_example():
    assert _python_blocks()


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
    """Every relative link in the README points at a file or folder of the repository."""
    links = re.findall(r"\]\(([^)#]+)\)", README.read_text())
    relative = [link for link in links if "://" not in link]
    assert relative
    missing = [link for link in relative if not (README.parent / link).exists()]
    assert not missing, missing


@pytest.mark.parametrize("command", ['pip install -e ".[dev]" && python -m pytest'])
def test_readme_gives_the_ci_test_command(command):
    assert command in README.read_text()
    assert command in (README.parent / ".ci" / "run").read_text()
