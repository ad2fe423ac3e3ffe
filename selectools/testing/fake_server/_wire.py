"""Writing HTTP responses by hand: JSON bodies, chunked streams, and a TCP reset.

The fake server needs control below ``BaseHTTPRequestHandler``'s helpers: it
streams with chunked transfer encoding so it can stop part-way, and it aborts a
connection with a reset the way a crashed upstream would.
"""

from __future__ import annotations

import json
import socket
import struct
from http.server import BaseHTTPRequestHandler
from typing import Any

__all__ = ["end_chunks", "reset", "send_chunk", "send_json", "send_raw"]


def send_json(
    h: BaseHTTPRequestHandler, status: int, payload: Any, headers: dict[str, str] | None = None
) -> None:
    send_raw(h, status, json.dumps(payload).encode(), headers)


def send_raw(
    h: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str] | None = None
) -> None:
    h.send_response(status)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(body)))
    for name, value in (headers or {}).items():
        h.send_header(name, value)
    h.end_headers()
    h.wfile.write(body)


def send_chunk(h: BaseHTTPRequestHandler, data: bytes) -> None:
    h.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")


def end_chunks(h: BaseHTTPRequestHandler) -> None:
    h.wfile.write(b"0\r\n\r\n")


def reset(h: BaseHTTPRequestHandler) -> None:
    """Abort the connection with a TCP reset, as a crashed upstream would."""
    h.close_connection = True
    sock = h.connection
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        h.rfile.close()
        sock.close()
    except OSError:
        pass
