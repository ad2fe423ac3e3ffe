"""``%selectools serve``: a notebook agent served in the background, stopped by its handle."""

from __future__ import annotations

import httpx
import pytest
from IPython.core.error import UsageError

from selectools import Agent
from selectools.testing import ScriptedProvider


def test_serve_a_notebook_agent_and_stop_it(shell):
    shell.user_ns["helper"] = Agent(provider=ScriptedProvider(default="from the notebook"))
    handle = shell.run_line_magic("selectools", "serve helper")
    try:
        assert handle.running
        assert handle.url.startswith("http://127.0.0.1:")
        answer = httpx.post(f"{handle.url}/invoke", json={"prompt": "hi"}).json()
        assert answer["content"] == "from the notebook"
        html = handle._repr_html_()
        assert f'<iframe src="{handle.url}/playground"' in html
        assert "helper: ServerHandle(" in shell.run_line_magic("selectools", "serve")
    finally:
        stopped = shell.run_line_magic("selectools", "serve helper --stop")
    assert stopped is handle
    assert not handle.running
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{handle.url}/health")
    assert shell.run_line_magic("selectools", "serve").startswith("no servers running")


def test_serve_a_template_by_name(shell):
    handle = shell.run_line_magic("selectools", "serve customer_support")
    try:
        tools = httpx.get(f"{handle.url}/health").json()["tools"]
        assert tools == ["lookup_customer", "search_help_articles", "create_ticket"]
    finally:
        shell.run_line_magic("selectools", "serve customer_support --stop")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("serve nothing_here", "no Agent variable, template or YAML file named 'nothing_here'"),
        ("serve number", "'number' is a int, not an Agent"),
        ("serve helper --stop", "no server named 'helper' is running"),
        ("serve helper --port many", "argument --port: invalid int value"),
    ],
)
def test_usage_errors(shell, line, message):
    shell.user_ns["number"] = 5
    with pytest.raises(UsageError, match=message):
        shell.run_line_magic("selectools", line)
