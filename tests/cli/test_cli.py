"""The ``selectools`` command, run as a real subprocess."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from time import monotonic as time_monotonic, sleep as time_sleep

import httpx
import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parents[2]
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY")


def env(**extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k not in KEYS}
    return {**base, "PYTHONPATH": str(ROOT), **extra}


def run(*args: str, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "selectools", *args],
        capture_output=True,
        text=True,
        env=env(**extra),
        cwd=cwd,
        timeout=60,
    )


class Server:
    """``selectools serve ...`` in the background; ``url`` from its banner."""

    def __init__(self, args: list[str], cwd: Path, **extra: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "selectools", "serve", *args, "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env(**extra),
            cwd=cwd,
        )
        assert self.proc.stdout is not None
        self.banner: list[str] = []
        for line in self.proc.stdout:
            self.banner.append(line.rstrip("\n"))
            if line.startswith("Press Ctrl+C"):
                break
        match = re.search(r"serving at (http://\S+)", "\n".join(self.banner))
        assert match, (
            f"no banner: {self.banner} {self.proc.stderr.read() if self.proc.stderr else ''}"
        )
        self.url = match.group(1)

    def stop(self) -> str:
        self.proc.terminate()
        _, err = self.proc.communicate(timeout=10)
        return err


@pytest.fixture
def serve(tmp_path) -> Iterator:
    started: list[Server] = []

    def start(*args: str, **extra: str) -> Server:
        server = Server(list(args), tmp_path, **extra)
        started.append(server)
        return server

    yield start
    for server in started:
        if server.proc.poll() is None:
            server.stop()


def test_console_script_is_declared():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, func = scripts["selectools"].partition(":")
    assert (module, func) == ("selectools.serve.cli", "main")


def test_serve_a_template_offline(serve):
    server = serve("customer_support")
    assert server.url.startswith("http://127.0.0.1:")
    assert server.banner[1:6] == [
        "  POST /invoke   -- single prompt",
        "  POST /stream   -- SSE streaming",
        "  GET  /health   -- health check",
        "  GET  /schema   -- tool schemas",
        "  GET  /playground -- chat UI",
    ]
    health = httpx.get(f"{server.url}/health").json()
    assert health["tools"] == ["lookup_customer", "search_help_articles", "create_ticket"]
    assert health["provider"] == "local"
    answer = httpx.post(f"{server.url}/invoke", json={"prompt": "hello"}).json()
    assert answer["content"] == "hello"
    assert "offline LocalProvider" in server.stop()


def test_serve_yaml_with_auth_and_no_playground(serve, tmp_path):
    (tmp_path / "agent.yaml").write_text("provider: local\nsystem_prompt: Be brief.\n")
    server = serve("agent.yaml", "--no-playground", "--auth-token", "tok")
    assert not any("/playground" in line for line in server.banner)
    assert httpx.post(f"{server.url}/invoke", json={"prompt": "x"}).status_code == 401
    ok = httpx.post(
        f"{server.url}/invoke", json={"prompt": "x"}, headers={"Authorization": "Bearer tok"}
    )
    assert ok.json()["content"] == "x"
    assert httpx.get(f"{server.url}/playground").status_code == 404


def test_binding_every_interface_is_announced(serve):
    server = serve("rag_chatbot", "--host", "0.0.0.0")
    assert "listening on 0.0.0.0" in server.stop()


def test_serve_errors_name_file_and_line(tmp_path):
    (tmp_path / "bad.yaml").write_text("provider: local\nmax_iterations: many\n")
    result = run("serve", "bad.yaml", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "selectools serve: error: bad.yaml, line 2: max_iterations must be an integer, got 'many'"
    )
    missing = run("serve", "nope.yaml", cwd=tmp_path)
    assert missing.returncode == 2
    assert "nope.yaml: config file not found" in missing.stderr
    unknown = run("serve", "customer_suport", cwd=tmp_path)
    assert "neither a YAML file nor a template" in unknown.stderr
    assert "Traceback" not in result.stderr + missing.stderr + unknown.stderr


def test_templates_command(tmp_path):
    out = run("templates", cwd=tmp_path).stdout.split()
    assert out == [
        "code_reviewer", "customer_support", "data_analyst", "rag_chatbot", "research_assistant"
    ]  # fmt: skip


def test_doctor_without_keys(tmp_path):
    result = run("doctor", cwd=tmp_path)
    lines = result.stdout.splitlines()
    assert lines[:2] == ["Selectools Doctor", "=" * 40]
    assert "  OPENAI_API_KEY: MISSING" in lines
    assert "  GEMINI_API_KEY: MISSING" in lines
    assert "  starlette: OK (Starlette serving)" in lines
    assert "  OpenAI: skipped (no key)" in lines
    assert lines[-1] == "Diagnosis complete."


class _Models(BaseHTTPRequestHandler):
    good = "sk-good-0123456789"

    def do_GET(self) -> None:
        ok = (
            self.path == "/v1/models" and self.headers.get("Authorization") == f"Bearer {self.good}"
        )
        self.send_response(200 if ok else 401)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"data": []}' if ok else b'{"error": "bad key"}')

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def models_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Models)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_doctor_checks_providers_and_never_prints_keys(tmp_path, models_server):
    good = run("doctor", cwd=tmp_path, OPENAI_API_KEY=_Models.good, OPENAI_BASE_URL=models_server)
    assert "  OPENAI_API_KEY: OK" in good.stdout.splitlines()
    assert "  OpenAI: OK (connected)" in good.stdout.splitlines()
    bad = run("doctor", cwd=tmp_path, OPENAI_API_KEY="sk-bad-999999", OPENAI_BASE_URL=models_server)
    assert "  OpenAI: FAILED (key rejected, HTTP 401)" in bad.stdout.splitlines()
    assert _Models.good not in good.stdout + good.stderr
    assert "sk-bad-999999" not in bad.stdout + bad.stderr
    offline = run("doctor", "--offline", cwd=tmp_path, OPENAI_API_KEY="sk-x")
    assert "  OpenAI: skipped (--offline)" in offline.stdout.splitlines()


def test_serve_builder_and_its_login(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "selectools", "serve", "--builder", "--port", "0",
         "--auth-token", "b-tok"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), cwd=tmp_path,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        match = re.search(r"builder at (http://\S+)/builder", proc.stdout.readline())
        assert match
        base = match.group(1)
        visit = httpx.get(f"{base}/builder", follow_redirects=False)
        assert visit.status_code == 303
        assert visit.headers["location"] == "/login"
        login = httpx.post(f"{base}/login", json={"token": "b-tok"})
        page = httpx.get(f"{base}/builder", cookies=login.cookies)
        assert page.status_code == 200
        assert "selectools builder" in page.text
    finally:
        proc.terminate()
        proc.wait(10)


COUNTING_AGENT = """
import os

