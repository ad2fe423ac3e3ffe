"""Serve an agent over HTTP: ``create_app(agent).serve(port=8000)``.

``POST /invoke``, ``POST /stream`` (SSE), ``GET /health``, ``GET /schema`` and a
chat playground at ``/playground``, on Starlette + uvicorn
(the ``serve`` extra). :class:`AgentRouter` holds the request
handling for use inside another framework (FastAPI, Flask).
"""

from __future__ import annotations

from .app import AgentServer, ServerHandle, create_app
from .models import BadRequest, HealthResponse, InvokeRequest, InvokeResponse
from .router import AgentRouter

__all__ = [
    "AgentRouter",
    "AgentServer",
    "BadRequest",
    "HealthResponse",
    "InvokeRequest",
    "InvokeResponse",
    "ServerHandle",
    "create_app",
]
