"""Fixtures for the toolbox tests: a sandbox with a secret outside it, and a loopback web fake.

``FakeWeb`` is a real HTTP server on 127.0.0.1 (port 0) that speaks what the
web tools talk to: plain JSON and text pages, redirects, status errors, an
echo endpoint, and the two search APIs' wire formats (Brave's
``/res/v1/web/search`` and SearXNG's ``/search?format=json``). It records
every request so a test can prove that a refused URL was never contacted.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from selectools.toolbox import NetPolicy

BRAVE_KEY = "test-brave-key"
LONG_TEXT = "lorem ipsum " * 600  # 7200 characters


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class FakeWeb:
    port: int
    requests: list[Seen] = field(default_factory=list)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def allow(self) -> NetPolicy:
        """The explicit permission the tests need to reach the loopback fake."""
        return NetPolicy(allow_hosts=("127.0.0.1",))


def _handler(web: FakeWeb) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _send(
            self, status: int, body: bytes, ctype: str, extra: dict[str, str] | None = None
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def _json(self, value: object, status: int = 200) -> None:
            self._send(status, json.dumps(value).encode(), "application/json")

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            web.requests.append(Seen(self.command, self.path, headers, body))
            url = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            if url.path == "/json":
                self._json({"name": "selectools", "tags": ["agents", "tools"]})
            elif url.path == "/text":
                self._send(200, LONG_TEXT.encode(), "text/plain; charset=utf-8")
            elif url.path == "/html":
                self._send(200, b"<h1>Hello</h1>", "text/html")
            elif url.path == "/redirect":
                status = int(query.get("status", "302"))
                self._send(status, b"", "text/plain", {"Location": query["to"]})
            elif url.path.startswith("/status/"):
                self._send(int(url.path.rsplit("/", 1)[1]), b"nope", "text/plain")
            elif url.path == "/echo":
                self._json(
                    {
                        "method": self.command,
                        "body": json.loads(body) if body else None,
                        "host": headers.get("host"),
                        "authorization": headers.get("authorization"),
                        "x-test": headers.get("x-test"),
                    }
                )
            elif url.path == "/res/v1/web/search":
                if headers.get("x-subscription-token") != BRAVE_KEY:
                    self._json({"error": "bad key"}, 401)
                    return
                q = query.get("q", "")
                count = int(query.get("count", "20"))
                results = [
                    {
                        "title": f"{q} result {i}",
                        "url": f"https://example.com/{i}",
                        "description": f"About {q} #{i}",
                    }
                    for i in range(1, 11)
                ]
                self._json(
                    {"type": "search", "web": {"type": "search", "results": results[:count]}}
                )
            elif url.path == "/search":
                if query.get("format") != "json":
                    self._send(403, b"format not allowed", "text/plain")
                    return
                q = query.get("q", "")
                self._json(
                    {
                        "query": q,
                        "results": [
                            {
                                "title": f"{q} page",
                                "url": "https://searx.example/1",
                                "content": "snippet",
                            }
                        ],
                    }
                )
            else:
                self._send(404, b"not found", "text/plain")

        do_GET = _handle
        do_POST = _handle

    return Handler


@pytest.fixture(scope="session")
def _web_server() -> Iterator[FakeWeb]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(web := FakeWeb(0)))
    web.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield web
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
def fake_web(_web_server: FakeWeb) -> FakeWeb:
    """The loopback fake, with an empty request log for this test."""
    _web_server.requests.clear()
    return _web_server


@dataclass
class Box:
    root: Path
    outside: Path
    secret: Path


@pytest.fixture
def box(tmp_path: Path) -> Box:
    """``root/`` with a few files, and ``outside/secret.txt`` next to it (what must not leak)."""
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (root / "notes.txt").write_text("line one\nline two\n")
    (root / "sub" / "data.csv").write_text("name,age\nAlice,30\nBob,25\n")
    (root / "sub" / "a.py").write_text("print('a')\n")
    (root / ".hidden").write_text("h")
    secret = outside / "secret.txt"
    secret.write_text("TOP SECRET")
    (outside / "data.csv").write_text("k,v\nsecret,1\n")
    return Box(root, outside, secret)
