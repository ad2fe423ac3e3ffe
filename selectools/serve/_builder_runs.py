"""Running a builder workflow on ``AgentGraph`` for the page: events, checkpoints, interrupts.

One :class:`BuilderRuns` per app keeps the last 20 runs: each run's checkpoint
store and the checkpoint of every step (for "re-run from this step"), what each
node received and produced (for "re-run in isolation" and frozen nodes), and the
Human Input questions waiting for an answer. :meth:`BuilderRuns.events` turns the
graph's :class:`~selectools.orchestration.GraphEvent` stream into the page's run
events (``run_start``, ``node_start``, ``chunk``, ``tool_call``, ``node_end``,
``interrupt``, ``result``, ``error``); an unanswered interrupt resumes with its
default option when its ``timeout_s`` passes.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from ..builder import WorkflowError, to_graph, validate
from ..builder.runtime import mentions, port_key
from ..orchestration import GraphEvent, GraphEventType, InMemoryCheckpointStore
from ..orchestration.state import STATE_KEY_LAST_OUTPUT
from ..trace import StepType
from .models import BadRequest

__all__ = ["BuilderRuns"]

MAX_RUNS = 20


@dataclass
class _Run:
    """What the server remembers of one run."""

    prompt: str
    store: InMemoryCheckpointStore
    checkpoints: dict[int, str] = field(default_factory=dict)
    inputs: dict[str, str] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)
    waiting: dict[str, tuple[asyncio.Future[str], list[str]]] = field(default_factory=dict)


@dataclass
class _Request:
    """A checked run request: the workflow, the prompt, and what to re-run of which earlier run."""

    doc: dict[str, Any]
    prompt: str
    previous: _Run | None = None
    from_step: int | None = None
    only_node: str | None = None


def _edge_taken(doc: dict[str, Any], nid: str, port: str, text: str) -> str | None:
    """The id of the edge the runtime's router takes from ``nid`` (the same rule, for the canvas)."""
    mine = [e for e in doc["edges"] if e["from"] == nid and e["from_port"] == port]
    for edge in mine:
        if edge["condition"] and mentions(text, edge["condition"]):
            return str(edge["id"])
    for edge in mine:
        if not edge["condition"]:
            return str(edge["id"])
    return None


