"""The builder's API on a real server: every route guarded, runs on AgentGraph, watch, trace, GitHub."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from selectools import Agent, trace_to_json
from selectools.builder import example, template, to_python
from selectools.providers.stubs import LocalProvider
from selectools.serve._builder_app import create_builder_app
from selectools.serve.app import serve_in_background
from selectools.testing import ScriptedProvider

ROOT = Path(__file__).resolve().parents[2]
API = [
    ("GET", "/builder/api/health", None),
    ("GET", "/builder/api/templates", None),
    ("GET", "/builder/api/templates/simple_chatbot", None),
    ("GET", "/builder/api/example", None),
    ("POST", "/builder/api/code", {"workflow": {}}),
    ("POST", "/builder/api/import", {"text": "name: w"}),
    ("POST", "/builder/api/run", {"workflow": {}, "prompt": "x"}),
    ("POST", "/builder/api/resume", {"run_id": "r", "node": "n", "option": "o"}),
    ("POST", "/builder/api/generate", {"description": "a bot"}),
    ("POST", "/builder/api/copilot", {"workflow": {}, "instruction": "x"}),
    ("POST", "/builder/api/watch", {"path": "flow.py"}),
    ("POST", "/builder/api/trace", {"trace_json": "{}"}),
]


def echo(request):  # type: ignore[no-untyped-def]
    return f"[{(request.system_prompt or '')[:12]}] {request.last_message.content}"


class Server:
    def __init__(self, app, tmp_path: Path | None = None) -> None:  # type: ignore[no-untyped-def]
        self.handle = serve_in_background(app)
        self.url = self.handle.url
        self.client = httpx.Client(
            base_url=self.url,
            headers={"Authorization": f"Bearer {app.state.auth_token}"},
            timeout=60,
        )

    def events(self, body: dict) -> list[dict]:
        out = []
        with self.client.stream("POST", "/builder/api/run", json=body) as response:
            assert response.status_code == 200, response.read()
            for line in response.iter_lines():
                if line.startswith("data: "):
                    data = line[6:]
                    out.append({"type": "[DONE]"} if data == "[DONE]" else json.loads(data))
        return out

    def close(self) -> None:
        self.client.close()
        self.handle.stop()


@pytest.fixture
def server(tmp_path) -> Iterator[Server]:
    running = Server(create_builder_app(provider=ScriptedProvider(echo), workdir=tmp_path))
    try:
        yield running
    finally:
        running.close()


@pytest.mark.parametrize(("method", "path", "body"), API)
def test_every_route_needs_a_session_and_refuses_other_sites(server, method, path, body):
    bare = httpx.request(method, server.url + path, json=body)
    assert bare.status_code == 401, bare.text
    signed = server.client.get("/", params={"token": server.client.headers["authorization"][7:]})
    cookies = signed.history[0].cookies if signed.history else signed.cookies
    foreign = httpx.request(
        method,
        server.url + path,
        json=body,
        cookies=cookies,
        headers={"Origin": "https://evil.example"},
    )
    assert foreign.status_code == 403
    assert foreign.json()["error"]["code"] == "origin_not_allowed"


def test_health_templates_and_example(server):
    health = server.client.get("/builder/api/health").json()
    assert health["backend"] is True and health["ai"] is True and health["github_oauth"] is False
    names = [t["name"] for t in server.client.get("/builder/api/templates").json()]
    assert len(names) == 7 and names[0] == "simple_chatbot"
    assert server.client.get("/builder/api/templates/reviewer_loop").json() == template(
        "reviewer_loop"
    )
    assert server.client.get("/builder/api/templates/nope").status_code == 404
    assert server.client.get("/builder/api/example").json() == example()


def test_code_panel_and_import(server):
    doc = template("hitl_approval")
    code = server.client.post("/builder/api/code", json={"workflow": doc}).json()
    assert code["errors"] == [] and code["python"] == to_python(doc) and "hitl" in code["yaml"]
    back = server.client.post(
        "/builder/api/import", json={"text": code["python"], "format": "python"}
    )
    assert back.json()["workflow"]["name"] == "hitl_approval"
    bad = server.client.post(
        "/builder/api/import", json={"text": "name: w\nnodes: [\n", "format": "auto"}
    )
    assert bad.status_code == 400
    error = bad.json()["error"]
    assert error["code"] == "import_error" and error["line"] == 3
    unfinished = {**doc, "edges": doc["edges"][:1]}
    problems = server.client.post("/builder/api/code", json={"workflow": unfinished}).json()
    assert problems["python"] and any(e["node"] == "n1" for e in problems["errors"])


def test_a_run_streams_node_events_with_ports_edges_and_usage(server):
    got = server.events({"workflow": template("reviewer_loop"), "prompt": "essay"})
    assert got[0]["type"] == "run_start" and got[-1]["type"] == "[DONE]"
    assert got[-2]["type"] == "result"
    ends = [e for e in got if e["type"] == "node_end"]
    assert [e["node"] for e in ends[:3]] == ["n1", "n2", "n3"]
    assert [e["step"] for e in ends] == list(range(len(ends)))
    assert ends[0]["input"] == "essay" and ends[0]["output"].startswith("[Write or rev")
    assert ends[0]["tokens"] > 0 and ends[0]["edge"] == "e2"
    loops = [e for e in ends if e["node"] == "n3"]
    assert [e["port"] for e in loops] == ["body", "body", "body", "done"]
    assert loops[-1]["edge"] == "e5"
    assert any(e["type"] == "chunk" for e in got)


def test_re_run_from_a_step_in_isolation_and_with_pinned_outputs(server):
    doc = template("researcher_writer")
    first = server.events({"workflow": doc, "prompt": "owls"})
    run_id = first[0]["run_id"]
    again = server.events({"workflow": doc, "prompt": "", "run_id": run_id, "from_step": 1})
    ends = [e for e in again if e["type"] == "node_end"]
    assert [(e["node"], e["step"]) for e in ends] == [("n2", 1)]  # the researcher did not run again
    assert ends[0]["input"] == next(e for e in first if e["type"] == "node_end")["output"]
    alone = server.events({"workflow": doc, "prompt": "", "run_id": run_id, "only_node": "n2"})
    assert [e["node"] for e in alone if e["type"] == "node_end"] == ["n2"]
    doc["nodes"][1]["pinned_output"] = "PINNED FACTS"
    pinned = server.events({"workflow": doc, "prompt": "owls"})
    ends = [e for e in pinned if e["type"] == "node_end"]
    assert ends[0]["output"] == "PINNED FACTS" and ends[0]["tokens"] == 0
    assert ends[1]["input"] == "PINNED FACTS"
    bad = server.client.post(
        "/builder/api/run", json={"workflow": doc, "prompt": "", "run_id": "nope", "from_step": 1}
    )
    assert bad.status_code == 404


def test_human_input_waits_for_an_answer_and_times_out_to_the_default(server):
    doc = template("hitl_approval")
    got: list[dict] = []

    def answer_when_asked() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            asked = [e for e in list(got) if e["type"] == "interrupt"]
            if asked:
                r = server.client.post(
                    "/builder/api/resume",
                    json={
                        "run_id": got[0]["run_id"],
                        "node": "n2",
                        "option": "revise" if len(asked) == 1 else "approve",
                    },
                )
                if r.status_code == 200 and len(asked) >= 2:
                    return
                time.sleep(0.05)
            time.sleep(0.02)

    helper = threading.Thread(target=answer_when_asked, daemon=True)
    helper.start()
    with server.client.stream(
        "POST", "/builder/api/run", json={"workflow": doc, "prompt": "hi"}
    ) as response:
        for line in response.iter_lines():
            if line.startswith("data: ") and line[6:] != "[DONE]":
                got.append(json.loads(line[6:]))
    helper.join(10)
    asks = [e for e in got if e["type"] == "interrupt"]
    assert asks[0] == {
        "type": "interrupt",
        "node": "n2",
        "prompt": "Send this draft?",
        "options": ["approve", "revise"],
        "timeout_s": 300.0,
    }
    ports = [e["port"] for e in got if e["type"] == "node_end" and e["node"] == "n2"]
    assert ports[:2] == ["revise", "approve"] and got[-1]["type"] == "result"
    # nobody answers: the default option is taken when timeout_s passes
    doc["nodes"][2]["timeout_s"] = 0.5
    doc["nodes"][2]["default_option"] = "approve"
    started = time.monotonic()
    timed = server.events({"workflow": doc, "prompt": "hi"})
    assert time.monotonic() - started < 30
    assert [e["port"] for e in timed if e["type"] == "node_end" and e["node"] == "n2"] == [
        "approve"
    ]
    wrong = server.client.post(
        "/builder/api/resume", json={"run_id": got[0]["run_id"], "node": "n2", "option": "x"}
    )
    assert wrong.status_code == 409


def test_a_client_leaving_at_human_input_frees_the_paused_run(server):
    """The run's paused generator is process state the client cannot reach once it left;
    without ``abandon`` it stayed in ``_interrupts._LIVE`` for the server's life."""
    from selectools.orchestration import _interrupts

    before = set(_interrupts._LIVE)
    with server.client.stream(
        "POST", "/builder/api/run", json={"workflow": template("hitl_approval"), "prompt": "hi"}
    ) as response:
        for line in response.iter_lines():
            if line.startswith("data: ") and '"type": "interrupt"' in line:
                assert set(_interrupts._LIVE) - before  # paused, waiting for an answer
                break  # the client goes away without answering
    deadline = time.monotonic() + 60  # generous: the server notices the client left
    while set(_interrupts._LIVE) - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not set(_interrupts._LIVE) - before


