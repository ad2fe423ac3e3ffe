"""Web tools against the loopback fake (reached only through an explicit NetPolicy)."""

from __future__ import annotations

import json

import pytest

from selectools.exceptions import ToolExecutionError
from selectools.toolbox import (
    HTTPStatusError,
    NetPolicy,
    SearchConfig,
    ToolboxConfigError,
    get_tools_by_category,
)
from selectools.toolbox.web_tools import MAX_TEXT_CHARS

from .conftest import BRAVE_KEY, LONG_TEXT, FakeWeb


def _web(fake_web: FakeWeb, search: SearchConfig | None = None) -> dict:
    return {t.name: t for t in get_tools_by_category("web", net=fake_web.allow, search=search)}


def test_get_pretty_prints_json(fake_web: FakeWeb) -> None:
    out = _web(fake_web)["http_get"].execute({"url": f"{fake_web.base}/json"})
    assert out == json.dumps({"name": "selectools", "tags": ["agents", "tools"]}, indent=2)


def test_long_text_is_truncated_to_5000_characters(fake_web: FakeWeb) -> None:
    out = _web(fake_web)["http_get"].execute({"url": f"{fake_web.base}/text"})
    assert out.startswith(LONG_TEXT[:MAX_TEXT_CHARS])
    assert out.endswith(f"[truncated: {len(LONG_TEXT) - 5000} more characters]")


def test_headers_are_a_json_string(fake_web: FakeWeb) -> None:
    tools = _web(fake_web)
    out = tools["http_get"].execute(
        {"url": f"{fake_web.base}/echo", "headers": '{"X-Test": "yes"}'}
    )
    assert json.loads(out)["x-test"] == "yes"
    with pytest.raises(ToolExecutionError, match="JSON object string"):
        tools["http_get"].execute({"url": f"{fake_web.base}/echo", "headers": "X-Test: yes"})


def test_post_sends_a_json_body(fake_web: FakeWeb) -> None:
    out = _web(fake_web)["http_post"].execute(
        {"url": f"{fake_web.base}/echo", "data": '{"name": "test"}'}
    )
    assert json.loads(out)["body"] == {"name": "test"}
    assert fake_web.requests[-1].headers["content-type"] == "application/json"


def test_a_303_after_post_becomes_a_get(fake_web: FakeWeb) -> None:
    out = _web(fake_web)["http_post"].execute(
        {"url": f"{fake_web.base}/redirect?status=303&to=/echo", "data": '{"a": 1}'}
    )
    assert json.loads(out)["method"] == "GET"


def test_a_307_keeps_method_and_body(fake_web: FakeWeb) -> None:
    out = _web(fake_web)["http_post"].execute(
        {"url": f"{fake_web.base}/redirect?status=307&to=/echo", "data": '{"a": 1}'}
    )
    assert json.loads(out) | {"host": None} == {
        "method": "POST", "body": {"a": 1}, "host": None, "authorization": None, "x-test": None,
    }  # fmt: skip


def test_error_status_is_a_typed_error(fake_web: FakeWeb) -> None:
    with pytest.raises(ToolExecutionError) as info:
        _web(fake_web)["http_get"].execute({"url": f"{fake_web.base}/status/404"})
    error = info.value.error
    assert isinstance(error, HTTPStatusError) and error.status_code == 404
    assert "HTTP 404 Not Found" in str(error)


def test_redirect_loops_stop(fake_web: FakeWeb) -> None:
    policy = NetPolicy(allow_hosts=("127.0.0.1",), max_redirects=2)
    tool = {t.name: t for t in get_tools_by_category("web", net=policy)}["http_get"]
    with pytest.raises(ToolExecutionError, match="More than 2 redirects"):
        tool.execute(
            {"url": f"{fake_web.base}/redirect?to=/redirect%3Fto%3D/redirect%253Fto%253D/json"}
        )
    assert len(fake_web.requests) == 3


def test_body_size_is_capped(fake_web: FakeWeb) -> None:
    policy = NetPolicy(allow_hosts=("127.0.0.1",), max_bytes=100)
    tool = {t.name: t for t in get_tools_by_category("web", net=policy)}["http_get"]
    out = tool.execute({"url": f"{fake_web.base}/html"})
    assert out == "<h1>Hello</h1>"
    out = tool.execute({"url": f"{fake_web.base}/text"})
    assert out == LONG_TEXT[:100] + "\n\n[truncated: response larger than the size limit]"


def test_web_search_brave_wire_format(fake_web: FakeWeb) -> None:
    search = SearchConfig("brave", base_url=fake_web.base, api_key=BRAVE_KEY)
    out = _web(fake_web, search)["web_search"].execute({"query": "selectools", "max_results": 2})
    assert out == (
        "1. selectools result 1\n   https://example.com/1\n   About selectools #1\n"
        "2. selectools result 2\n   https://example.com/2\n   About selectools #2"
    )
    seen = fake_web.requests[-1]
    assert seen.path == "/res/v1/web/search?q=selectools&count=2"


def test_web_search_searxng_wire_format(fake_web: FakeWeb) -> None:
    search = SearchConfig("searxng", base_url=fake_web.base)
    out = _web(fake_web, search)["web_search"].execute({"query": "agents"})
    assert out == "1. agents page\n   https://searx.example/1\n   snippet"


def test_web_search_bad_key_is_reported(fake_web: FakeWeb) -> None:
    search = SearchConfig("brave", base_url=fake_web.base, api_key="wrong")
    with pytest.raises(ToolExecutionError, match="HTTP 401"):
        _web(fake_web, search)["web_search"].execute({"query": "x"})
    assert "wrong" not in repr(search)


def test_web_search_from_environment(fake_web: FakeWeb, monkeypatch) -> None:
    monkeypatch.delenv("SEARXNG_URL", raising=False)
    monkeypatch.setenv("BRAVE_API_KEY", BRAVE_KEY)
    monkeypatch.setenv("BRAVE_SEARCH_URL", fake_web.base)
    out = _web(fake_web)["web_search"].execute({"query": "env", "max_results": 1})
    assert out.startswith("1. env result 1")


def test_web_search_without_a_backend_says_how_to_configure(monkeypatch) -> None:
    for var in ("SEARXNG_URL", "BRAVE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ToolExecutionError) as info:
        get_tools_by_category("web")[2].execute({"query": "x"})
    assert isinstance(info.value.error, ToolboxConfigError)
    assert "BRAVE_API_KEY" in str(info.value.error) and "SEARXNG_URL" in str(info.value.error)