class BuilderRuns:
    """The runs of one builder app (bounded), and the streaming of a new one."""

    def __init__(self, provider: Any, force_provider: bool) -> None:
        self.provider = provider
        self.force_provider = force_provider
        self._runs: OrderedDict[str, _Run] = OrderedDict()
        self._lock = threading.Lock()  # a notebook runs each run on its own thread

    def _remember(self, run_id: str, run: _Run) -> None:
        with self._lock:
            self._runs[run_id] = run
            while len(self._runs) > MAX_RUNS:
                self._runs.popitem(last=False)

    def _previous(self, run_id: Any) -> _Run:
        with self._lock:
            found = self._runs.get(run_id) if isinstance(run_id, str) else None
        if found is None:
            raise BadRequest(
                f"no run {str(run_id)[:40]!r} here (the server keeps the last {MAX_RUNS} runs)",
                status=404,
                code="unknown_run",
            )
        return found

    def resume(self, run_id: Any, node: Any, option: Any) -> None:
        """Answer the Human Input question of ``node`` in run ``run_id``."""
        run = self._previous(run_id)
        waiting = run.waiting.get(node) if isinstance(node, str) else None
        if waiting is None:
            raise BadRequest(
                f"node {str(node)[:80]!r} is not waiting for an answer",
                status=409,
                code="not_waiting",
            )
        future, options = waiting
        if option not in options:
            raise BadRequest(f"answer one of {options}", code="invalid_option")
        future.get_loop().call_soon_threadsafe(_answer, future, option)

    def prepare(self, body: Any) -> _Request:
        """The checked request (BadRequest before any event is sent)."""
        if not isinstance(body, dict):
            raise BadRequest('send {"workflow": {...}, "prompt": "..."}', code="invalid_body")
        try:
            doc = validate(body.get("workflow"), runnable=True)
        except WorkflowError as exc:
            raise BadRequest(str(exc), code="invalid_workflow") from None
        prompt = body.get("prompt", "")
        if not isinstance(prompt, str) or len(prompt) > 32_000:
            raise BadRequest(
                '"prompt" must be a string of at most 32000 characters', code="invalid_prompt"
            )
        request = _Request(doc, prompt)
        if body.get("from_step") is None and body.get("only_node") is None:
            if not prompt.strip():
                raise BadRequest('"prompt" must be a non-empty string', code="invalid_prompt")
            return request
        request.previous = previous = self._previous(body.get("run_id"))
        if body.get("from_step") is not None:
            step = body["from_step"]
            if (
                isinstance(step, bool)
                or not isinstance(step, int)
                or (step > 0 and step - 1 not in previous.checkpoints)
            ):
                raise BadRequest(
                    f"run {body['run_id']!r} has no checkpoint for step {step!r}",
                    code="invalid_step",
                )
            request.from_step = step
        else:
            nid = body["only_node"]
            ids = {n["id"]: n for n in doc["nodes"]}
            if nid not in ids or ids[nid]["type"] not in ("agent", "subgraph"):
                raise BadRequest(
                    f"only_node must be the id of an agent or subgraph node, got {str(nid)[:80]!r}",
                    code="invalid_node",
                )
            if nid not in previous.inputs:
                raise BadRequest(
                    f"node {nid!r} did not run in run {body['run_id']!r}", code="invalid_node"
                )
            request.only_node = nid
        return request

    async def events(self, request: _Request) -> AsyncIterator[dict[str, Any]]:
        """The run events of one run (see the module docstring)."""
        doc, previous = request.doc, request.previous
        run_id = secrets.token_hex(8)
        if request.only_node is not None and previous is not None:
            doc = _alone(doc, request.only_node)
            prompt = previous.inputs[request.only_node]
        else:
            prompt = request.prompt or (previous.prompt if previous else "")
        store = previous.store if request.from_step and previous else InMemoryCheckpointStore()
        run = _Run(prompt, store)
        self._remember(run_id, run)
        yield {"type": "run_start", "run_id": run_id}
        try:
            graph = to_graph(
                doc,
                provider=self.provider,
                force_provider=self.force_provider,
                outputs=_fixed_outputs(doc, previous),
            )
        except (WorkflowError, ValueError) as exc:
            yield {"type": "error", "message": str(exc), "node": None}
            return
        ids = {n["name"]: n["id"] for n in doc["nodes"] if n.get("name")}
        nodes = {n["id"]: n for n in doc["nodes"]}
        checkpoint = None
        if request.from_step and previous is not None:
            checkpoint = previous.checkpoints[request.from_step - 1]
        stream: AsyncIterator[GraphEvent] | None = graph.astream(
            prompt, checkpoint_store=store, checkpoint_id=checkpoint
        )
        began = time.perf_counter()
        text = prompt
        if checkpoint is not None:
            saved, _ = store.load(checkpoint)
            text = str(saved.data.get(STATE_KEY_LAST_OUTPUT, prompt))
        history = 0
        starts: dict[str, float] = {}
        paused: str | None = None  # the last interrupt this run paused at
        try:
            while stream is not None:
                source, stream = stream, None
                try:
                    async for event in source:
                        kind, name = event.type, event.node_name or ""
                        nid = ids.get(name, name)
                        step = max(event.step - 1, 0)
                        if kind is GraphEventType.NODE_START and nid not in starts:
                            starts[nid] = time.perf_counter() - began
                            run.inputs[nid] = text
                            yield {
                                "type": "node_start",
                                "node": nid,
                                "step": step,
                                "t": round(starts[nid], 4),
                            }
                        elif kind is GraphEventType.NODE_CHUNK and event.chunk:
                            yield {"type": "chunk", "node": nid, "content": event.chunk}
                        elif kind is GraphEventType.NODE_END and event.state is not None:
                            state = event.state
                            text = str(state.data.get(STATE_KEY_LAST_OUTPUT, ""))
                            tokens, cost = 0, 0.0
                            for _node, result in state.history[history:]:
                                usage = result.usage
                                tokens += usage.total_tokens if usage else 0
                                cost += usage.total_cost_usd if usage else 0.0
                                for call in result.trace.steps if result.trace else []:
                                    if call.type is StepType.TOOL_EXECUTION:
                                        yield {
                                            "type": "tool_call", "node": nid, "tool": call.tool_name or "",
                                            "args": call.tool_args or {}, "result": call.result or "",
                                            "ms": round(call.duration_ms, 1),
                                        }  # fmt: skip
                            history = len(state.history)
                            kind_of = nodes.get(nid, {}).get("type")
                            port = (
                                str(state.data.get(port_key(name), "out"))
                                if kind_of in ("loop", "hitl")
                                else "out"
                            )
                            run.outputs[nid] = text
                            yield {
                                "type": "node_end", "node": nid, "step": step,
                                "t0": round(starts.pop(nid, 0.0), 4), "t1": round(time.perf_counter() - began, 4),
                                "tokens": tokens, "cost_usd": cost, "input": run.inputs.get(nid, ""),
                                "output": text, "port": port, "edge": _edge_taken(doc, nid, port, text),
                            }  # fmt: skip
                        elif kind is GraphEventType.CHECKPOINT and event.checkpoint_id:
                            run.checkpoints[step] = event.checkpoint_id
                        elif kind is GraphEventType.GRAPH_INTERRUPT and event.interrupt_id:
                            paused = event.interrupt_id
                            node = nodes.get(nid, {})
                            answer = yield_answer = asyncio.get_running_loop().create_future()
                            run.waiting[nid] = (yield_answer, list(node.get("options", [])))
                            timeout = float(node.get("timeout_s", 300))
                            yield {
                                "type": "interrupt", "node": nid, "prompt": node.get("prompt", ""),
                                "options": node.get("options", []), "timeout_s": timeout,
                            }  # fmt: skip
                            try:
                                option = await asyncio.wait_for(asyncio.shield(answer), timeout)
                            except asyncio.TimeoutError:
                                option = node.get("default_option") or node["options"][0]
                            finally:
                                run.waiting.pop(nid, None)
                            starts[nid] = starts.get(nid, time.perf_counter() - began)
                            stream = graph.astream_resume(
                                event.interrupt_id, option, checkpoint_store=store
                            )
                            break
                        elif kind is GraphEventType.GRAPH_END:
                            yield {"type": "result", "content": text}
                except Exception as exc:  # the run failed: say where, keep the server up
                    node = getattr(exc, "node_name", None)
                    message = (
                        str(exc)
                        if isinstance(exc, (WorkflowError, ValueError)) or node
                        else f"the run failed ({type(exc).__name__})"
                    )
                    yield {"type": "error", "message": message, "node": ids.get(node or "", node)}
                    return
                finally:
                    if stream is None or stream is not source:
                        await source.aclose()  # type: ignore[attr-defined]
        finally:
            if paused is not None:  # the client left at a Human Input node: free the run
                graph.abandon(paused)