def test_a_failing_run_says_which_node(server):
    doc = template("simple_chatbot")
    doc["edges"][-1]["condition"] = "never"
    got = server.events({"workflow": doc, "prompt": "hi"})
    error = next(e for e in got if e["type"] == "error")
    assert error["node"] == "n1" and "no edge" in error["message"]


def test_generate_and_copilot(tmp_path):
    reply = json.dumps({"workflow": template("simple_chatbot"), "message": "Added nothing."})
    with_ai = Server(create_builder_app(provider=ScriptedProvider(default=f"Sure! {reply}")))
    offline = Server(create_builder_app(provider=LocalProvider()))
    try:
        made = with_ai.client.post(
            "/builder/api/generate", json={"description": "a chatbot"}
        ).json()
        assert made["source"] == "ai" and made["workflow"]["name"] == "simple_chatbot"
        edited = with_ai.client.post(
            "/builder/api/copilot", json={"workflow": example(), "instruction": "x"}
        )
        assert edited.json()["message"] == "Added nothing."
        assert offline.client.post(
            "/builder/api/generate", json={"description": "a bot"}
        ).json() == {"fallback": True}
        refused = offline.client.post(
            "/builder/api/copilot", json={"workflow": example(), "instruction": "x"}
        )
        assert refused.status_code == 503 and refused.json()["error"]["code"] == "no_ai"
    finally:
        with_ai.close()
        offline.close()


