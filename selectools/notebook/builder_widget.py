"""The visual builder as a notebook widget, bound to an ``AgentGraph`` of the kernel.

``graph.edit()`` or ``%selectools builder VAR`` shows the builder's own canvas (the
ES modules of ``selectools/serve/_static/builder``, inlined: no server, no IFrame)
as an anywidget. The ``workflow`` trait is the document, both ways: a canvas edit
rebuilds the graph in place (the same object, so every name bound to it sees the
change), and after each cell the graph is read again, so changes made in Python
redraw the canvas. The canvas calls the kernel over the widget's message channel
(``widget.js`` documents it): code, import, templates, runs (on ``AgentGraph``,
as the server runs them), Human Input answers, traces. The "insert cell" buttons
put the equivalent ``%%graph`` cell or Python below. A saved notebook shows the
graph's SVG.

The modules import each other by relative path, which a widget's single ES module
cannot do; the loader below gives each module a ``blob:`` URL with its imports
rewritten to its dependencies' URLs (the modules have no import cycles).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import threading
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from .. import builder as wf
from ..orchestration import AgentGraph
from ..serve.models import BadRequest
from .errors import NotebookUsageError

__all__ = ["BuilderWidget", "edit_graph", "graph_cell_text", "python_cell_text"]

PAGE_DIR = Path(__file__).resolve().parents[1] / "serve" / "_static" / "builder"
_IMPORT = re.compile(r"""(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}/[^"']+)\2""")
_LOADER = """// the builder's modules, each behind a blob: URL (see selectools/notebook/builder_widget.py)
const sources = __SOURCES__;
const urls = {};
const dirOf = (path) => path.slice(0, path.lastIndexOf("/") + 1);
function resolve(from, spec) {
  const out = [];
  for (const part of (dirOf(from) + spec).split("/")) {
    if (part === "..") out.pop();
    else if (part !== ".") out.push(part);
  }
  return out.join("/");
}
function url(path) {
  if (!(path in urls)) {
    const code = sources[path].replace(__IMPORT__, (m, head, q, spec) => head + q + url(resolve(path, spec)) + q);
    urls[path] = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
  }
  return urls[path];
}
const widget = await import(url("widget.js"));
export default widget.default;
"""


def _bundle() -> str:
    """One ES module that loads ``widget.js`` and everything it imports."""
    sources = {
        p.relative_to(PAGE_DIR).as_posix(): p.read_text("utf-8")
        for p in sorted(PAGE_DIR.rglob("*"))
        if p.suffix in (".js", ".mjs")
    }
    pattern = "/" + _IMPORT.pattern.replace("/", "\\/") + "/g"
    return _LOADER.replace("__SOURCES__", json.dumps(sources)).replace("__IMPORT__", pattern)


def python_cell_text(doc: dict[str, Any], var: str) -> str:
    """The exported script, ending in ``VAR = workflow()`` instead of running it."""
    script = wf.to_python(doc)
    head, _, _ = script.partition('if __name__ == "__main__":')
    return f"{head.rstrip()}\n\n\n{var} = {doc['name']}()\n"


def graph_cell_text(doc: dict[str, Any], var: str) -> str:
    """A ``%%graph`` cell for the workflow; its node names are the variables :func:`bind_nodes` sets."""
    doc = wf.validate(doc)
    by_id = {n["id"]: n for n in doc["nodes"]}

    def name(nid: str) -> str:
        node = by_id[nid]
        return "END" if node["type"] == "end" else str(node["name"])

    lines = [f"%%graph {var}", "# nodes: the notebook variables the builder defined for them"]
    flows: dict[str, list[dict[str, Any]]] = {}
    for edge in doc["edges"]:
        if edge["from_port"] != "tool":
            flows.setdefault(edge["from"], []).append(edge)
    start = next((e for n, es in flows.items() if by_id[n]["type"] == "start" for e in es), None)
    ordered = [n for n in doc["nodes"] if n["type"] not in ("start", "end", "note", "agent_tool")]
    if start is not None:  # the first edge line's first node is the graph's entry
        ordered.sort(key=lambda n: n["id"] != start["to"])
    for node in ordered:
        edges = flows.get(node["id"], [])
        ported = node["type"] in ("loop", "hitl")
        for edge in edges:
            checks = []
            if ported:
                checks.append(f'state.data.get("{node["name"]}.port") == {edge["from_port"]!r}')
            if edge["condition"]:
                checks.append(
                    f'mentions(str(state.data.get("__last_output__", "")), {edge["condition"]!r})'
                )
            condition = f" : {' and '.join(checks)}" if checks else ""
            lines.append(f"{node['name']} -> {name(edge['to'])}{condition}")
    return "\n".join(lines) + "\n"


