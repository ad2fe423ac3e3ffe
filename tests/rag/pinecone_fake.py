"""A local fake of Pinecone's HTTP API (control plane ``/indexes/{name}`` and the data plane).

Implements what ``PineconeVectorStore`` uses, after Pinecone's API reference:
``describe_index_stats``, ``vectors/upsert``, ``query`` (cosine, ``$eq``/``$in``
metadata filters), ``vectors/delete`` (ids or ``deleteAll``), ``vectors/list``
(paginated) and ``vectors/fetch``. Requests without the ``Api-Key`` header are
refused with 401, vectors of the wrong dimension with 400.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

API_KEY = "pc-test-key"


def _matches(meta: dict[str, Any], flt: dict[str, Any] | None) -> bool:
    for key, cond in (flt or {}).items():
        if "$eq" in cond and meta.get(key) != cond["$eq"]:
            return False
        if "$in" in cond and meta.get(key) not in cond["$in"]:
            return False
    return True


def _cosine(a: list[float], b: list[float]) -> float:
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(x * x for x in b))
    return sum(x * y for x, y in zip(a, b, strict=True)) / (na * nb) if na and nb else 0.0


class FakePinecone:
    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self.namespaces: dict[str, dict[str, dict[str, Any]]] = {}
        self.lock = threading.Lock()
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def handle(
        self, method: str, path: str, query: dict[str, list[str]], body: Any
    ) -> tuple[int, Any]:
        if path.startswith("/indexes/"):
            return 200, {
                "name": path.split("/")[-1],
                "dimension": self.dimension,
                "metric": "cosine",
                "host": self.url,
            }
        ns_name = (
            (body or {}).get("namespace", "")
            if method == "POST"
            else query.get("namespace", [""])[0]
        )
        with self.lock:
            ns = self.namespaces.setdefault(ns_name, {})
            if path == "/describe_index_stats":
                return 200, {
                    "dimension": self.dimension,
                    "namespaces": {
                        n: {"vectorCount": len(v)} for n, v in self.namespaces.items() if v
                    },
                }
            if path == "/vectors/upsert":
                for record in body["vectors"]:
                    if len(record["values"]) != self.dimension:
                        return 400, {
                            "message": f"Vector dimension {len(record['values'])} does not match "
                            f"the dimension of the index {self.dimension}"
                        }
                    ns[record["id"]] = record
                return 200, {"upsertedCount": len(body["vectors"])}
            if path == "/query":
                scored = [
                    (_cosine(body["vector"], r["values"]), r)
                    for r in ns.values()
                    if _matches(r.get("metadata", {}), body.get("filter"))
                ]
                scored.sort(key=lambda pair: -pair[0])
                return 200, {
                    "namespace": ns_name,
                    "matches": [
                        {"id": r["id"], "score": s, "metadata": r.get("metadata")}
                        for s, r in scored[: body["topK"]]
                    ],
                }
            if path == "/vectors/delete":
                if body.get("deleteAll"):
                    ns.clear()
                for id_ in body.get("ids", []):
                    ns.pop(id_, None)
                return 200, {}
            if path == "/vectors/list":
                ids = sorted(ns)
                start = int(query.get("paginationToken", ["0"])[0])
                limit = int(query.get("limit", ["100"])[0])
                page = ids[start : start + limit]
                out: dict[str, Any] = {"vectors": [{"id": i} for i in page], "namespace": ns_name}
                if start + limit < len(ids):
                    out["pagination"] = {"next": str(start + limit)}
                return 200, out
            if path == "/vectors/fetch":
                return 200, {
                    "vectors": {i: ns[i] for i in query.get("ids", []) if i in ns},
                    "namespace": ns_name,
                }
        return 404, {"message": f"no route {path}"}


@contextmanager
def fake_pinecone(dimension: int = 64) -> Iterator[FakePinecone]:
    fake = FakePinecone(dimension)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _serve(self) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length)) if length else None
            if self.headers.get("Api-Key") != API_KEY:
                status, payload = 401, {"message": "Invalid API Key"}
            else:
                status, payload = fake.handle(self.command, parts.path, parse_qs(parts.query), body)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _serve

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    fake.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
