"""The provider pages' code examples run against the FakeLLMServer (as written, or with the prelude/fill listed in the entry).

Environment variables (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GEMINI_BASE_URL,
OLLAMA_HOST, AZURE_OPENAI_*, and the keys) point every provider at the server;
see _catalog.py for preludes, fills and scripts.
"""

from __future__ import annotations

import pytest

from selectools.testing import FakeLLMServer

from ._catalog import filled_code, load_examples, run_source, script_items

pytestmark = [
    pytest.mark.timeout(60),
    # the anthropic SDK warns that the model the PROVIDERS page names is being retired
    pytest.mark.filterwarnings("ignore:The model 'claude-sonnet-4-5:DeprecationWarning"),
]

EXAMPLES = load_examples()
RUNNABLE = [e for e in EXAMPLES if "reason" not in e]


@pytest.mark.parametrize("example", RUNNABLE, ids=[e["id"] for e in RUNNABLE])
def test_seed_example_runs(example, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)  # files an example writes (the reader's photo) stay out of the repo
    port = example.get("server_port", 0)
    try:
        server = FakeLLMServer(port=port).start()
    except OSError:
        pytest.skip(f"port {port} is in use; this example's code names it explicitly")
    with server:
        for name, value in server.env(api_key="sk-seed-example-key").items():
            monkeypatch.setenv(name, value)
        server.add(*script_items(example))
        namespace: dict = {"__name__": "__main__"}
        if "prelude" in example:
            run_source(example["prelude"], namespace, f"<prelude of {example['id']}>")
        where = f"<{example['seed']}:{example['line']} {example['id']}>"
        run_source(filled_code(example), namespace, where)
        if "check" in example:
            namespace["server"] = server
            run_source(example["check"], namespace, f"<check of {example['id']}>")
        output = capsys.readouterr().out
        for expected in example.get("stdout", []):
            assert expected in output, f"{expected!r} not printed; output was:\n{output}"
        assert server.remaining == 0, "the example made fewer model calls than scripted"
        assert server.errors == []


def test_every_example_not_run_says_why():
    for example in EXAMPLES:
        if "reason" in example:
            assert len(example["reason"]) > 20 and not example.get("script")
