"""The visual builder's server side: its page, login, and running a workflow with streamed events.

A workflow is what the builder's canvas holds: ``{"nodes": [...], "edges": [...]}``
with one ``start`` node, one ``end`` node and ``agent`` nodes (``name``,
``model``, ``system_prompt``) between them (``note`` nodes are not executed). This
build runs a workflow whose agents form one chain from START to END, each agent
getting the previous one's answer; branches, loops and the other node types need
AgentGraph (the orchestration issue) and are refused with a message that says so.

``POST /builder/run`` streams the run as SSE: ``node_start``, ``chunk``,
``node_end`` (timings, tokens, cost: the test panel's Gantt timeline), then
``result`` and ``[DONE]``. Every builder route needs a session (the builder never
runs open): ``/login`` or ``/?token=...`` trades the token for an HMAC-signed
cookie (no database).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from .models import BadRequest

__all__ = ["builder_token", "plan_chain", "run_workflow_events", "sign_session", "valid_session"]

COOKIE = "selectools_builder"
SESSION_SECONDS = 12 * 3600
_MAX_NODES = 50


def builder_token(flag: str | None = None) -> str | None:
    """The configured token: the flag, then ``BUILDER_AUTH_TOKEN``, then ``~/.selectools/auth_token``.

    None when none is configured (the builder then makes one); an empty flag is an error.
    """
    if flag is not None:
        if not flag.strip():
            raise ValueError(
                "the builder's auth token is empty, which would protect nothing: pass a real "
                "secret, or none (the builder then makes one and prints its login URL)"
            )
        return flag
    env = os.environ.get("BUILDER_AUTH_TOKEN")
    if env:
        return env
    dotfile = Path.home() / ".selectools" / "auth_token"
    try:
        text = dotfile.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return text or None


def sign_session(token: str, now: float | None = None) -> str:
    expires = int((now if now is not None else time.time()) + SESSION_SECONDS)
    mac = hmac.new(token.encode(), f"builder:{expires}".encode(), hashlib.sha256).hexdigest()
    return f"{expires}.{mac}"


def valid_session(token: str, cookie: str | None, now: float | None = None) -> bool:
    if not cookie or "." not in cookie:
        return False
    expires, _, mac = cookie.partition(".")
    if not expires.isdigit() or int(expires) < (now if now is not None else time.time()):
        return False
    expected = hmac.new(token.encode(), f"builder:{expires}".encode(), hashlib.sha256).hexdigest()
    return hmac.compare_digest(mac, expected)


def plan_chain(workflow: Any) -> list[dict[str, Any]]:
    """The agent nodes from START to END, in order; BadRequest for anything else."""
    if not isinstance(workflow, dict):
        raise BadRequest(
            "workflow must be a JSON object with nodes and edges", code="invalid_workflow"
        )
    nodes = workflow.get("nodes")
    edges = workflow.get("edges")
    if not isinstance(nodes, list) or not isinstance(edges, list):
        raise BadRequest(
            "workflow needs a list of nodes and a list of edges", code="invalid_workflow"
        )
    if len(nodes) > _MAX_NODES:
        raise BadRequest(
            f"workflow has {len(nodes)} nodes; at most {_MAX_NODES}", code="invalid_workflow"
        )
    by_id: dict[str, dict[str, Any]] = {}
    for node in nodes:
        if not isinstance(node, dict) or not isinstance(node.get("id"), str):
            raise BadRequest("every node needs a string id", code="invalid_workflow")
        by_id[node["id"]] = node
    kinds = [n.get("type") for n in by_id.values()]
    if kinds.count("start") != 1 or kinds.count("end") != 1:
        raise BadRequest(
            "a workflow needs exactly one START and one END node", code="invalid_workflow"
        )
    unsupported = sorted({str(k) for k in kinds} - {"start", "end", "agent", "note"})
    if unsupported:
        raise BadRequest(
            f"node type(s) {', '.join(unsupported)} need AgentGraph, which this build does not "
            "include yet; use Agent nodes in a chain",
            code="needs_agentgraph",
        )
    outgoing: dict[str, list[str]] = {}
    for edge in edges:
        ends = (edge.get("from"), edge.get("to")) if isinstance(edge, dict) else (None, None)
        if not all(isinstance(end, str) and end in by_id for end in ends):
            shown = repr(edge)
            shown = shown if len(shown) <= 80 else shown[:77] + "..."
            raise BadRequest(
                f"edge {shown} does not join two nodes of the workflow", code="invalid_workflow"
            )
        outgoing.setdefault(edge["from"], []).append(edge["to"])
    if any(len(targets) > 1 for targets in outgoing.values()):
        raise BadRequest(
            "a node with several outgoing edges (a branch) needs AgentGraph, which this build does "
            "not include yet; connect the agents in one chain",
            code="needs_agentgraph",
        )
    start = next(i for i, n in by_id.items() if n.get("type") == "start")
    chain: list[dict[str, Any]] = []
    seen = {start}
    current = start
    while True:
        targets = outgoing.get(current, [])
        if not targets:
            raise BadRequest(
                f"the chain stops at {by_id[current].get('name') or current}: connect it on to END",
                code="invalid_workflow",
            )
        current = targets[0]
        if current in seen:
            raise BadRequest("the workflow loops; loops need AgentGraph", code="needs_agentgraph")
        seen.add(current)
        node = by_id[current]
        if node.get("type") == "end":
            break
        if node.get("type") != "agent":
            raise BadRequest(
                "only Agent nodes can sit between START and END", code="invalid_workflow"
            )
        chain.append(node)
    if not chain:
        raise BadRequest(
            "add at least one Agent node between START and END", code="invalid_workflow"
        )
    return chain


def _agent_for(node: dict[str, Any], provider: Any) -> Any:
    from ..agent.config import AgentConfig
    from ..agent.core import Agent

    kwargs: dict[str, Any] = {"name": str(node.get("name") or node["id"])[:80]}
    if node.get("model"):
        kwargs["model"] = str(node["model"])
    if node.get("system_prompt"):
        kwargs["system_prompt"] = str(node["system_prompt"])
    return Agent(provider=provider, config=AgentConfig(**kwargs))


async def run_workflow_events(
    chain: list[dict[str, Any]], prompt: str, provider: Any
) -> AsyncIterator[str]:
    """SSE payloads of one run of the chain: node_start, chunk, node_end, result, [DONE]."""
    from ..types import AgentResult

    text = prompt
    began = time.perf_counter()
    try:
        for node in chain:
            agent = _agent_for(node, provider)
            started = time.perf_counter() - began
            yield json.dumps({"type": "node_start", "node": node["id"], "t": round(started, 4)})
            result = None
            async for item in agent.astream(text):
                if isinstance(item, AgentResult):
                    result = item
                elif item.content:
                    yield json.dumps({"type": "chunk", "node": node["id"], "content": item.content})
            assert result is not None
            usage = result.usage
            yield json.dumps(
                {
                    "type": "node_end",
                    "node": node["id"],
                    "name": agent.name,
                    "t0": round(started, 4),
                    "t1": round(time.perf_counter() - began, 4),
                    "tokens": usage.total_tokens if usage else 0,
                    "cost_usd": usage.total_cost_usd if usage else 0.0,
                    "output": result.content,
                }
            )
            text = result.content
        yield json.dumps({"type": "result", "content": text})
    except Exception as exc:
        yield json.dumps({"type": "error", "message": f"the run failed ({type(exc).__name__})"})
    yield "[DONE]"
