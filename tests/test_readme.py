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
    # the serve section: a template behind a real server, with a token
    assert (
        "I can't log in · ['lookup_customer', 'search_help_articles', 'create_ticket']\n" in printed
    )
    assert "📊 Usage Summary" in printed
    assert "It costs $699.\n" in printed  # a documented provider's tool ran under stream()
    assert "'Streaming ' | Streaming  | 1\nTrue\n" in printed  # AgentStream.partial_text
    assert "[('get_price', True)]\n" in printed  # the filtered observer saw the tool end
    assert "HELLO\n" in printed  # a ToolLike that is not a function wrapper ran
    assert "Wrote 8 characters to notes/todo.txt\n" in printed  # the toolbox's file tools
    assert "Refused path '../.env': '..' leaves the root." in printed
    assert "cloud metadata\n" in printed  # the SSRF guard
    assert (tmp_path / "workspace" / "notes" / "todo.txt").read_text() == "buy milk"
    assert "add → 42\n" in printed  # an MCP server's tool ran through the agent
    assert namespace["result"].content == "Hello from the fake server!"
    assert "[('deny', 'headless')]\n" in printed  # an approval nobody could answer
    assert "$999. ['think']\n" in printed  # a scheduled run used a reasoning tool
    # the OTel spans of that run, then the one run the trace store kept
    assert "['agent.run', 'gen_ai.llm.call', 'gen_ai.tool.execution']\n1\n" in printed
    # the graph section: an interrupt, then the resumed run
    assert "True Publish?\nDraft about graphs (approved: yes)\n" in printed
    # the guardrails section
    assert "Check https://shop.example for me, [EMAIL:********]\n" in printed
    assert (
        "[Tool output blocked: potential prompt injection detected. 3 suspicious pattern(s) found.]\n"
        in printed
    )
    assert "Guardrail 'topic' blocked: Denied topics detected: politics\n" in printed
    assert "['run_start', 'guardrail', 'llm_end']\n" in printed
    # the RAG section: a resumable ingestion with the fast offline embedder
    assert "2 0 2\nshipping.md\n" in printed
    assert "50% {'output': 1}\nFalse\n" in printed  # the evals section
    assert (tmp_path / "results.xml").read_text().startswith("<?xml")
    # snapshot mode caught a changed answer; the dashboard served the run on loopback
    assert "['hi'] ['-Hello! How can I help?', '+Hi there!']\nTrue 0.5\n" in printed
    assert (
        '"output": "Hello! How can I help?"'
        in (tmp_path / "snapshots/support.snap.json").read_text()
    )
    assert "shipping.txt (chunk 0)\n" in printed  # the offline model retrieved by meaning
    assert (
        "[Known Entities]\n- Alice (person): role=engineer\n\n"
        "[Known Relationships]\n- Alice works_at Acme (0.90)\n\n"
        "[Long-term Memory]\n## people\n- Alice prefers Python\n"
    ) in printed
    # the pipelines section: an agent step between two function steps, then a parallel group
    assert "{'upper': 'QUBITS HOLD 0 AND 1 AT ONCE.', 'count_words': 7}\n" in printed
    assert "[('clean', 'ok'), ('summarizer', 'ok'), ('parallel', 'ok')]\n" in printed


@pytest.mark.parametrize("command", ['pip install -e ".[dev]" && python -m pytest'])
def test_readme_gives_the_ci_test_command(command):
    assert command in README.read_text()
    assert command in (README.parent / ".ci" / "run").read_text()
