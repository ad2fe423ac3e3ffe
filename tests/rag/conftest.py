"""A loopback HTTP server whose routes a test scripts, recording every request.

Used as a web page for the URL loader and as wire-compatible fakes of the
Cohere (``POST /v2/rerank``) and Jina (``POST /v1/rerank``) rerank APIs.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

Reply = tuple[int, str, bytes]  # status, content type, body


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Loopback:
    port: int
    routes: dict[str, Callable[[Seen], Reply]] = field(default_factory=dict)
    requests: list[Seen] = field(default_factory=list)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


def rerank_reply(scores: list[float], vendor: str) -> Callable[[Seen], Reply]:
    """A rerank response in the vendor's shape: results sorted by score, ``top_n`` of them."""

    def reply(seen: Seen) -> Reply:
        body = seen.json()
        ranked = sorted(range(len(body["documents"])), key=lambda i: -scores[i])[
            : body.get("top_n")
        ]
        results: list[dict[str, Any]] = [{"index": i, "relevance_score": scores[i]} for i in ranked]
        payload: dict[str, Any]
        if vendor == "cohere":
            payload = {
                "id": "rr-1",
                "results": results,
                "meta": {"billed_units": {"search_units": 1}},
            }
        else:
            payload = {"model": body["model"], "usage": {"total_tokens": 42}, "results": results}
        return 200, "application/json", json.dumps(payload).encode()

    return reply


@pytest.fixture
def loopback() -> Iterator[Loopback]:
    server_box: dict[str, Loopback] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            seen = Seen(
                self.command,
                self.path,
                {k.lower(): v for k, v in self.headers.items()},
                self.rfile.read(length),
            )
            web = server_box["web"]
            web.requests.append(seen)
            route = web.routes.get(self.path.split("?")[0])
            status, ctype, body = route(seen) if route else (404, "text/plain", b"not found")
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _serve

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server_box["web"] = Loopback(port=server.server_address[1])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server_box["web"]
    finally:
        server.shutdown()
        server.server_close()