def bind_nodes(graph: AgentGraph, namespace: dict[str, Any]) -> None:
    """Each node's agent or function under its name, and ``mentions``, for a ``%%graph`` cell."""
    from ..builder.runtime import mentions

    namespace["mentions"] = mentions
    for node_name, node in graph.nodes.items():
        namespace[node_name] = getattr(node, "target", node)


def _merge_layout(fresh: dict[str, Any], shown: dict[str, Any]) -> dict[str, Any]:
    """``fresh`` (read from the graph) with the ids, positions and notes the canvas had."""
    old = {(n["type"], n.get("name", "")): n for n in shown.get("nodes", []) if isinstance(n, dict)}
    ids: dict[str, str] = {}
    for node in fresh["nodes"]:
        before = old.get((node["type"], node.get("name", "")))
        if before is not None:
            ids[node["id"]] = str(before["id"])
            node.update({k: before[k] for k in ("id", "x", "y") if k in before})
    for edge in fresh["edges"]:
        edge["from"], edge["to"] = (
            ids.get(edge["from"], edge["from"]),
            ids.get(edge["to"], edge["to"]),
        )
    fresh["nodes"] += [n for n in shown.get("nodes", []) if n.get("type") == "note"]
    return fresh


class BuilderWidget(anywidget.AnyWidget):
    """The builder's canvas bound to ``graph`` (edited in place); see the module docstring."""

    _esm = _bundle()
    _css = PAGE_DIR / "builder.css"

    workflow = traitlets.Dict().tag(sync=True)

    def __init__(
        self,
        graph: AgentGraph,
        *,
        var: str = "graph",
        provider: Any = None,
        shell: Any = None,
    ) -> None:
        super().__init__()
        self.shell: Any = None
        try:
            doc = wf.from_graph(graph)
        except wf.WorkflowError as exc:
            self.close()
            raise NotebookUsageError(
                f"graph {graph.name!r} cannot be edited in the builder: {exc.message}"
            ) from None
        self.workflow = doc
        self.graph = graph
        self.var = var
        self.shell = shell
        self._code = wf.to_python(doc)
        self._runs: Any = None
        self._provider = provider
        self._tasks: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Task[Any]]] = {}
        self.on_msg(self._on_message)
        self.observe(self._canvas_changed, names="workflow")
        if shell is not None:
            shell.events.register("post_run_cell", self._after_cell)

    # -- the two directions ------------------------------------------------------------
    def _canvas_changed(self, change: dict[str, Any]) -> None:
        filled, problems = wf.check(change["new"])
        if any(p.fatal for p in problems):
            return  # half-drawn: the graph keeps its last good shape
        try:
            code = wf.to_python(filled)
            fresh = wf.to_graph(filled, provider=self._provider)
        except (wf.WorkflowError, ValueError):
            return
        if code == self._code:
            return
        self._code = code
        graph = self.graph
        graph.name, graph.nodes, graph.edges = fresh.name, fresh.nodes, fresh.edges
        graph.conditional, graph.entry = fresh.conditional, fresh.entry

    def refresh(self) -> None:
        """Redraw the canvas from the graph if Python changed it (runs after every cell)."""
        try:
            fresh = wf.from_graph(self.graph)
            code = wf.to_python(fresh)
        except wf.WorkflowError:
            return  # a node the canvas cannot show: keep the last drawing
        if code != self._code:
            self._code = code
            self.workflow = _merge_layout(fresh, self.workflow)

    def _after_cell(self, *_: Any) -> None:
        self.refresh()

    def close(self) -> None:
        if self.shell is not None:
            with contextlib.suppress(ValueError):  # already unregistered
                self.shell.events.unregister("post_run_cell", self._after_cell)
        super().close()

    # -- the static render: the graph's SVG -------------------------------------------------
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        from .._view.graph_view import graph_svg

        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        if isinstance(data, dict):
            data["image/svg+xml"] = graph_svg(self.graph)
            data["text/plain"] = f"builder for {self.graph!r}"
        return bundle

    # -- calls from the canvas ----------------------------------------------------------------
    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        kind = content.get("kind")
        if kind == "insert_cell":
            self.insert_cell(str(content.get("format", "python")))
        elif kind == "cancel":
            loop_task = self._tasks.pop(str(content.get("id")), None)
            if loop_task is not None:
                loop_task[0].call_soon_threadsafe(loop_task[1].cancel)
        elif kind == "call":
            self._call(str(content.get("id")), str(content.get("method")), content.get("args"))

    def insert_cell(self, form: str) -> str:
        """Put the workflow below as a ``%%graph`` cell (``form="graph"``) or Python; returns it."""
        doc = self.workflow
        if form == "graph":
            bind_nodes(self.graph, self.shell.user_ns if self.shell is not None else {})
            text = graph_cell_text(doc, self.var)
        else:
            text = python_cell_text(doc, self.var)
        if self.shell is not None:  # JupyterLab adds it below the next cell run (an execute reply)
            self.shell.set_next_input(text, replace=False)
        self.send({"kind": "inserted", "format": form, "text": text})  # the canvas may copy it
        return text

    def _reply(self, call_id: str, result: Any = None, error: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"kind": "reply", "id": call_id}
        if error is not None:
            message["error"] = error
        else:
            message["result"] = result
        self.send(message)

    def _call(self, call_id: str, method: str, args: Any) -> None:
        args = list(args) if isinstance(args, list) else []
        try:
            if method == "run":
                self._start_run(call_id, args[0] if args else {})
                return
            self._reply(call_id, self._answer(method, args))
        except wf.WorkflowError as exc:
            self._reply(
                call_id, error={"message": exc.message, "code": "import_error", "line": exc.line}
            )
        except BadRequest as exc:
            self._reply(call_id, error={"message": str(exc), "code": exc.code})
        except (KeyError, ValueError, TypeError, IndexError) as exc:
            self._reply(call_id, error={"message": str(exc), "code": "bad_call"})

    def _answer(self, method: str, args: list[Any]) -> Any:
        if method == "code":
            return wf.code_view(args[0])
        if method == "importText":
            return wf.import_text(str(args[0]), str(args[1]) if len(args) > 1 else "auto")
        if method == "templates":
            return wf.templates()
        if method == "template":
            return wf.template(str(args[0]))
        if method == "example":
            return wf.example()
        if method == "trace":
            return {"steps": wf.trace_steps(args[0])}
        if method == "resume":
            request = args[0] if args and isinstance(args[0], dict) else {}
            self._run_engine().resume(
                request.get("run_id"), request.get("node"), request.get("option")
            )
            return {"ok": True}
        if method == "generate":
            return {"fallback": True}  # the canvas matches keywords itself
        if method in ("copilot", "watch"):
            raise BadRequest(
                f"{method} needs the builder server: run `selectools serve --builder`",
                code="no_server",
            )
        raise BadRequest(f"the kernel has no builder method {method!r}", code="bad_call")

    def _run_engine(self) -> Any:
        if self._runs is None:
            from ..serve._builder_runs import BuilderRuns

            self._runs = BuilderRuns(self._provider, force_provider=False)
        return self._runs

    def _start_run(self, call_id: str, request: Any) -> None:
        """Run on a thread with its own event loop, sending each event as it comes."""
        engine = self._run_engine()
        prepared = engine.prepare(request)

        async def stream() -> None:
            async for event in engine.events(prepared):
                self.send({"kind": "event", "id": call_id, "event": event})

        def work() -> None:
            loop = asyncio.new_event_loop()
            task = loop.create_task(stream())
            self._tasks[call_id] = (loop, task)
            try:
                loop.run_until_complete(task)
            except asyncio.CancelledError:
                pass
            finally:
                self._tasks.pop(call_id, None)
                loop.close()
                self._reply(call_id, None)

        threading.Thread(target=work, name=f"builder-run-{call_id}", daemon=True).start()


def edit_graph(graph: AgentGraph, var: str = "graph", provider: Any = None) -> BuilderWidget:
    """The builder widget for ``graph`` in the running notebook (``AgentGraph.edit``)."""
    from ._kernel import current_shell

    return BuilderWidget(graph, var=var, provider=provider, shell=current_shell())
