"""A loopback HTTP collector: records every request (path, headers, body) it receives.

It answers OTLP/HTTP trace exports with an empty ``ExportTraceServiceResponse``
(what a collector and Langfuse's ``/api/public/otel`` reply) and any other path
with ``{}``; tests decode the recorded bodies with ``opentelemetry-proto``.
"""

from __future__ import annotations

import gzip
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def trace_request(self) -> ExportTraceServiceRequest:
        request = ExportTraceServiceRequest()
        request.ParseFromString(self.body)
        return request


class Collector:
    def __init__(self) -> None:
        self.received: list[Received] = []
        self.lock = threading.Lock()
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def _reply(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                with collector.lock:
                    collector.received.append(
                        Received(
                            self.command,
                            self.path,
                            {k.lower(): v for k, v in self.headers.items()},
                            body,
                        )
                    )
                if self.path.endswith("/v1/traces"):
                    payload = ExportTraceServiceResponse().SerializeToString()
                    kind = "application/x-protobuf"
                else:
                    payload, kind = b"{}", "application/json"
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_POST = _reply
            do_GET = _reply

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def spans(self, path_suffix: str = "/v1/traces") -> list:
        """Every span of every trace export received, with its resource and scope."""
        out = []
        with self.lock:
            received = list(self.received)
        for item in received:
            if not item.path.endswith(path_suffix):
                continue
            for resource_spans in item.trace_request().resource_spans:
                for scope_spans in resource_spans.scope_spans:
                    for span in scope_spans.spans:
                        out.append((resource_spans.resource, scope_spans.scope, span))
        return out

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def collector():
    server = Collector()
    yield server
    server.close()


def attributes(span) -> dict:
    """A protobuf span's attributes as a plain dict."""
    out = {}
    for kv in span.attributes:
        value = kv.value
        out[kv.key] = getattr(value, value.WhichOneof("value"))
    return out
