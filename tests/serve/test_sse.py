"""The SSE response of ``POST /stream``: framing, keep-alive comments, the client leaving."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route

from selectools.serve._sse import EventStream, frame
from selectools.serve.app import serve_in_background


def test_a_payload_with_line_breaks_becomes_one_event_of_several_data_lines():
    assert frame('{"a": 1}') == b'data: {"a": 1}\n\n'
    assert frame("one\ntwo\r\nthree") == b"data: one\ndata: two\ndata: three\n\n"


def test_a_named_event_leads_with_its_name_and_a_name_is_one_line():
    assert frame('{"n": 1}', "case") == b'event: case\ndata: {"n": 1}\n\n'
    assert frame("a\nb", "end") == b"event: end\ndata: a\ndata: b\n\n"
    with pytest.raises(ValueError, match="one line"):
        frame("x", "case\ndata: forged")


def test_a_quiet_stream_sends_keep_alive_comments_then_its_events():
    finished: list[str] = []

    async def slow() -> AsyncIterator[str]:
        yield "first"
        await asyncio.sleep(0.6)  # several ping intervals with nothing to say
        yield "second"
        finished.append("yes")

    async def endpoint(request: Request) -> EventStream:
        return EventStream(slow(), headers={"Cache-Control": "no-store"}, ping=0.1)

    app = Starlette(routes=[Route("/s", endpoint, methods=["GET"])])
    with (
        serve_in_background(app) as handle,
        httpx.stream("GET", f"{handle.url}/s", timeout=10) as response,
    ):
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["cache-control"] == "no-store"
        lines = [line for line in response.iter_lines() if line]
    assert lines[0] == "data: first" and lines[-1] == "data: second"
    assert 2 <= lines.count(": ping") == len(lines) - 2
    assert finished == ["yes"]


def test_the_producer_stops_when_the_client_leaves():
    produced: list[int] = []
    closed: list[bool] = []

    async def endless() -> AsyncIterator[str]:
        try:
            while True:
                produced.append(1)
                yield str(len(produced))
                await asyncio.sleep(0.02)
        finally:
            closed.append(True)

    async def endpoint(request: Request) -> EventStream:
        return EventStream(endless(), headers={})

    app = Starlette(routes=[Route("/s", endpoint, methods=["GET"])])
    with serve_in_background(app) as handle:
        with httpx.stream("GET", f"{handle.url}/s", timeout=10) as response:
            for line in response.iter_lines():
                if line == "data: 3":
                    break
        deadline = time.monotonic() + 10
        while not closed and time.monotonic() < deadline:
            time.sleep(0.05)
        assert closed == [True]
        count = len(produced)
        time.sleep(0.3)
        assert len(produced) == count  # nothing is produced for nobody
