"""Who may call a served agent: content types, Origin, Host, CORS, framing, tokens, bad bodies.

Every test talks HTTP to a real uvicorn server on a free loopback port, the way a
browser page (an attacker until Origin/Host say otherwise) or a client would.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from selectools import Agent, tool
from selectools.serve import create_app
from selectools.testing import ScriptedProvider, tool_call

ROOT = Path(__file__).resolve().parents[2]
CALLS: list[str] = []


@tool
def delete_files(path: str) -> str:
    """A tool no web page should be able to run."""
    CALLS.append(path)
    return f"deleted {path}"


def dangerous_agent() -> Agent:
    def respond(request):  # type: ignore[no-untyped-def]
        last = request.last_message
        if last is not None and last.role.value == "tool":
            return "done"
        return tool_call("delete_files", path="~")

    return Agent([delete_files], provider=ScriptedProvider(respond))


@pytest.fixture
def server():
    CALLS.clear()
    handle = create_app(dangerous_agent(), max_body_bytes=200_000).serve(port=0, background=True)
    try:
        yield handle
    finally:
        handle.stop()


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None],
)
@pytest.mark.parametrize("endpoint", ["/invoke", "/stream"])
def test_simple_cross_site_bodies_are_refused(server, endpoint, content_type):
    headers = {} if content_type is None else {"Content-Type": content_type}
    r = httpx.post(f"{server.url}{endpoint}", content=b'{"prompt": "hi"}', headers=headers)
    assert r.status_code == 415
    error = r.json()["error"]
    assert error["code"] == "unsupported_media_type"
    assert "application/json" in error["message"]
    assert CALLS == []


def test_json_with_a_charset_is_fine(server):
    r = httpx.post(
        f"{server.url}/invoke",
        content=b'{"prompt": "hi"}',
        headers={"Content-Type": "application/json; charset=utf-8"},
    )
    assert r.status_code == 200
    assert r.json()["content"] == "done"


@pytest.mark.parametrize("origin", ["https://evil.example", "null", "http://127.0.0.1:1"])
@pytest.mark.parametrize("endpoint", ["/invoke", "/stream"])
def test_a_foreign_origin_is_refused(server, endpoint, origin):
    r = httpx.post(f"{server.url}{endpoint}", json={"prompt": "hi"}, headers={"Origin": origin})
    assert r.status_code == 403
    error = r.json()["error"]
    assert error["code"] == "origin_not_allowed"
    assert origin in error["message"] and "cors_origins" in error["message"]
    assert CALLS == []


def test_the_servers_own_pages_may_call_it(server):
    origin = server.url  # http://127.0.0.1:PORT: what the playground sends
    r = httpx.post(f"{server.url}/invoke", json={"prompt": "hi"}, headers={"Origin": origin})
    assert r.status_code == 200
    localhost = server.url.replace("127.0.0.1", "localhost")
    r = httpx.post(
        f"{server.url}/invoke",
        json={"prompt": "hi"},
        headers={"Origin": localhost, "Host": localhost.removeprefix("http://")},
    )
    assert r.status_code == 200


@pytest.mark.parametrize("path", ["/invoke", "/playground", "/health"])
def test_dns_rebinding_hosts_are_refused(server, path):
    port = server.url.rsplit(":", 1)[1]
    headers = {
        "Host": f"rebind.evil.example:{port}",
        "Origin": f"http://rebind.evil.example:{port}",
    }
    if path == "/invoke":
        r = httpx.post(f"{server.url}{path}", json={"prompt": "hi"}, headers=headers)
    else:
        r = httpx.get(f"{server.url}{path}", headers=headers)
    assert r.status_code == 403
    error = r.json()["error"]
    assert error["code"] == "host_not_allowed"
    assert "rebind.evil.example" in error["message"] and "allowed_hosts" in error["message"]
    assert CALLS == []


def test_configured_hosts_and_origins_are_let_in():
    agent = Agent(provider=ScriptedProvider(default="ok"))
    app = create_app(
        agent, allowed_hosts=["agent.example.com"], cors_origins=["https://app.example.com"]
    )
    with app.serve(port=0, background=True) as handle:
        r = httpx.post(
            f"{handle.url}/invoke",
            json={"prompt": "hi"},
            headers={"Host": "agent.example.com", "Origin": "https://app.example.com"},
        )
        assert r.status_code == 200
        assert r.headers["access-control-allow-origin"] == "https://app.example.com"
        other = httpx.post(
            f"{handle.url}/invoke",
            json={"prompt": "hi"},
            headers={"Host": "agent.example.com", "Origin": "https://other.example.com"},
        )
        assert other.status_code == 403


def test_cors_is_off_by_default(server):
    preflight = {"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}
    r = httpx.options(f"{server.url}/invoke", headers=preflight)
    assert "access-control-allow-origin" not in r.headers
    r = httpx.post(
        f"{server.url}/invoke", json={"prompt": "x"}, headers={"Origin": "https://app.example"}
    )
    assert "access-control-allow-origin" not in r.headers


def test_the_playground_is_not_framable_by_any_site(server):
    csp = httpx.get(f"{server.url}/playground").headers["content-security-policy"]
    ancestors = next(p for p in csp.split(";") if "frame-ancestors" in p).split()[1:]
    assert "*" not in ancestors
    assert "'self'" in ancestors
    # a local Jupyter (another port on this machine) may still embed it
    assert "http://127.0.0.1:*" in ancestors and "http://localhost:*" in ancestors


def test_configured_origins_may_frame_the_playground():
    agent = Agent(provider=ScriptedProvider(default="ok"))
    app = create_app(agent, cors_origins=["https://hub.example.org"])
    with app.serve(port=0, background=True) as handle:
        csp = httpx.get(f"{handle.url}/playground").headers["content-security-policy"]
    assert "https://hub.example.org" in csp


def test_an_empty_token_is_a_configuration_error():
    agent = Agent(provider=ScriptedProvider(default="ok"))
    with pytest.raises(ValueError, match="auth_token is empty"):
        create_app(agent, auth_token="")
    with pytest.raises(ValueError, match="auth_token is empty"):
        create_app(agent, auth_token="   ")


def deep(depth: int) -> bytes:
    return b'{"prompt": "hi", "config_overrides": {"model": ' + b"[" * depth + b"]" * depth + b"}}"


@pytest.mark.parametrize(
    ("body", "status", "code", "words"),
    [
        (b'{"prompt": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", 400, "too_deep", "nested"),
        (deep(500), 400, "too_deep", "nested"),
        (b'{"prompt": "hi", "session_id": ' + b"7" * 5000 + b"}", 400, "invalid_json", "digits"),
        (b'{"prompt": "hi", "config_overrides": {"model": 5}}', 400, "invalid_overrides",
         '"model" must be a string'),
        (b'{"prompt": "hi", "config_overrides": {"model": ["a"]}}', 400, "invalid_overrides",
         '"model" must be a string'),
        (b'{"prompt": "hi", "config_overrides": {"temperature": "hot"}}', 400,
         "invalid_overrides", '"temperature" must be a number'),
        (b'{"prompt": "hi", "config_overrides": {"max_tokens": 1e400}}', 400,
         "invalid_overrides", '"max_tokens" must be'),
        (b'{"prompt": "hi", "config_overrides": {"max_tokens": true}}', 400,
         "invalid_overrides", '"max_tokens" must be'),
    ],
)  # fmt: skip
@pytest.mark.parametrize("endpoint", ["/invoke", "/stream"])
def test_hostile_bodies_get_a_4xx_never_a_500(server, endpoint, body, status, code, words):
    r = httpx.post(
        f"{server.url}{endpoint}", content=body, headers={"Content-Type": "application/json"}
    )
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert error["code"] == code
    assert words in error["message"]
    assert CALLS == []


def test_session_lock_tables_stay_bounded():
    agent = Agent(provider=ScriptedProvider(default="ok"))
    app = create_app(agent)
    with app.serve(port=0, background=True) as handle, httpx.Client() as client:

        def turns(start: int) -> None:
            for i in range(start, start + 150):
                r = client.post(f"{handle.url}/invoke", json={"prompt": "x", "session_id": f"s{i}"})
                assert r.status_code == 200

        threads = [threading.Thread(target=turns, args=(n * 1000,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        router = app.router
        for index in range(3):
            assert router.handle_invoke({"prompt": "x", "session_id": f"sync{index}"})
    assert router.locked_sessions() == 0  # 603 sessions ran; no lock is kept once a turn ends


def test_the_cli_refuses_an_empty_token():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for args, words in [
        (["customer_support", "--auth-token", ""], "auth_token is empty"),
        (["--builder", "--auth-token", " "], "auth token is empty"),
    ]:
        done = subprocess.run(
            [sys.executable, "-m", "selectools", "serve", "--port", "0", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,  # on an open server this times out instead of exiting
        )
        assert done.returncode == 2
        assert words in done.stderr


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
bodies = st.dictionaries(
    st.sampled_from(["prompt", "config_overrides", "session_id", "other"]),
    json_values
    | st.dictionaries(
        st.sampled_from(["model", "temperature", "max_tokens", "max_iterations", "tools"]),
        json_values,
        max_size=3,
    ),
    max_size=3,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=bodies | json_values)
def test_any_json_body_gets_a_result_or_a_4xx(body):
    """Generated bodies through the app in process: never a 500 (400 runs)."""
    status = asyncio.run(_post(json.dumps(body).encode()))
    assert status == 200 or 400 <= status < 500, (status, body)


_FUZZ_APP = create_app(Agent(provider=ScriptedProvider(default="ok")))


async def _post(content: bytes) -> int:
    transport = httpx.ASGITransport(app=_FUZZ_APP.asgi)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        response = await client.post(
            "/invoke", content=content, headers={"Content-Type": "application/json"}
        )
    return response.status_code


def test_the_remembered_decisions_follow_allow_host_and_stay_bounded():
    """The guard remembers its answer per (method, Host, Origin, Content-Type); a host
    allowed later is let in at once, and a flood of distinct hosts changes no answer."""
    app = create_app(Agent(provider=ScriptedProvider(default="ok")))
    with app.serve(port=0, background=True) as handle:
        named = {"Host": "agent.internal"}
        with httpx.Client() as client:
            first = client.post(f"{handle.url}/invoke", json={"prompt": "hi"}, headers=named)
            assert first.status_code == 403
            app.asgi.allow_host("agent.internal")
            assert (
                client.post(
                    f"{handle.url}/invoke", json={"prompt": "hi"}, headers=named
                ).status_code
                == 200
            )
            for i in range(1100):  # more than the guard remembers
                r = client.get(f"{handle.url}/health", headers={"Host": f"h{i}.evil.example"})
                assert r.status_code == 403
            assert (
                client.post(
                    f"{handle.url}/invoke", json={"prompt": "hi"}, headers=named
                ).status_code
                == 200
            )
            assert client.get(f"{handle.url}/health").status_code == 200
