"""The live eval dashboard over real HTTP: token, Host and Origin checks, and the event stream
that replays a run (start, one event per case, the report's counts at the end)."""

from __future__ import annotations

import asyncio
import http.client
import json
import re
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from selectools.evals import CaseVerdict, EvalDashboard, EvalSuite, TestCase
from tests.evals.agents import make_agent

STATIC = Path(__file__).resolve().parents[2] / "selectools" / "evals" / "_static"
CASES = [
    TestCase(input="a", name="ok", expect_contains="alpha"),
    TestCase(input="b", name="<b>bold</b>", expect_contains="beta"),
    TestCase(input="c", name="skipped", skip=True),
]


@pytest.fixture
def served():
    suite = EvalSuite(make_agent({"a": "alpha", "b": "nope"}), CASES, name="live")
    dashboard = EvalDashboard(suite)
    server = dashboard.serve()
    try:
        yield suite, dashboard, server
    finally:
        server.stop()
    assert not server.running


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        conn.putrequest("GET", path, skip_host=True)
        conn.putheader("Host", (headers or {}).pop("Host", parts.netloc))
        for key, value in (headers or {}).items():
            conn.putheader(key, value)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


def read_events(url: str, until: str) -> list[tuple[str, dict]]:
    events: list[tuple[str, dict]] = []
    with httpx.stream("GET", url, timeout=30) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        name = None
        for line in response.iter_lines():
            if line.startswith("event:"):
                name = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and name is not None:
                events.append((name, json.loads(line.split(":", 1)[1])))
                if name == until:
                    return events
    raise AssertionError(f"the stream ended before {until!r}: {events}")


def test_binds_loopback_and_the_page_needs_the_token(served):
    _, dashboard, server = served
    assert server.base_url.startswith("http://127.0.0.1:")
    assert server.url == f"{server.base_url}/?token={dashboard.token}"
    status, body = get(server.url)
    assert status == 200 and '<script type="module" src="static/dashboard.js">' in body
    assert get(f"{server.base_url}/")[0] == 401
    assert get(f"{server.base_url}/?token=wrong-token-wrong-token")[0] == 401
    assert get(f"{server.base_url}/events")[0] == 401
    assert get(f"{server.base_url}/static/dashboard.js")[0] == 200


def test_a_foreign_host_or_a_cross_site_origin_is_refused(served):
    server = served[2]
    status, body = get(server.url, {"Host": "attacker.example"})  # DNS rebinding
    assert status == 403 and "127.0.0.1" in body
    assert get(server.url, {"Origin": "http://attacker.example"})[0] == 403
    port = urlsplit(server.base_url).port
    assert get(server.url, {"Host": f"localhost:{port}"})[0] == 200
    assert get(server.url, {"Origin": server.base_url})[0] == 200


def test_the_stream_replays_the_run_and_ends_with_the_reports_counts(served):
    suite, dashboard, server = served
    report = suite.run()
    events = read_events(f"{server.base_url}/events?token={dashboard.token}", until="end")
    names = [name for name, _ in events]
    assert names == ["start", "case", "case", "case", "end"]
    assert events[0][1] == {"type": "start", "run": 1, "name": "live", "total": 3}
    cases = sorted((e for n, e in events if n == "case"), key=lambda e: e["index"])
    assert [c["verdict"] for c in cases] == [r.verdict.value for r in report.results]
    assert cases[1]["label"] == "<b>bold</b>" and cases[1]["why"][0].startswith("contains:")
    end = events[-1][1]
    assert (end["pass"], end["fail"], end["error"], end["skip"]) == (1, 1, 0, 1)
    assert end["accuracy"] == report.accuracy == 0.5
    assert report.results[2].verdict is CaseVerdict.SKIP

    second = suite.run()  # a new run replaces the old one on the page
    events = read_events(f"{server.base_url}/events?token={dashboard.token}", until="end")
    assert events[0][1]["run"] == 2 and second.pass_count == 1


def test_an_open_stream_ends_when_the_server_stops():
    dashboard = EvalDashboard()
    server = dashboard.serve()
    opened = threading.Event()
    errors: list[BaseException] = []

    def follow() -> None:
        url = f"{server.base_url}/events?token={dashboard.token}"
        try:
            with httpx.stream("GET", url, timeout=httpx.Timeout(10, read=None)) as response:
                opened.set()
                for _ in response.iter_lines():
                    pass
        except httpx.HTTPError as exc:
            errors.append(exc)

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    try:
        assert opened.wait(10)
    finally:
        server.stop(timeout=20)  # uvicorn waits for open connections: the stream must end itself
    assert not server.running
    thread.join(20)
    assert not thread.is_alive() and errors == []


def test_the_page_loads_nothing_from_the_network():
    for path in STATIC.iterdir():
        text = path.read_text()
        assert not re.search(r"https?://", text), path.name  # no CDN, no remote font
    assert "innerHTML" not in (STATIC / "dashboard.js").read_text()


def test_a_short_token_is_refused():
    with pytest.raises(ValueError, match="16 characters"):
        EvalDashboard(token="abc")


def story(events: list[dict]) -> tuple[list[str], list[tuple[int, str]], list[tuple[int, str]]]:
    """Event kinds in order, the live (index, verdict) pairs sorted, and the final ones."""
    live = sorted((e["index"], e["verdict"]) for e in events if e["type"] == "case")
    final = [(c["index"], c["verdict"]) for c in events[-1]["cases"]]
    return [e["type"] for e in events], live, final


def test_arun_and_run_tell_a_dashboard_the_same_story():
    suite = EvalSuite(make_agent({"a": "alpha", "b": "nope"}), CASES, max_concurrency=3)
    dashboard = EvalDashboard(suite)
    suite.run()
    run, sync_events = dashboard.events()
    asyncio.run(suite.arun())
    arun, async_events = dashboard.events()
    assert (run, arun) == (1, 2)
    assert story(sync_events)[0] == ["start", "case", "case", "case", "end"]
    assert story(sync_events) == story(async_events)
    suite.unwatch(dashboard)
    suite.run()
    assert dashboard.events()[0] == 2  # no longer told


def test_the_cli_serves_the_dashboard_while_the_cases_run(tmp_path):
    import subprocess

    from tests.evals.test_cli import ROOT

    (tmp_path / "slow_agent.py").write_text(
        "from tests.evals.agents import make_agent\n"
        "agent = make_agent({'a': 'alpha', 'b': 'nope'}, latency=0.4)\n"
    )
    cases = [{"input": "a", "expect_contains": "alpha"}] * 6 + [
        {"input": "b", "expect_contains": "beta"}
    ]
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    env = {**__import__("os").environ, "PYTHONPATH": f"{ROOT}:{tmp_path}"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "selectools.evals", "run", "cases.json", "-q", "--dashboard",
         "--agent", "slow_agent.py:agent"],
        cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        line = proc.stderr.readline()
        url = re.match(r"dashboard: (http://127\.0\.0\.1:\d+/\?token=\S+)\n", line)
        assert url, line
        base, token = url.group(1).split("/?token=")
        events = read_events(f"{base}/events?token={token}", until="end")
        assert events[0][0] == "start" and events[0][1]["total"] == 7
        assert (events[-1][1]["pass"], events[-1][1]["fail"]) == (6, 1)
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0 and "Accuracy: 85.7%" in out
    finally:
        proc.kill()
        proc.wait()


def test_without_the_serve_extra_the_error_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "starlette.applications", None)  # as if not installed
    with pytest.raises(ImportError, match=r"pip install .*\"uvicorn.*the 'serve' extra"):
        EvalDashboard().app()
