"""Every Python example in the documentation pages (docs/*.md) runs as written.

A page's ``python`` blocks run in order in one namespace, in a fresh working directory, offline
(ScriptedProvider, LocalProvider, the fake server). A block preceded by ``<!-- not-run: why -->``
is shown but not run (it needs a real key or service); the page says so in its text. A
``text title="Output"`` block that directly follows a python block is what that block prints:
the test checks the block's output contains it, line for line (a line ending in ``...`` may go
on with anything, e.g. a temporary path).
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"

_FENCE = re.compile(
    r"(?P<skip><!-- not-run: [^>]+ -->\n)?```(?P<info>[^\n]*)\n(?P<body>.*?)```\n",
    flags=re.DOTALL,
)
_OUTPUT_INFO = 'text title="Output"'


@dataclass
class Example:
    code: str
    line: int  # where the block starts in the page, for the traceback
    run: bool
    output: str | None = None


def page_examples(page: Path) -> list[Example]:
    """The python blocks of a page, each with the output block that follows it, if any."""
    text = page.read_text(encoding="utf-8")
    examples: list[Example] = []
    last_end = -1
    for match in _FENCE.finditer(text):
        info = match["info"].strip()
        if info == "python":
            line = text.count("\n", 0, match.start("body")) + 1
            examples.append(Example(match["body"], line, run=match["skip"] is None))
        elif info == _OUTPUT_INFO:
            follows = examples and not text[last_end : match.start()].strip()
            assert follows, f"{page.name}: an Output block must directly follow a python block"
            examples[-1].output = match["body"]
        last_end = match.end()
    return examples


def printed_as_shown(expected: str, printed: str) -> bool:
    """Whether ``printed`` contains the ``expected`` lines, a trailing ``...`` matching any rest."""
    lines = [
        re.escape(line[:-3]) + r"[^\n]*" if line.endswith("...") else re.escape(line)
        for line in expected.splitlines()
    ]
    return re.search("^" + "\n".join(lines) + "\n", printed, flags=re.MULTILINE) is not None


PAGES = sorted(page for page in DOCS.glob("**/*.md") if page_examples(page))


def test_the_guides_have_examples():
    assert len(PAGES) >= 12


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(DOCS)))
def test_page_examples_run(page, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    examples = page_examples(page)
    assert any(example.run for example in examples), f"{page.name} has no runnable example"
    namespace: dict = {"__name__": f"docs.{page.stem}"}
    for example in examples:
        if not example.run:
            compile(example.code, str(page), "exec")  # shown, not run: it must still parse
            continue
        printed = io.StringIO()
        # pad so a traceback names the line in the page
        code = compile("\n" * (example.line - 1) + example.code, str(page), "exec")
        with contextlib.redirect_stdout(printed):
            exec(code, namespace)
        if example.output is not None:
            assert printed_as_shown(example.output, printed.getvalue()), (
                f"{page.name}:{example.line}: printed {printed.getvalue()!r}, "
                f"the page shows {example.output!r}"
            )


def test_output_blocks_are_read_and_compared(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        '```python\nprint("hi")\n```\n\n```text title="Output"\nbye\n```\n\n'
        '<!-- not-run: needs a key -->\n```python\nprint("never")\n```\n'
    )
    shown, not_run = page_examples(page)
    assert (shown.output, shown.run, not_run.run) == ("bye\n", True, False)
    assert not printed_as_shown(shown.output, "hi\n")
    assert printed_as_shown("a\nError: path ...\n", "a\nError: path /tmp/x is out\nb\n")
    assert not printed_as_shown("a\nError: path ...\n", "a\nError: file /tmp/x\n")
    assert not printed_as_shown("a\nb\n", "a\nbc\n")  # whole lines
    assert not printed_as_shown("b\n", "ab\n")


#: what tests/test_readme.py checked when the guides were README sections: each page still shows
#: (and so test_page_examples_run still checks) these outputs
MOVED_FROM_THE_README = {
    "getting-started.md": ["A laptop costs $999.", "📊 Usage Summary", "You asked: Phone?"],
    "providers.md": [
        "It costs $699.",
        "'Streaming ' | Streaming  | 1\nTrue",
        "Hi {{ user.name }}! | get_price | unterminated JSON after TOOL_CALL",
        "run_timeout",
    ],
    "observers.md": ["[('get_price', True)]"],
    "tools.md": ["HELLO"],
    "memory.md": [
        "['My name is Ada.', 'I work on engines.', 'What do you know about me?']",
        "[Known Entities]\n- Alice (person): role=engineer\n\n[Known Relationships]\n"
        "- Alice works_at Acme (0.90)\n\n[Long-term Memory]\n## people\n- Alice prefers Python",
    ],
    "toolbox.md": [
        "Wrote 8 characters to notes/todo.txt",
        "Refused path '../.env': '..' leaves the root.",
        "buy milk",
        "cloud metadata",
    ],
    "mcp.md": ["add → 42"],
    "testing.md": ["Hello from the fake server!"],
    "notebook.md": ["[('deny', 'headless')]"],
    "observability.md": [
        "$999. ['think']\n['agent.run', 'gen_ai.llm.call', 'gen_ai.tool.execution']\n1"
    ],
    "graphs.md": ["True Publish?\nDraft about graphs (approved: yes)"],
    "guardrails.md": [
        "Check https://shop.example for me, [EMAIL:********]",
        "[Tool output blocked: potential prompt injection detected. 3 suspicious pattern(s) found.]",
        "Guardrail 'topic' blocked: Denied topics detected: politics",
        "['run_start', 'guardrail', 'llm_end']",
    ],
    "evals.md": [
        "50% {'output': 1}\nFalse\nTrue",  # the last line: results.xml is JUnit XML
        "True\n['hi'] ['-Hello! How can I help?', '+Hi there!']",  # the snapshot file, the diff
        "True 0.5",
    ],
    "serve.md": ["I can't log in · ['lookup_customer', 'search_help_articles', 'create_ticket']"],
    "rag.md": ["shipping.txt (chunk 0)", "2 0 2\nshipping.md"],
    "pipelines.md": [
        "{'upper': 'QUBITS HOLD 0 AND 1 AT ONCE.', 'count_words': 7}",
        "[('clean', 'ok'), ('summarizer', 'ok'), ('parallel', 'ok')]",
    ],
}


@pytest.mark.parametrize("name", sorted(MOVED_FROM_THE_README))
def test_the_readme_checks_moved_with_their_examples(name):
    shown = "".join(example.output or "" for example in page_examples(DOCS / name) if example.run)
    missing = [text for text in MOVED_FROM_THE_README[name] if text not in shown]
    assert not missing, f"{name} no longer shows {missing}"