from selectools import Agent
from selectools.testing import ScriptedProvider


def agent():
    return Agent(
        provider=ScriptedProvider(lambda r: f"{os.getpid()} saw {len(r.messages)} messages")
    )


not_an_agent = 42
"""


def children(pid: int) -> set[int]:
    """The live child processes of ``pid`` (Linux /proc)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found.update(int(c) for c in (task / "children").read_text().split())
    return found


def alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status  # a zombie has exited


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_serve_with_two_workers_shares_sessions_and_stops(serve, tmp_path, request, backend):
    """One conversation continues whichever worker takes each turn, with sessions in SQLite or Redis."""
    (tmp_path / "counting.py").write_text(COUNTING_AGENT)
    if backend == "redis":
        store = request.getfixturevalue("redis_server")  # a real redis-server, shared by the run
    else:
        store = str(tmp_path / "s.db")
    session = f"s-{uuid.uuid4().hex}"  # the Redis server is shared: a name no other test uses
    server = serve("counting:agent", "--workers", "2", "--session-store", store)
    assert "  (2 worker processes)" in server.banner
    workers: set[int] = set()
    for _ in range(100):  # uvicorn starts the workers after the banner
        workers = {p for p in children(server.proc.pid) if alive(p)}
        if len(workers) >= 3:  # two workers and multiprocessing's resource tracker
            break
        time_sleep(0.1)
    assert len(workers) >= 2
    answered = set()
    for turn in range(1, 9):  # a new connection each time: any worker may take it
        reply = httpx.post(
            f"{server.url}/invoke",
            json={"prompt": f"turn {turn}", "session_id": session},
            timeout=30,
        )
        assert reply.status_code == 200, reply.text
        pid, _, rest = reply.json()["content"].partition(" ")
        assert rest == f"saw {2 * turn - 1} messages"  # the whole conversation, on any worker
        answered.add(int(pid))
    assert answered <= workers and server.proc.pid not in answered
    server.proc.terminate()
    assert server.proc.wait(30) == 0
    deadline = time_monotonic() + 10
    while any(alive(p) for p in workers) and time_monotonic() < deadline:
        time_sleep(0.1)
    assert not any(alive(p) for p in workers)


def test_serve_module_agent_errors(tmp_path):
    (tmp_path / "counting.py").write_text(COUNTING_AGENT)
    missing = run("serve", "nowhere:agent", cwd=tmp_path)
    assert missing.returncode == 2 and "cannot import 'nowhere'" in missing.stderr
    no_name = run("serve", "counting:nobody", cwd=tmp_path)
    assert no_name.returncode == 2 and "'counting' has no 'nobody'" in no_name.stderr
    wrong = run("serve", "counting:not_an_agent", cwd=tmp_path)
    assert (
        wrong.returncode == 2 and "it must be an Agent or a function returning one" in wrong.stderr
    )
    zero = run("serve", "counting:agent", "--workers", "0", cwd=tmp_path)
    assert zero.returncode == 2 and "--workers must be at least 1" in zero.stderr
