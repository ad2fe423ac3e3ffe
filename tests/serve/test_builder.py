"""The builder's sign-in: page, login with a signed cookie, tokens, the CLI, hostile bodies.

The builder never runs open: with no token configured it makes one, so every test
signs in (``Authorization: Bearer``, the cookie from ``/login`` or ``/?token=``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from selectools.serve._builder_app import create_builder_app
from selectools.serve.app import serve_in_background
from selectools.serve.builder import sign_session, valid_session
from selectools.testing import ScriptedProvider


def chain(*agents: dict, edges: list[tuple[str, str]] | None = None) -> dict:
    nodes = [{"id": "start", "type": "start"}, *agents, {"id": "end", "type": "end"}]
    if edges is None:
        ids = [n["id"] for n in nodes]
        edges = list(zip(ids, ids[1:], strict=False))
    return {"name": "w", "nodes": nodes, "edges": [{"from": a, "to": b} for a, b in edges]}


def agent(node_id: str, **fields: str) -> dict:
    return {"id": node_id, "type": "agent", "name": node_id, **fields}


def upper(request):  # type: ignore[no-untyped-def]
    return f"<{request.system_prompt}> {request.last_message.content}".upper()


ROOT = Path(__file__).resolve().parents[2]


class Builder:
    """A builder on a free port and a client signed in with its token."""

    def __init__(self, app) -> None:  # type: ignore[no-untyped-def]
        self.handle = serve_in_background(app)
        self.url = self.handle.url
        self.token = app.state.auth_token
        self.client = httpx.Client(headers={"Authorization": f"Bearer {self.token}"})

    def close(self) -> None:
        self.client.close()
        self.handle.stop()


@pytest.fixture
def builder() -> Iterator[Builder]:
    running = Builder(create_builder_app(provider=ScriptedProvider(upper)))
    try:
        yield running
    finally:
        running.close()


def events(builder: Builder, body: dict) -> list[dict]:
    out = []
    with builder.client.stream("POST", f"{builder.url}/builder/api/run", json=body) as response:
        assert response.status_code == 200, response.read()
        for line in response.iter_lines():
            if line.startswith("data: "):
                data = line[len("data: ") :]
                out.append({"type": "[DONE]"} if data == "[DONE]" else json.loads(data))
    return out


def test_page_and_assets(builder):
    page = builder.client.get(f"{builder.url}/builder")
    assert page.status_code == 200
    assert '<base href="/builder/static/">' in page.text
    assert "http" not in page.text  # no CDN
    ancestors = page.headers["content-security-policy"].split("frame-ancestors")[1]
    assert "'self'" in ancestors and "*" not in ancestors.replace(":*", "")
    js = builder.client.get(f"{builder.url}/builder/static/main.js")
    assert js.headers["content-type"].startswith("text/javascript")
    vendored = builder.client.get(f"{builder.url}/builder/static/vendor/js-yaml.mjs")
    assert vendored.status_code == 200
    for escape in ("../app.py", "..%2F..%2Fapp.py", "vendor/../../app.py", "%2e%2e/login.html"):
        assert builder.client.get(f"{builder.url}/builder/static/{escape}").status_code == 404
    root = builder.client.get(f"{builder.url}/", follow_redirects=False)
    assert root.headers["location"] == "/builder"


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
        assert httpx.post(f"{url}/builder/api/run", json=body).status_code == 401
        assert httpx.get(f"{url}/builder/static/main.js").status_code == 401
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
            f"{url}/builder/api/run", json=body, headers={"Authorization": "Bearer sekret"}
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


def test_with_no_token_configured_the_builder_makes_one(monkeypatch, tmp_path, capfd):
    monkeypatch.delenv("BUILDER_AUTH_TOKEN", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.selectools/auth_token
    running = Builder(create_builder_app(provider=ScriptedProvider(upper)))
    try:
        url, body = running.url, {"workflow": chain(agent("a1")), "prompt": "x"}
        assert httpx.post(f"{url}/builder/api/run", json=body).status_code == 401
        assert httpx.get(f"{url}/builder/api/health").status_code == 401
        page = httpx.get(f"{url}/builder", follow_redirects=False)
        assert (page.status_code, page.headers["location"]) == (303, "/login")
        assert len(running.token) >= 32
        printed = capfd.readouterr().err
        assert f"/?token={running.token}" in printed
        # the printed login URL signs the browser in and drops the token from the address
        with httpx.Client() as browser:
            login = browser.get(f"{url}/?token={running.token}", follow_redirects=False)
            assert (login.status_code, login.headers["location"]) == (303, "/builder")
            assert browser.get(f"{url}/builder").status_code == 200
            assert browser.post(f"{url}/builder/api/run", json=body).status_code == 200
        wrong = httpx.get(f"{url}/?token=nope", follow_redirects=False)
        assert wrong.headers["location"] == "/login"
    finally:
        running.close()


def test_each_builder_makes_its_own_token(monkeypatch, tmp_path):
    monkeypatch.delenv("BUILDER_AUTH_TOKEN", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    first = create_builder_app(provider=ScriptedProvider(upper))
    second = create_builder_app(provider=ScriptedProvider(upper))
    assert first.state.auth_token != second.state.auth_token


def test_configured_tokens_still_win(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("BUILDER_AUTH_TOKEN", raising=False)
    (tmp_path / ".selectools").mkdir()
    (tmp_path / ".selectools" / "auth_token").write_text("from-dotfile\n")
    assert create_builder_app(provider=ScriptedProvider(upper)).state.auth_token == "from-dotfile"
    monkeypatch.setenv("BUILDER_AUTH_TOKEN", "from-env")
    assert create_builder_app(provider=ScriptedProvider(upper)).state.auth_token == "from-env"
    app = create_builder_app(provider=ScriptedProvider(upper), auth_token="flag")
    assert app.state.auth_token == "flag"


def test_an_empty_builder_token_is_a_configuration_error():
    with pytest.raises(ValueError, match="auth token is empty"):
        create_builder_app(provider=ScriptedProvider(upper), auth_token="")


@pytest.mark.parametrize(
    ("headers", "status", "code"),
    [
        ({"Content-Type": "text/plain"}, 415, "unsupported_media_type"),
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415, "unsupported_media_type"),
        ({"Content-Type": "application/json", "Origin": "https://evil.example"}, 403,
         "origin_not_allowed"),
        ({"Content-Type": "application/json", "Host": "rebind.evil.example"}, 403,
         "host_not_allowed"),
    ],
)  # fmt: skip
def test_cross_site_requests_are_refused_even_signed_in(builder, headers, status, code):
    body = json.dumps({"workflow": chain(agent("a1")), "prompt": "x"})
    signed = builder.client.get(f"{builder.url}/?token={builder.token}", follow_redirects=False)
    cookies = signed.cookies  # a browser would send the session cookie along
    with httpx.Client(cookies=cookies) as browser:
        r = browser.post(f"{builder.url}/builder/api/run", content=body, headers=headers)
    assert r.status_code == status
    assert r.json()["error"]["code"] == code


def test_wrong_tokens_are_rate_limited(builder):
    url = builder.url
    signed_in = httpx.Client()
    assert signed_in.post(f"{url}/login", json={"token": builder.token}).status_code == 200
    try:
        for _ in range(10):
            assert httpx.post(f"{url}/login", json={"token": "guess"}).status_code == 401
        for attempt in (
            lambda: httpx.post(f"{url}/login", json={"token": builder.token}),  # even the right one
            lambda: httpx.get(
                f"{url}/builder/api/health", headers={"Authorization": "Bearer guess"}
            ),
            lambda: httpx.get(f"{url}/?token={builder.token}", follow_redirects=False),
        ):
            r = attempt()
            assert r.status_code == 429
            assert r.json()["error"]["code"] == "too_many_attempts"
            assert 0 < int(r.headers["retry-after"]) <= 61
        # a browser that signed in before keeps its session
        assert signed_in.get(f"{url}/builder/api/health").status_code == 200
    finally:
        signed_in.close()


def test_a_forwarded_for_header_does_not_reset_the_attempt_limit(builder):
    # uvicorn trusts X-Forwarded-For from 127.0.0.1 by default: any local process could then
    # claim a new address per guess and never meet the limiter. Our servers sit behind no proxy.
    url = builder.url
    for n in range(10):
        forged = {"X-Forwarded-For": f"203.0.113.{n}"}
        assert (
            httpx.post(f"{url}/login", json={"token": "guess"}, headers=forged).status_code == 401
        )
    r = httpx.post(
        f"{url}/login", json={"token": "guess"}, headers={"X-Forwarded-For": "198.51.100.7"}
    )
    assert r.status_code == 429


def start_cli_builder(env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "selectools.serve.cli", "serve", "--builder", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        match = re.search(r"(http://\S+/\?token=\S+)", line)
        if match:
            return proc, match.group(1)
    raise AssertionError(f"the builder printed no login URL (exit {proc.wait()})")


@pytest.mark.parametrize("configured", [None, "env-token-123"])
def test_the_cli_prints_a_login_url(tmp_path, configured):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(PYTHONPATH=str(ROOT), HOME=str(tmp_path))
    env.pop("BUILDER_AUTH_TOKEN", None)
    if configured:
        env["BUILDER_AUTH_TOKEN"] = configured
    proc, login_url = start_cli_builder(env)
    try:
        token = login_url.rsplit("=", 1)[1]
        if configured:
            assert token == configured
        else:
            assert len(token) >= 32
        base = login_url.split("/?")[0]
        assert httpx.get(f"{base}/builder/api/health").status_code == 401
        with httpx.Client() as browser:
            page = browser.get(login_url, follow_redirects=True)  # on to the builder page
            assert (page.status_code, page.url.path) == (200, "/builder")
            assert browser.get(f"{base}/builder/api/health").json()["backend"] is True
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b'{"prompt": "x", "workflow": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", "too_deep"),
        (b'{"prompt": "x", "workflow": ' + b"9" * 5000 + b"}", "invalid_json"),
        (b'{"prompt": "x", "workflow": NaN}', "invalid_json"),
        (json.dumps({"prompt": "x", "workflow": {
            "nodes": [{"id": "start", "type": "start"}, {"id": "end", "type": "end"}],
            "edges": [{"from": [], "to": "end"}]}}).encode(), "invalid_workflow"),
        (json.dumps({"prompt": "x", "workflow": {"nodes": [{"id": str(i), "type": "note"}
            for i in range(201)], "edges": []}}).encode(), "invalid_workflow"),
        (json.dumps({"prompt": "x", "workflow": {
            "nodes": [{"id": "start", "type": ["start"]}, {"id": "end", "type": "end"}],
            "edges": []}}).encode(), "invalid_workflow"),
        (json.dumps({"prompt": "x", "workflow": {
            "nodes": [{"id": "start", "type": "start"}, {"id": "end", "type": "end"}],
            "edges": [{"from": {"a": 1}, "to": "end"}]}}).encode(), "invalid_workflow"),
    ],
)  # fmt: skip
def test_hostile_workflow_bodies_get_a_4xx(builder, body, code):
    r = builder.client.post(
        f"{builder.url}/builder/api/run", content=body, headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == code
    if b"NaN" in body:
        assert "NaN is not a JSON number" in r.json()["error"]["message"]