def test_generate_refuses_a_hostile_model_reply():
    bad = Server(
        create_builder_app(provider=ScriptedProvider(default='{"nodes": "rm -rf", "edges": 3}'))
    )
    try:
        r = bad.client.post("/builder/api/generate", json={"description": "a bot"})
        assert r.status_code == 502 and r.json()["error"]["code"] == "ai_invalid"
    finally:
        bad.close()


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("../outside.py", 403),
        ("/etc/passwd", 403),
        ("flow.txt", 400),
        ("missing.py", 404),
        ("link.py", 403),
    ],
)
def test_watch_only_reads_py_files_under_the_working_directory(server, tmp_path, path, status):
    (tmp_path / "flow.txt").write_text("x")
    (tmp_path.parent / "outside.py").write_text("x")
    (tmp_path / "link.py").symlink_to(tmp_path.parent / "outside.py")
    r = server.client.post("/builder/api/watch", json={"path": path})
    assert r.status_code == status, r.text


def test_watch_sends_the_workflow_on_every_save(server, tmp_path):
    script = tmp_path / "flow.py"
    script.write_text(to_python(template("simple_chatbot")))
    seen: list[dict] = []
    with server.client.stream("POST", "/builder/api/watch", json={"path": "flow.py"}) as response:
        for line in response.iter_lines():
            if not line.startswith("data: "):
                continue
            seen.append(json.loads(line[6:]))
            if len(seen) == 1:
                script.write_text(to_python(template("chain_of_thought")))
            elif len(seen) == 2:
                script.write_text("def broken(:\n")
            else:
                break
    assert [e["type"] for e in seen] == ["workflow", "workflow", "error"]
    assert seen[0]["workflow"]["name"] == "simple_chatbot"
    assert seen[1]["workflow"]["name"] == "chain_of_thought"
    assert seen[2]["line"] == 1


