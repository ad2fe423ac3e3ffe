"""The HTTP server: real uvicorn on a free loopback port, a real httpx client."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import httpx
import pytest

from selectools import Agent, AgentConfig, tool
from selectools.serve import AgentRouter, create_app
from selectools.testing import ScriptedProvider, tool_call

ROOT = Path(__file__).resolve().parents[2]


@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"sunny in {city}"


def weather_provider() -> ScriptedProvider:
    """Calls the tool once per run, then answers from the tool result; forever."""

    def respond(request):  # type: ignore[no-untyped-def]
        last = request.last_message
        if last is not None and last.role.value == "tool":
            return f"The weather: {last.content}."
        if "weather" in str(last.content if last else ""):
            return tool_call("get_weather", city="Paris")
        return f"You said: {last.content if last else ''} ({len(request.messages)} messages)"

    return ScriptedProvider(respond)


@pytest.fixture
def server():
    agent = Agent([get_weather], provider=weather_provider(), config=AgentConfig(model="m-1"))
    handle = create_app(agent, max_prompt_chars=200, max_body_bytes=2_000).serve(
        port=0, background=True
    )
    yield handle
    handle.stop()


def sse_events(response: httpx.Response) -> list[str]:
    return [line[len("data: ") :] for line in response.iter_lines() if line.startswith("data: ")]


def test_binds_loopback_by_default(server):
    assert server.url.startswith("http://127.0.0.1:")


def test_invoke_returns_the_documented_shape(server):
    body = httpx.post(f"{server.url}/invoke", json={"prompt": "what's the weather?"}).json()
    assert body["content"] == "The weather: sunny in Paris."
    assert body["tool_calls"] == [
        {"name": "get_weather", "arguments": {"city": "Paris"}, "id": body["tool_calls"][0]["id"]}
    ]
    assert body["iterations"] == 2
    assert body["tokens"] > 0
    assert set(body) == {
        "content", "tool_calls", "reasoning", "iterations", "tokens", "cost_usd", "run_id"
    }  # fmt: skip
    assert body["run_id"]


def test_stream_sends_chunks_then_result_then_done(server):
    with httpx.stream("POST", f"{server.url}/stream", json={"prompt": "hello there"}) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        events = sse_events(r)
    assert events[-1] == "[DONE]"
    parsed = [json.loads(e) for e in events[:-1]]
    chunks = [e["content"] for e in parsed if e["type"] == "chunk"]
    assert len(chunks) > 1
    result = parsed[-1]
    assert result["type"] == "result"
    assert "".join(chunks) == result["content"] == "You said: hello there (1 messages)"
    assert result["iterations"] == 1


def test_stream_reports_tool_calls(server):
    with httpx.stream("POST", f"{server.url}/stream", json={"prompt": "weather please"}) as r:
        parsed = [json.loads(e) for e in sse_events(r)[:-1]]
    calls = [e for e in parsed if e["type"] == "tool_call"]
    assert calls == [
        {
            "type": "tool_call",
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        }
    ]
    assert parsed[-1]["content"] == "The weather: sunny in Paris."


def test_health_and_schema(server):
    health = httpx.get(f"{server.url}/health").json()
    assert health == {
        "status": "ok",
        "version": health["version"],
        "model": "m-1",
        "provider": "scripted",
        "tools": ["get_weather"],
    }
    schema = httpx.get(f"{server.url}/schema").json()
    assert schema["model"] == "m-1"
    assert schema["tools"][0]["name"] == "get_weather"
    assert schema["tools"][0]["parameters"]["required"] == ["city"]
    assert schema["tools"][0]["parameters"]["properties"]["city"]["type"] == "string"


def test_playground_and_root(server):
    page = httpx.get(f"{server.url}/playground")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "selectools playground" in page.text
    assert "http://" not in page.text and "https://" not in page.text  # no CDN
    script = httpx.get(f"{server.url}/playground/playground.js")
    assert script.headers["content-type"].startswith("text/javascript")
    assert "/stream" in script.text
    reader = httpx.get(f"{server.url}/playground/sse.js")  # the SSE reader it imports
    assert reader.headers["content-type"].startswith("text/javascript")
    assert "export async function* sseData" in reader.text
    root = httpx.get(f"{server.url}/", follow_redirects=False)
    assert root.status_code == 307
    assert root.headers["location"] == "/playground"
    assert httpx.get(f"{server.url}/playground/../app.py").status_code == 404


def test_each_request_has_its_own_state(server):
    first = httpx.post(f"{server.url}/invoke", json={"prompt": "one"}).json()
    second = httpx.post(f"{server.url}/invoke", json={"prompt": "two"}).json()
    assert first["content"] == "You said: one (1 messages)"
    assert second["content"] == "You said: two (1 messages)"


def test_a_session_id_keeps_the_conversation(server):
    url = f"{server.url}/invoke"
    httpx.post(url, json={"prompt": "one", "session_id": "s1"})
    again = httpx.post(url, json={"prompt": "two", "session_id": "s1"}).json()
    other = httpx.post(url, json={"prompt": "three", "session_id": "s2"}).json()
    assert again["content"] == "You said: two (3 messages)"
    assert other["content"] == "You said: three (1 messages)"


def test_concurrent_requests_do_not_mix(server):
    results: dict[int, str] = {}

    def call(i: int) -> None:
        results[i] = httpx.post(f"{server.url}/invoke", json={"prompt": f"n{i}"}).json()["content"]

    threads = [threading.Thread(target=call, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: f"You said: n{i} (1 messages)" for i in range(12)}


@pytest.mark.parametrize(
    ("body", "status", "code", "words"),
    [
        (b"{not json", 400, "invalid_json", "not valid JSON"),
        (b"", 400, "empty_body", "empty body"),
        (b"[1, 2]", 400, "invalid_body", "JSON object"),
        (b'{"question": "hi"}', 400, "unknown_field", "question"),
        (b'{"config_overrides": {}}', 400, "missing_prompt", 'missing "prompt"'),
        (b'{"prompt": 5}', 400, "invalid_prompt", "non-empty string"),
        (b'{"prompt": "' + b"x" * 300 + b'"}', 413, "prompt_too_long", "at most 200"),
        (b'{"prompt": "' + b"x" * 3000 + b'"}', 413, "body_too_large", "at most 2000"),
        (b'{"prompt": "hi", "config_overrides": {"session_store": 1}}', 400,
         "override_not_allowed", "session_store"),
        (b'{"prompt": "hi", "config_overrides": {"max_iterations": 0}}', 400,
         "invalid_overrides", "max_iterations"),
        (b'{"prompt": "hi", "session_id": ""}', 400, "invalid_session_id", "session_id"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("endpoint", ["/invoke", "/stream"])
def test_bad_input_gets_a_clear_json_error(server, endpoint, body, status, code, words):
    r = httpx.post(
        f"{server.url}{endpoint}", content=body, headers={"content-type": "application/json"}
    )
    assert r.status_code == status
    error = r.json()["error"]
    assert error["code"] == code
    assert words in error["message"]
    assert "Traceback" not in r.text


def test_unknown_paths_and_methods_are_json(server):
    assert httpx.get(f"{server.url}/nope").json()["error"]["code"] == "not_found"
    r = httpx.get(f"{server.url}/invoke")
    assert r.status_code == 405
    assert r.json()["error"]["code"] == "method_not_allowed"


def test_a_failing_run_hides_details():
    secret = "sk-live-" + "a" * 20
    agent = Agent(provider=ScriptedProvider(default=RuntimeError(f"key {secret} rejected")))
    with create_app(agent).serve(port=0, background=True) as handle:
        r = httpx.post(f"{handle.url}/invoke", json={"prompt": "hi"})
        with httpx.stream("POST", f"{handle.url}/stream", json={"prompt": "hi"}) as s:
            events = sse_events(s)
    assert r.status_code == 502
    assert r.json()["error"] == {
        "code": "run_failed",
        "message": "the agent run failed (RuntimeError); details are in the server log",
    }
    assert json.loads(events[0]) == {
        "type": "error",
        "message": "the agent run failed (RuntimeError); details are in the server log",
    }
    assert events[-1] == "[DONE]"
    assert secret not in r.text and secret not in "".join(events)


def test_bearer_token_auth():
    agent = Agent(provider=ScriptedProvider(default="ok"))
    with create_app(agent, auth_token="t0ken").serve(port=0, background=True) as handle:
        for method, path in [
            ("POST", "/invoke"),
            ("POST", "/stream"),
            ("GET", "/health"),
            ("GET", "/schema"),
        ]:
            kwargs = {"json": {"prompt": "hi"}} if method == "POST" else {}
            none = httpx.request(method, handle.url + path, **kwargs)
            wrong = httpx.request(
                method, handle.url + path, headers={"Authorization": "Bearer nope"}, **kwargs
            )
            assert none.status_code == wrong.status_code == 401
            assert none.json()["error"]["code"] == "unauthorized"
            assert none.headers["www-authenticate"].startswith("Bearer")
        good = httpx.post(
            f"{handle.url}/invoke", json={"prompt": "hi"}, headers={"Authorization": "Bearer t0ken"}
        )
        assert good.json()["content"] == "ok"
        # the page itself carries no secret; it asks for the token
        assert httpx.get(f"{handle.url}/playground").status_code == 200


def test_cors_only_as_configured():
    agent = Agent(provider=ScriptedProvider(default="ok"))
    preflight = {"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}
    with create_app(agent).serve(port=0, background=True) as handle:
        r = httpx.options(f"{handle.url}/invoke", headers=preflight)
        assert "access-control-allow-origin" not in r.headers
    with create_app(agent, cors_origins=["https://app.example"]).serve(
        port=0, background=True
    ) as handle:
        r = httpx.options(f"{handle.url}/invoke", headers=preflight)
        assert r.headers["access-control-allow-origin"] == "https://app.example"
        other = httpx.options(
            f"{handle.url}/invoke", headers={**preflight, "Origin": "https://evil.example"}
        )
        assert other.status_code == 403  # the guard refuses other origins before CORS
        assert other.json()["error"]["code"] == "origin_not_allowed"


def test_prefix_and_no_playground():
    agent = Agent(provider=ScriptedProvider(default="ok"))
    with create_app(agent, prefix="/api/v1", playground=False).serve(
        port=0, background=True
    ) as handle:
        assert handle.url.endswith("/api/v1")
        assert httpx.post(f"{handle.url}/invoke", json={"prompt": "x"}).json()["content"] == "ok"
        assert httpx.get(f"{handle.url}/playground").status_code == 404
        assert httpx.get(handle.url.replace("/api/v1", "/invoke")).status_code == 404
    assert not handle.running


def test_router_without_a_server():
    router = AgentRouter(Agent(provider=ScriptedProvider(default="fine")), enable_playground=False)
    assert router.handle_invoke({"prompt": "hi"})["content"] == "fine"
    lines = list(router.handle_stream({"prompt": "hi"}))
    assert lines[-1] == "data: [DONE]\n\n"
    assert json.loads(lines[-2][len("data: ") :])["type"] == "result"
    assert router.handle_health()["status"] == "ok"
    assert router.handle_schema() == {"model": router.agent.model, "tools": []}


SERVER_SCRIPT = textwrap.dedent(
    """
    import sys
    from selectools import Agent
    from selectools.serve import create_app
    from selectools.sessions import RedisSessionStore
    from selectools.testing import ScriptedProvider

    def respond(request):
        return f"{sys.argv[2]} saw {len(request.messages)} messages"

    store = RedisSessionStore(url=sys.argv[1], namespace="serve-test")
    create_app(Agent(provider=ScriptedProvider(respond)), session_store=store).serve(port=0)
    """
)


def _start_worker(script: Path, redis_url: str, name: str) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, str(script), redis_url, name],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        match = re.search(r"serving at (http://\S+)", line)
        if match:
            return proc, match.group(1)
    raise AssertionError(f"worker {name} did not start (exit {proc.wait()})")


@pytest.mark.redis
def test_two_server_processes_share_redis_sessions(redis_server, tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(SERVER_SCRIPT)
    a, url_a = _start_worker(script, redis_server, "A")
    b, url_b = _start_worker(script, redis_server, "B")
    try:
        first = httpx.post(f"{url_a}/invoke", json={"prompt": "hi", "session_id": "shared"})
        second = httpx.post(f"{url_b}/invoke", json={"prompt": "again", "session_id": "shared"})
        third = httpx.post(f"{url_a}/invoke", json={"prompt": "and", "session_id": "shared"})
        alone = httpx.post(f"{url_b}/invoke", json={"prompt": "solo"})
        assert first.json()["content"] == "A saw 1 messages"
        assert second.json()["content"] == "B saw 3 messages"
        assert third.json()["content"] == "A saw 5 messages"
        assert alone.json()["content"] == "B saw 1 messages"
    finally:
        for proc in (a, b):
            proc.terminate()
            proc.wait(10)


class _BrokenStore:
    """A session store whose every read fails (a database that went away)."""

    def load(self, session_id):  # type: ignore[no-untyped-def]
        raise OSError("the session database is gone")

    save = delete = exists = load

    def list_sessions(self):  # type: ignore[no-untyped-def]
        return []


@pytest.mark.parametrize("endpoint", ["/invoke", "/stream"])
def test_an_unexpected_server_error_is_a_json_500_without_details(endpoint):
    agent = Agent(provider=ScriptedProvider(default="ok"))
    app = create_app(agent, session_store=_BrokenStore())  # type: ignore[arg-type]
    with app.serve(port=0, background=True) as handle:
        r = httpx.post(f"{handle.url}{endpoint}", json={"prompt": "hi", "session_id": "s"})
        assert r.status_code == 500
        assert r.json() == {
            "error": {
                "code": "internal_error",
                "message": "the server failed; details are in its log",
            }
        }
        assert "gone" not in r.text
        ok = httpx.post(f"{handle.url}{endpoint}", json={"prompt": "hi"})
        assert ok.status_code == 200
