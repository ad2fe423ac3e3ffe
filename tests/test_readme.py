"""The README's Python examples run as written (in order, sharing one namespace)."""

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


def test_readme_has_examples():
    assert len(_python_blocks()) >= 3


def test_readme_examples_run(monkeypatch, tmp_path):
    # the provider-swap example only builds a provider: a placeholder key is enough
    monkeypatch.setenv("OPENAI_API_KEY", "sk-placeholder")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "readme"}
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        for block in _python_blocks():
            exec(compile(block, str(README), "exec"), namespace)
    printed = output.getvalue()
    assert "A laptop costs $999." in printed
    assert "📊 Usage Summary" in printed
    assert "It costs $699.\n" in printed  # a documented provider's tool ran under stream()
    assert "[('get_price', True)]\n" in printed  # the filtered observer saw the tool end
    assert "HELLO\n" in printed  # a ToolLike that is not a function wrapper ran
    assert "add → 42\n" in printed  # an MCP server's tool ran through the agent
    assert namespace["result"].content == "Hello from the fake server!"


@pytest.mark.parametrize("command", ['pip install -e ".[dev]" && python -m pytest'])
def test_readme_gives_the_ci_test_command(command):
    assert command in README.read_text()
    assert command in (README.parent / ".ci" / "run").read_text()
