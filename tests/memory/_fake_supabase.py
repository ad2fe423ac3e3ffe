"""A local fake of the Supabase REST (PostgREST) routes SupabaseKnowledgeStore uses.

Tables are in memory, behind one lock (a request is atomic, as in Postgres).
Filters: ``col=eq.|gte.|lt.|in.(...)|not.is.null``; ``order=col.asc|desc``;
``on_conflict`` with ``Prefer: resolution=ignore-duplicates``; ``Prefer:
return=representation`` returns the rows touched. Identity columns (``seq``)
count up. A wrong ``apikey`` is a 401, an unknown table a 404 and a primary-key
clash a 409, with PostgREST-shaped JSON errors.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

KEYS = {"selectools_knowledge": ("id",), "selectools_knowledge_facts": ("category", "content")}


def _matches(row: dict[str, Any], column: str, condition: str) -> bool:
    value = row.get(column)
    if condition == "not.is.null":
        return value is not None
    op, _, operand = condition.partition(".")
    if op == "eq":
        return str(value) == operand
    if op == "gte":
        return value is not None and str(value) >= operand
    if op == "lt":
        return value is not None and str(value) < operand
    if op == "in":
        items = [i.strip().strip('"') for i in operand.strip("()").split(",")]
        return str(value) in items
    raise ValueError(f"unsupported filter {column}={condition}")


class FakeSupabase:
    def __init__(self, key: str = "service-key") -> None:
        self.key = key
        self.tables: dict[str, list[dict[str, Any]]] = {name: [] for name in KEYS}
        self.seq = 0
        self.lock = threading.Lock()
        self.requests: list[tuple[str, str]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _reply(self, status: int, body: Any = None) -> None:
                raw = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _handle(self) -> None:
                parts = urlsplit(self.path)
                fake.requests.append((self.command, self.path))
                if self.headers.get("apikey") != fake.key:
                    return self._reply(401, {"message": "Invalid API key"})
                table = parts.path.removeprefix("/rest/v1/")
                if table not in fake.tables:
                    return self._reply(
                        404, {"code": "42P01", "message": f'relation "{table}" does not exist'}
                    )
                query = [(k, unquote(v)) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
                filters = [(k, v) for k, v in query if k not in ("select", "order", "on_conflict")]
                prefer = self.headers.get("Prefer", "")
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                with fake.lock:
                    rows = fake.tables[table]
                    if self.command == "GET":
                        found = [r for r in rows if all(_matches(r, k, v) for k, v in filters)]
                        for key, value in query:
                            if key == "order":
                                column, _, direction = value.partition(".")
                                found.sort(
                                    key=lambda r: r.get(column) or "", reverse=direction == "desc"
                                )
                        return self._reply(200, found)
                    if self.command == "POST":
                        new = body if isinstance(body, list) else [body]
                        for row in new:
                            row = dict(row)
                            keys = KEYS[table]
                            if any(all(r.get(k) == row.get(k) for k in keys) for r in rows):
                                if "ignore-duplicates" in prefer:
                                    continue
                                return self._reply(
                                    409, {"code": "23505", "message": "duplicate key"}
                                )
                            if table.endswith("_facts"):
                                fake.seq += 1
                                row["seq"] = fake.seq
                            rows.append(row)
                        return self._reply(201, None)
                    if self.command == "DELETE":
                        if not filters:
                            return self._reply(400, {"message": "DELETE requires a WHERE clause"})
                        gone = [r for r in rows if all(_matches(r, k, v) for k, v in filters)]
                        fake.tables[table] = [r for r in rows if r not in gone]
                        return self._reply(
                            200 if "representation" in prefer else 204,
                            gone if "representation" in prefer else None,
                        )
                return self._reply(405, {"message": "method not allowed"})

            do_GET = do_POST = do_DELETE = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeSupabase:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