def test_a_saved_trace_replays_as_steps(server):
    agent = Agent(provider=ScriptedProvider(["hello there"]))
    saved = trace_to_json(agent.run("hi").trace)
    steps = server.client.post("/builder/api/trace", json={"trace_json": saved}).json()["steps"]
    assert steps and steps[0]["type"] == "node_end" and steps[0]["tokens"] > 0
    bad = server.client.post("/builder/api/trace", json={"trace_json": "not json"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_trace"


# -- GitHub sign-in against a local fake GitHub ------------------------------------------------


def fake_github() -> Starlette:
    async def token(request: Request) -> JSONResponse:
        form = await request.form()
        if form.get("code") != "good-code" or form.get("client_secret") != "shh":
            return JSONResponse({"error": "bad_verification_code"})
        return JSONResponse({"access_token": "gho_fake", "token_type": "bearer"})

    async def user(request: Request) -> JSONResponse:
        if request.headers.get("authorization") != "Bearer gho_fake":
            return JSONResponse({"message": "Bad credentials"}, status_code=401)
        return JSONResponse({"login": "Octocat", "id": 1})

    return Starlette(routes=[
        Route("/login/oauth/access_token", token, methods=["POST"]),
        Route("/user", user, methods=["GET"]),
    ])  # fmt: skip


@pytest.mark.parametrize("allowed", ["octocat,someone", "someone"])
def test_github_sign_in(monkeypatch, allowed):
    with serve_in_background(fake_github()) as github:
        monkeypatch.setenv("GITHUB_CLIENT_ID", "cid")
        monkeypatch.setenv("GITHUB_CLIENT_SECRET", "shh")
        monkeypatch.setenv("GITHUB_ALLOWED_USERS", allowed)
        monkeypatch.setenv("SELECTOOLS_GITHUB_OAUTH_URL", github.url)
        monkeypatch.setenv("SELECTOOLS_GITHUB_API_URL", github.url)
        with serve_in_background(create_builder_app(provider=LocalProvider())) as builder:
            browser = httpx.Client(base_url=builder.url)
            sign_in = browser.get("/login").text  # the page offers GitHub when it is configured
            assert '<a id="github" href="/auth/github">Sign in with GitHub</a>' in sign_in
            start = browser.get("/auth/github")
            assert start.status_code == 303
            location = httpx.URL(start.headers["location"])
            assert str(location).startswith(f"{github.url}/login/oauth/authorize")
            assert location.params["client_id"] == "cid"
            state = location.params["state"]
            forged = browser.get(
                "/auth/github/callback", params={"code": "good-code", "state": "forged"}
            )
            assert forged.status_code == 403 and "state" in forged.json()["error"]["message"]
            bad_code = browser.get("/auth/github/callback", params={"code": "bad", "state": state})
            assert bad_code.status_code == 403
            done = browser.get(
                "/auth/github/callback", params={"code": "good-code", "state": state}
            )
            if "octocat" in allowed:
                assert (done.status_code, done.headers["location"]) == (303, "/builder")
                assert browser.get("/builder/api/health").json()["github_oauth"] is True
            else:
                assert done.status_code == 403 and "not allowed" in done.json()["error"]["message"]
                assert browser.get("/builder/api/health").status_code == 401
            browser.close()


def test_the_sign_in_page_offers_github_only_when_it_is_configured(monkeypatch):
    monkeypatch.delenv("GITHUB_CLIENT_ID", raising=False)
    with serve_in_background(create_builder_app(provider=LocalProvider())) as builder:
        assert "/auth/github" not in httpx.get(f"{builder.url}/login").text


def test_the_documented_uvicorn_factory_line_serves_the_builder(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(PYTHONPATH=str(ROOT), HOME=str(tmp_path), BUILDER_AUTH_TOKEN="factory-token")
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "selectools.serve._starlette_app:create_builder_app",
         "--factory", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            match = re.search(r"(http://127\.0\.0\.1:\d+)", line)
            if match:
                break
        else:
            raise AssertionError(f"uvicorn did not start (exit {proc.wait()})")
        base = match.group(1)
        assert httpx.get(f"{base}/builder/api/health").status_code == 401
        ok = httpx.get(
            f"{base}/builder/api/health", headers={"Authorization": "Bearer factory-token"}
        )
        assert ok.json()["backend"] is True
    finally:
        proc.terminate()
        proc.wait(10)


def test_frozen_nodes_reuse_their_last_output_and_runs_are_bounded(server):
    doc = template("researcher_writer")
    first = server.events({"workflow": doc, "prompt": "owls"})
    researched = next(e for e in first if e["type"] == "node_end")["output"]
    doc["nodes"][1]["frozen"] = True
    frozen = server.events({"workflow": doc, "prompt": "a new topic", "run_id": first[0]["run_id"],
                            "from_step": 0})  # fmt: skip
    ends = [e for e in frozen if e["type"] == "node_end"]
    assert ends[0]["output"] == researched and ends[0]["tokens"] == 0
    for _ in range(20):  # the server keeps the last 20 runs
        server.events({"workflow": template("simple_chatbot"), "prompt": "x"})
    gone = server.client.post("/builder/api/run", json={
        "workflow": doc, "prompt": "", "run_id": first[0]["run_id"], "from_step": 1})  # fmt: skip
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "unknown_run"


def test_the_cli_builder_with_reload_serves_and_signs_in(tmp_path):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(PYTHONPATH=str(ROOT), HOME=str(tmp_path))
    env.pop("BUILDER_AUTH_TOKEN", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "selectools.serve.cli", "serve", "--builder", "--reload",
         "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path,
        start_new_session=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        login = None
        for line in proc.stdout:
            if match := re.search(r"(http://\S+/\?token=\S+)", line):
                login = match.group(1)
            if "Application startup complete" in line:
                break
        assert login is not None, f"no login URL (exit {proc.poll()})"
        with httpx.Client() as browser:
            page = browser.get(login, follow_redirects=True)
            assert (page.status_code, page.url.path) == (200, "/builder")
            assert browser.get(f"http://127.0.0.1:{port}/builder/api/health").json()["backend"]
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(15)
