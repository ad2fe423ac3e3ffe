"""The builder's server side: page, login with a signed cookie, running a workflow as SSE."""

from __future__ import annotations

import json

import httpx
import pytest

from selectools.serve._starlette_app import create_builder_app
from selectools.serve.app import serve_in_background
from selectools.serve.builder import sign_session, valid_session
from selectools.testing import ScriptedProvider


def chain(*agents: dict, edges: list[tuple[str, str]] | None = None) -> dict:
    nodes = [{"id": "start", "type": "start"}, *agents, {"id": "end", "type": "end"}]
    if edges is None:
        ids = [n["id"] for n in nodes]
        edges = list(zip(ids, ids[1:]))
    return {"nodes": nodes, "edges": [{"from": a, "to": b} for a, b in edges]}


def agent(node_id: str, **fields: str) -> dict:
    return {"id": node_id, "type": "agent", "name": node_id, **fields}


def upper(request):  # type: ignore[no-untyped-def]
    return f"<{request.system_prompt}> {request.last_message.content}".upper()


@pytest.fixture
def builder():
    handle = serve_in_background(create_builder_app(provider=ScriptedProvider(upper)))
    yield handle
    handle.stop()


def events(url: str, body: dict) -> list[dict]:
    out = []
    with httpx.stream("POST", f"{url}/builder/run", json=body) as response:
        assert response.status_code == 200, response.read()
        for line in response.iter_lines():
            if line.startswith("data: "):
                data = line[len("data: ") :]
                out.append({"type": "[DONE]"} if data == "[DONE]" else json.loads(data))
    return out


def test_a_chain_runs_agent_by_agent(builder):
    workflow = chain(agent("a1", system_prompt="first"), agent("a2", system_prompt="second"))
    got = events(builder.url, {"workflow": workflow, "prompt": "hi"})
    kinds = [e["type"] for e in got]
    assert kinds[0] == "node_start" and kinds[-2:] == ["result", "[DONE]"]
    ends = [e for e in got if e["type"] == "node_end"]
    assert [e["node"] for e in ends] == ["a1", "a2"]
    assert ends[0]["output"] == "<FIRST> HI"
    assert ends[1]["output"] == "<SECOND> <FIRST> HI"
    assert ends[0]["t0"] <= ends[0]["t1"] <= ends[1]["t0"] <= ends[1]["t1"]
    assert all(e["tokens"] > 0 for e in ends)
    chunks = "".join(e["content"] for e in got if e["type"] == "chunk" and e["node"] == "a2")
    assert chunks == "<SECOND> <FIRST> HI"
    assert got[-2]["content"] == "<SECOND> <FIRST> HI"


@pytest.mark.parametrize(
    ("workflow", "code", "words"),
    [
        (chain(), "invalid_workflow", "at least one Agent"),
        (chain(agent("a1"), edges=[("start", "a1")]), "invalid_workflow", "connect it on to END"),
        (
            chain(
                agent("a1"), agent("a2"), edges=[("start", "a1"), ("start", "a2"), ("a1", "end")]
            ),
            "needs_agentgraph",
            "branch",
        ),
        (chain({"id": "h", "type": "hitl"}), "needs_agentgraph", "hitl"),
        ({"nodes": "x", "edges": []}, "invalid_workflow", "list of nodes"),
    ],
)
def test_bad_workflows_are_refused_with_the_reason(builder, workflow, code, words):
    r = httpx.post(f"{builder.url}/builder/run", json={"workflow": workflow, "prompt": "hi"})
    assert r.status_code == 400
    assert r.json()["error"]["code"] == code
    assert words in r.json()["error"]["message"]


def test_page_and_assets(builder):
    page = httpx.get(f"{builder.url}/builder")
    assert page.status_code == 200
    assert "selectools builder" in page.text and "scripted" in page.text
    assert "http" not in page.text.replace('xmlns="http://www.w3.org/2000/svg"', "")  # no CDN
    js = httpx.get(f"{builder.url}/builder/static/builder.js")
    assert js.headers["content-type"].startswith("text/javascript")
    assert "export" in js.text or "toPython" in js.text
    assert httpx.get(f"{builder.url}/builder/static/app.py").status_code == 404
    assert httpx.get(f"{builder.url}/", follow_redirects=False).headers["location"] == "/builder"


def test_token_auth_with_a_signed_cookie():
    handle = serve_in_background(
        create_builder_app(provider=ScriptedProvider(upper), auth_token="sekret")
    )
    try:
        url = handle.url
        page = httpx.get(f"{url}/builder", follow_redirects=False)
        assert (page.status_code, page.headers["location"]) == (303, "/login")
        assert httpx.get(f"{url}/login").status_code == 200
        body = {"workflow": chain(agent("a1")), "prompt": "x"}
        assert httpx.post(f"{url}/builder/run", json=body).status_code == 401
        assert httpx.get(f"{url}/builder/static/builder.js").status_code == 401
        assert httpx.post(f"{url}/login", json={"token": "wrong"}).status_code == 401
        login = httpx.post(f"{url}/login", json={"token": "sekret"})
        assert login.status_code == 200
        cookie = login.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie
        assert httpx.get(f"{url}/builder", cookies=login.cookies).status_code == 200
        forged = {"selectools_builder": "9999999999.deadbeef"}
        assert (
            httpx.get(f"{url}/builder", cookies=forged, follow_redirects=False).status_code == 303
        )
        bearer = httpx.post(
            f"{url}/builder/run", json=body, headers={"Authorization": "Bearer sekret"}
        )
        assert bearer.status_code == 200
    finally:
        handle.stop()


def test_session_cookies_expire_and_are_bound_to_the_token():
    cookie = sign_session("t", now=1000.0)
    assert valid_session("t", cookie, now=1001.0)
    assert not valid_session("other", cookie, now=1001.0)
    assert not valid_session("t", cookie, now=1000.0 + 13 * 3600)
    assert not valid_session("t", None)


def test_token_from_the_environment(monkeypatch):
    from selectools.serve.builder import builder_token

    monkeypatch.setenv("BUILDER_AUTH_TOKEN", "from-env")
    assert builder_token(None) == "from-env"
    assert builder_token("flag") == "flag"
