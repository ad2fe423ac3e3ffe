"""Templates and YAML/dict configs, through the public API, with the offline and scripted providers."""

from __future__ import annotations

import sqlite3
import textwrap

import pytest

from selectools.providers.stubs import LocalProvider
from selectools.templates import (
    TemplateConfigError,
    auto_provider_name,
    from_dict,
    from_yaml,
    list_templates,
    load_template,
)
from selectools.testing import ScriptedProvider, tool_call

KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY")


@pytest.fixture(autouse=True)
def no_keys(monkeypatch, tmp_path):
    for key in KEYS:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env file from the developer's checkout


def test_list_templates_is_sorted():
    assert list_templates() == [
        "code_reviewer", "customer_support", "data_analyst", "rag_chatbot", "research_assistant"
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "tools", "iterations"),
    [
        ("customer_support", ["lookup_customer", "search_help_articles", "create_ticket"], 5),
        ("research_assistant", ["web_search", "read_url", "save_notes"], 8),
    ],
)
def test_documented_templates(name, tools, iterations):
    agent = load_template(name, provider=LocalProvider())
    assert [t.name for t in agent.tools] == tools
    assert agent.config.max_iterations == iterations
    assert agent.model == "gpt-4o-mini"
    assert agent.system_prompt


def test_overrides_are_agent_config_fields():
    agent = load_template(
        "research_assistant", provider=LocalProvider(), model="gpt-4o", max_iterations=12
    )
    assert (agent.model, agent.config.max_iterations) == ("gpt-4o", 12)
    with pytest.raises(TemplateConfigError, match="no_such_field"):
        load_template("customer_support", provider=LocalProvider(), no_such_field=1)


def test_unknown_template_suggests_a_name():
    with pytest.raises(TemplateConfigError, match="did you mean 'customer_support'"):
        load_template("customer_suport", provider=LocalProvider())


def test_customer_support_tools_work_end_to_end():
    provider = ScriptedProvider(
        [
            tool_call("lookup_customer", email="bob@example.com"),
            tool_call("search_help_articles", query="unlock locked account"),
            tool_call("create_ticket", email="bob@example.com", summary="still locked"),
            "Your ticket is T-1001.",
        ]
    )
    agent = load_template("customer_support", provider=provider)
    result = agent.run("I can't log into my account")
    assert result.content == "Your ticket is T-1001."
    tool_texts = [m.content for m in result.messages if m.role.value == "tool"]
    assert "locked" in tool_texts[0]
    assert tool_texts[1].startswith("Unlock a locked account:")
    assert tool_texts[2] == "Created ticket T-1001 (normal) for bob@example.com"
    assert agent.tickets[0]["summary"] == "still locked"


def test_data_analyst_queries_sqlite(tmp_path):
    db = tmp_path / "sales.db"
    with sqlite3.connect(db) as conn:
        conn.execute("create table revenue (month text, amount int)")
        conn.executemany("insert into revenue values (?, ?)", [("Oct", 10), ("Nov", 12)])
    provider = ScriptedProvider(
        [tool_call("query_sqlite", sql="select sum(amount) as total from revenue"), "22"]
    )
    agent = load_template("data_analyst", provider=provider, database=str(db))
    assert "query_sqlite" in [t.name for t in agent.tools]
    result = agent.run("total revenue?")
    assert "22" in result.messages[-2].content


def test_rag_chatbot_searches_its_documents():
    docs = {
        "ssl.md": "Configure SSL certificates in Settings > TLS.\n\nUpload a PEM file.",
        "billing.md": "Invoices are monthly.",
    }
    provider = ScriptedProvider(
        [tool_call("search_knowledge_base", query="configure SSL certificates"), "See [ssl.md]."]
    )
    agent = load_template("rag_chatbot", provider=provider, documents=docs)
    result = agent.run("How do I configure SSL certificates?")
    passages = result.messages[-2].content
    assert passages.startswith("[ssl.md] Configure SSL certificates")
    assert "billing" not in passages


