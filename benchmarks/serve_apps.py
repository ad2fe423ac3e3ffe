"""The two servers ``bench_serve.py`` compares, importable by uvicorn's workers.

``agent()`` is the agent ``selectools serve serve_apps:agent`` serves: a
``ScriptedProvider`` that waits ``BENCH_LATENCY`` seconds (default 0.05) and
echoes the prompt, streamed word by word. ``reference`` is the floor it is
measured against: a bare Starlette app on the same uvicorn that reads the same
JSON, sleeps the same latency and answers the same shapes (``/invoke`` JSON,
``/stream`` SSE events then ``[DONE]``) with no agent, checks or framework on top.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from selectools import Agent
from selectools.testing import ScriptedProvider

LATENCY = float(os.environ.get("BENCH_LATENCY", "0.05"))


def _echo(request: object) -> str:
    return f"echo: {request.last_message.content}"  # type: ignore[attr-defined]


def agent() -> Agent:
    return Agent(provider=ScriptedProvider(_echo, latency=LATENCY))  # keeps its last 1,000 requests


async def _invoke(request: Request) -> Response:
    prompt = (await request.json())["prompt"]
    await asyncio.sleep(LATENCY)
    return JSONResponse({"content": f"echo: {prompt}", "tool_calls": [], "iterations": 1})


async def _stream(request: Request) -> Response:
    prompt = (await request.json())["prompt"]

    async def events() -> AsyncIterator[str]:
        await asyncio.sleep(LATENCY)
        text = f"echo: {prompt}"
        for word in text.split(" "):
            yield f"data: {json.dumps({'type': 'chunk', 'content': word})}\n\n"
        yield f"data: {json.dumps({'type': 'result', 'content': text})}\n\n"
        yield "data: [DONE]\n\n"

    return StreamingResponse(events(), media_type="text/event-stream")


reference = Starlette(
    routes=[
        Route("/invoke", _invoke, methods=["POST"]),
        Route("/stream", _stream, methods=["POST"]),
    ]
)