def _answer(future: asyncio.Future[str], option: str) -> None:
    """Set the answer on the run's own event loop (a notebook answers from another thread)."""
    if not future.done():
        future.set_result(option)


def _fixed_outputs(doc: dict[str, Any], previous: _Run | None) -> dict[str, str]:
    """Pinned nodes' outputs, and frozen nodes' last outputs (when the last run has one)."""
    fixed = {}
    for node in doc["nodes"]:
        if node["type"] not in ("agent", "subgraph"):
            continue
        if isinstance(node.get("pinned_output"), str):
            fixed[node["name"]] = node["pinned_output"]
        elif node.get("frozen") and previous is not None and node["id"] in previous.outputs:
            fixed[node["name"]] = previous.outputs[node["id"]]
    return fixed


def _alone(doc: dict[str, Any], nid: str) -> dict[str, Any]:
    """The workflow cut down to START → ``nid`` → END (with the agent tools wired to it)."""
    tools = {e["from"] for e in doc["edges"] if e["to"] == nid and e["from_port"] == "tool"}
    keep = [n for n in doc["nodes"] if n["id"] in tools or n["id"] == nid]
    edges = [e for e in doc["edges"] if e["from"] in tools and e["to"] == nid]
    edges += [
        {
            "id": "only_in",
            "from": "start",
            "from_port": "out",
            "to": nid,
            "to_port": "in",
            "condition": "",
        },
        {
            "id": "only_out",
            "from": nid,
            "from_port": "out",
            "to": "end",
            "to_port": "in",
            "condition": "",
        },
    ]
    nodes = [{"id": "start", "type": "start"}, *keep, {"id": "end", "type": "end"}]
    return validate({**doc, "nodes": nodes, "edges": edges})