def test_code_reviewer_reads_files_in_its_root(tmp_path):
    (tmp_path / "app.py").write_text("password = 'hunter2'\n")
    provider = ScriptedProvider([tool_call("read_file", filepath="app.py"), "Hard-coded secret."])
    agent = load_template("code_reviewer", provider=provider, root=str(tmp_path))
    assert "write_file" not in [t.name for t in agent.tools]
    result = agent.run("Review app.py")
    assert "hunter2" in result.messages[-2].content


def test_auto_provider_prefers_openai_then_anthropic_then_gemini(monkeypatch):
    assert auto_provider_name() == "local"
    monkeypatch.setenv("GEMINI_API_KEY", "x")
    assert auto_provider_name() == "gemini"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "x")
    assert auto_provider_name() == "anthropic"
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    assert auto_provider_name() == "openai"


def test_from_dict_maps_sections_to_agent_config():
    agent = from_dict(
        {
            "provider": "local",
            "model": "m",
            "temperature": 0.3,
            "system_prompt": "Be brief.",
            "tools": ["selectools.toolbox.file_tools.read_file"],
            "retry": {"max_retries": 3},
            "budget": {"max_cost_usd": 0.25, "max_tokens": 5000},
            "coherence": {"enabled": False},
            "trace": {"enabled": True},
        }
    )
    c = agent.config
    assert (c.model, c.temperature, c.max_retries, c.max_cost_usd, c.max_total_tokens) == (
        "m", 0.3, 3, 0.25, 5000
    )  # fmt: skip
    assert c.max_iterations == 10  # the documented YAML default
    assert [t.name for t in agent.tools] == ["read_file"]
    assert agent.run("Hello!").content == "Hello!"


def test_from_dict_provider_argument_wins():
    scripted = ScriptedProvider(default="scripted answer")
    agent = from_dict({"provider": "openai"}, provider=scripted)
    assert agent.run("hi").content == "scripted answer"


def test_a_network_provider_without_its_key_says_so():
    with pytest.raises(TemplateConfigError, match="OPENAI_API_KEY"):
        from_dict({"provider": "openai"})


def write(tmp_path, text, name="agent.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_from_yaml_with_a_relative_tool_file(tmp_path):
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "shout.py").write_text(
        "from selectools import tool\n\n@tool\ndef shout(text: str) -> str:\n"
        "    '''Upper-case the text.'''\n    return text.upper()\n"
    )
    path = write(
        tmp_path,
        """\
        provider: local
        max_iterations: 4
        tools:
          - ./tools/shout.py
        """,
    )
    agent = from_yaml(path)
    assert [t.name for t in agent.tools] == ["shout"]
    assert agent.config.max_iterations == 4


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("provider: local\nmodel: [unclosed\n", 3, "not valid YAML"),
        ("provider: local\ntemperature: hot\n", 2, "temperature must be a number"),
        ("provider: local\nbudget:\n  max_cost: 1\n", 3, "expected one of max_cost_usd"),
        ("provider: nope\n", 1, "provider must be one of"),
        ("provider: local\nmax_iteration: 3\n", 2, "unknown setting 'max_iteration'"),
        ("provider: local\ntools:\n  - ../outside.py\n", 3, "outside the config's directory"),
        ("provider: local\ntools:\n  - selectools.toolbox.nope.x\n", 3, "cannot import"),
        ("provider: local\ntools:\n  - ./missing.py\n", 3, "not found"),
    ],
)
def test_yaml_errors_name_file_line_and_expectation(tmp_path, text, line, words):
    path = write(tmp_path, text)
    with pytest.raises(TemplateConfigError) as info:
        from_yaml(path)
    assert info.value.path == str(path)
    assert info.value.line == line
    assert words in str(info.value)
    assert str(info.value).startswith(f"{path}, line {line}: ")


def test_missing_and_empty_files(tmp_path):
    with pytest.raises(TemplateConfigError, match="config file not found"):
        from_yaml(tmp_path / "nope.yaml")
    with pytest.raises(TemplateConfigError, match="empty"):
        from_yaml(write(tmp_path, ""))
