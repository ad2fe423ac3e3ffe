"""HTTPS through the guard: the connection goes to the vetted IP, TLS still checks the host name.

A local TLS server presents a certificate for ``secure.test`` only. The guard
rewrites the URL to ``127.0.0.1`` (the address it vetted) and sends the
original name as SNI and ``Host``, so the handshake verifies ``secure.test``:
the request succeeds, and a certificate for another name is rejected.
"""

from __future__ import annotations

import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from selectools._net_guard import NetPolicy, guarded_request

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl CLI")


def _cert(tmp: Path, name: str) -> tuple[Path, Path]:
    key, cert = tmp / f"{name}.key", tmp / f"{name}.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-keyout", str(key), "-out", str(cert), "-subj", f"/CN={name}",
         "-addext", f"subjectAltName=DNS:{name}"],
        check=True, capture_output=True,
    )  # fmt: skip
    return key, cert


class _Hello(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        body = f"hello {self.headers['Host']} sni={self.server.sni}".encode()  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory) -> Iterator[tuple[int, Path]]:
    tmp = tmp_path_factory.mktemp("tls")
    key, cert = _cert(tmp, "secure.test")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    server.sni = None  # type: ignore[attr-defined]

    def remember(sock: object, name: str | None, ctx: object) -> None:
        server.sni = name  # type: ignore[attr-defined]

    context.sni_callback = remember
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], cert
    server.shutdown()
    server.server_close()


def _transport(ca: Path) -> httpx.HTTPTransport:
    return httpx.HTTPTransport(verify=ssl.create_default_context(cafile=str(ca)))


def test_https_is_pinned_and_verifies_the_name(tls_server: tuple[int, Path]) -> None:
    port, ca = tls_server
    policy = NetPolicy(allow_hosts=("127.0.0.1",), resolver=lambda host, p: ["127.0.0.1"])
    result = guarded_request(
        "GET", f"https://secure.test:{port}/", policy=policy, transport=_transport(ca)
    )
    assert result.text == f"hello secure.test:{port} sni=secure.test"


def test_a_certificate_for_another_name_is_rejected(tls_server: tuple[int, Path]) -> None:
    port, ca = tls_server
    policy = NetPolicy(allow_hosts=("127.0.0.1",), resolver=lambda host, p: ["127.0.0.1"])
    with pytest.raises(httpx.ConnectError, match=r"(?i)certificate|hostname"):
        guarded_request(
            "GET", f"https://evil.test:{port}/", policy=policy, transport=_transport(ca)
        )
