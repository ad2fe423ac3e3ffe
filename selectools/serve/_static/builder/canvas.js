// The builder canvas. `mountBuilder(root, backend, options)` draws the whole editor into `root`
// (header, palette, canvas, properties, run panel, code panel) and drives it through `backend`
// (see backend.js, serverless.js, widget.js): the page, serverless mode and the notebook widget
// all mount this same function. Nodes are positioned HTML boxes, edges an SVG layer under them;
// port positions come from the document alone (fixed row height), so edges never measure the DOM.

import { connect, connectProblem, emptyDocument, nodeById, NODE_TYPES, normalizeDocument, pasteNode, removeEdge, removeNode, typeLabel, UndoStack, addNode } from "./document.js";
import { debounce, h, svg } from "./dom.js";
import { installKeys } from "./keys.js";
import { renderMarkdown } from "./markdown.js";
import { installMenus } from "./menus.js";
import { renderProperties, startCodePanel } from "./panels.js";
import { portsCompatible, portsOf } from "./ports.js";
import { installRunPanel } from "./run.js";

export const NODE_WIDTH = 180;
const PORT_TOP = 44;
const PORT_STEP = 22;
const ZOOM_MIN = 0.2;
const ZOOM_MAX = 3;

export function nodeSize(node) {
  const size = (v, d) => (Number.isFinite(v) && v > 0 ? Math.min(v, 4000) : d);
  if (node.type === "note") return { w: size(node.width, 220), h: node.collapsed ? 30 : size(node.height, 120) };
  const ports = portsOf(node);
  const rows = Math.max(1, ports.inputs.length, ports.outputs.length);
  return { w: NODE_WIDTH, h: PORT_TOP + rows * PORT_STEP + 10 };
}

/** Canvas (world) coordinates of a port's centre. */
export function portPoint(node, side, name) {
  const ports = portsOf(node)[side === "in" ? "inputs" : "outputs"];
  const i = Math.max(0, ports.findIndex((p) => p.name === name));
  return { x: node.x + (side === "in" ? 0 : NODE_WIDTH), y: node.y + PORT_TOP + i * PORT_STEP };
}

export function bezier(a, b) {
  const dx = Math.max(40, Math.abs(b.x - a.x) / 2);
  return `M${a.x},${a.y} C${a.x + dx},${a.y} ${b.x - dx},${b.y} ${b.x},${b.y}`;
}

const LAYOUT = `
<header class="sb-header">
  <strong class="sb-brand">selectools builder</strong>
  <div class="sb-menu"><button type="button" class="sb-menu-button" data-menu="file">File ▾</button>
    <div class="sb-menu-items" data-items="file" hidden>
      <button type="button" data-action="new">New (Clear)</button>
      <button type="button" data-action="example">Load Example</button>
      <button type="button" data-action="templates">Templates…</button>
      <button type="button" data-action="import">Import YAML / Python…</button>
      <button type="button" data-action="watch">Watch File…</button>
    </div></div>
  <button type="button" class="sb-menu-button" data-action="ai">✨ AI</button>
  <div class="sb-menu"><button type="button" class="sb-menu-button" data-menu="export">Export ▾</button>
    <div class="sb-menu-items" data-items="export" hidden>
      <button type="button" data-action="export-python">Python</button>
      <button type="button" data-action="export-yaml">YAML</button>
      <button type="button" data-action="embed">Embed Widget</button>
      <button type="button" data-action="trace">Load Trace</button>
    </div></div>
  <button type="button" class="sb-menu-button" data-action="run-panel">▶ Run</button>
  <button type="button" class="sb-menu-button" data-action="help" title="Help and shortcuts">?</button>
  <span class="sb-status"></span>
</header>
<div class="sb-banner" hidden></div>
<div class="sb-crumb" hidden></div>
<div class="sb-main">
  <aside class="sb-left"><h3>Add nodes</h3><div class="sb-palette"></div>
    <h3>Tips</h3>
    <p class="sb-tip">Drag a node type onto the canvas, or click it.</p>
    <p class="sb-tip">Click an output port (right), then an input port (left) to connect. Greyed ports do not fit.</p>
    <p class="sb-tip">Click an edge to give it a condition; hover it to see the last output.</p>
    <p class="sb-tip">Right-click a node to re-run, pin or freeze it. Press ? for shortcuts.</p>
  </aside>
  <div class="sb-canvas" tabindex="0">
    <div class="sb-viewport"><svg class="sb-edges"></svg><div class="sb-nodes"></div></div>
    <div class="sb-zoom"><button type="button" data-zoom="in" title="Zoom in (+)">+</button><button type="button" data-zoom="out" title="Zoom out (-)">−</button><button type="button" data-zoom="fit" title="Zoom to fit (Ctrl+0)">⟳</button><span class="sb-zoom-level">100%</span></div>
    <div class="sb-tooltip" hidden></div>
  </div>
  <aside class="sb-right"><h3>Properties</h3><div class="sb-props"></div></aside>
</div>
<section class="sb-run" hidden></section>
<section class="sb-code sb-collapsed">
  <div class="sb-code-bar"><button type="button" data-action="toggle-code" class="sb-code-toggle">▲ Code</button>
    <span class="sb-tabs"><button type="button" data-code-tab="python" class="sb-active">Python</button><button type="button" data-code-tab="yaml">YAML</button></span>
    <button type="button" data-action="copy-code">Copy</button><button type="button" data-action="download-code">Download</button>
    <span class="sb-code-errors"></span></div>
  <pre class="sb-code-text"></pre>
</section>
<div class="sb-toasts" aria-live="polite"></div>`;

/**
 * Mount the builder into `root`, driven by `backend`. Options: `document` (initial workflow),
 * `onChange(doc)` (after each edit), `globalKeys` (listen for shortcuts on the whole page),
 * `onInsertCell(kind)` (the notebook widget's "insert cell" button). Returns the controller
 * `{getDocument, setDocument, fit, destroy, app}`.
 */
export function mountBuilder(root, backend, options = {}) {
  root.classList.add("sb-app");
  root.replaceChildren();
  const holder = h("div");
  holder.innerHTML = LAYOUT; // static markup of this module only; no user text
  root.append(...holder.childNodes);
  const $ = (sel) => root.querySelector(sel);
  const app = {
    root,
    backend,
    options,
    doc: normalizeDocument(options.document || emptyDocument()),
    undo: new UndoStack(),
    selection: null, // {kind: "node"|"edge", id}
    view: { x: 40, y: 20, k: 1 },
    connecting: null, // {node, port, type}
    clipboard: null,
    highlight: null, // node id the scrubber points at
    last: { nodes: new Map(), edges: new Map(), runId: null, prompt: "" },
    serverless: backend.kind === "serverless",
    listeners: [],
    stack: [], // subgraphs being edited: [{parent, graph, undo, before}], innermost last
    els: {
      canvas: $(".sb-canvas"), viewport: $(".sb-viewport"), edges: $(".sb-edges"), nodes: $(".sb-nodes"),
      props: $(".sb-props"), tooltip: $(".sb-tooltip"), toasts: $(".sb-toasts"), status: $(".sb-status"),
      banner: $(".sb-banner"), run: $(".sb-run"), code: $(".sb-code"), zoom: $(".sb-zoom-level"), palette: $(".sb-palette"),
    },
  };

  app.toast = (message, kind = "info") => {
    const el = h("div", { class: `sb-toast sb-${kind}`, role: kind === "error" ? "alert" : "status" }, message);
    app.els.toasts.append(el);
    setTimeout(() => el.remove(), kind === "error" ? 8000 : 4000);
  };
  app.render = () => renderCanvas(app);
  /** The whole document (the canvas may show one of its subgraphs). */
  app.rootDoc = () => {
    if (app.stack.length) app.stack[app.stack.length - 1].parent.subgraphs[app.stack[app.stack.length - 1].graph] = app.doc;
    return JSON.parse(JSON.stringify(app.stack.length ? app.stack[0].parent : app.doc));
  };
  app.notify = () => {
    app.codeChanged();
    options.onChange?.(app.rootDoc());
  };
  /** Edit the graph a Subgraph node runs (created empty when the document has none by that name). */
  app.openSubgraph = (id) => {
    const node = nodeById(app.doc, id);
    const graph = node && String(node.graph || "").trim();
    if (!graph) return app.toast("Give the node a graph name first", "error");
    const before = JSON.stringify(app.doc);
    if (!app.doc.subgraphs[graph]) app.doc.subgraphs[graph] = emptyDocument(graph);
    app.stack.push({ parent: app.doc, graph, undo: app.undo, before });
    app.doc = normalizeDocument(app.doc.subgraphs[graph]);
    app.doc.name = graph;
    app.undo = new UndoStack();
    app.selection = null;
    showCrumb(app);
    app.render();
    renderProperties(app);
    app.fit();
    app.notify();
  };
  app.closeSubgraph = () => {
    const frame = app.stack.pop();
    if (!frame) return;
    frame.parent.subgraphs[frame.graph] = app.doc;
    app.doc = frame.parent;
    app.undo = frame.undo;
    app.undo.record(JSON.parse(frame.before)); // one undo step for the whole subgraph edit
    app.selection = null;
    showCrumb(app);
    app.render();
    renderProperties(app);
    app.fit();
    app.notify();
  };
  /** Apply `mutate(doc)` as one undoable edit; a thrown error is shown and nothing changes. */
  app.change = (mutate, { props = true } = {}) => {
    const before = JSON.parse(JSON.stringify(app.doc));
    try {
      mutate(app.doc);
    } catch (exc) {
      app.doc = before;
      app.toast(exc.message, "error");
      return false;
    }
    app.undo.record(before);
    app.render();
    if (props) renderProperties(app);
    app.notify();
    return true;
  };
  app.setDocument = (doc, { record = true, fit = true, silent = false } = {}) => {
    const next = normalizeDocument(doc);
    while (app.stack.length) app.closeSubgraph(); // a new document replaces the whole one
    if (record) app.undo.record(app.doc);
    app.doc = next;
    app.selection = null;
    app.render();
    renderProperties(app);
    if (fit) app.fit();
    if (!silent) app.notify();
    else app.codeChanged();
  };
  app.select = (selection) => {
    app.selection = selection;
    app.connecting = null;
    app.render();
    renderProperties(app);
  };
  app.applyView = () => {
    const { x, y, k } = app.view;
    app.els.viewport.style.transform = `translate(${x}px, ${y}px) scale(${k})`;
    app.els.zoom.textContent = `${Math.round(k * 100)}%`;
    app.els.canvas.dataset.zoom = k.toFixed(3);
  };
  app.zoomAt = (factor, sx, sy) => {
    const rect = app.els.canvas.getBoundingClientRect();
    const px = sx ?? rect.width / 2;
    const py = sy ?? rect.height / 2;
    const k = Math.min(ZOOM_MAX, Math.max(ZOOM_MIN, app.view.k * factor));
    app.view.x = px - ((px - app.view.x) * k) / app.view.k;
    app.view.y = py - ((py - app.view.y) * k) / app.view.k;
    app.view.k = k;
    app.applyView();
  };
  app.fit = () => {
    const rect = app.els.canvas.getBoundingClientRect();
    if (!app.doc.nodes.length || !rect.width) return;
    const boxes = app.doc.nodes.map((n) => ({ n, ...nodeSize(n) }));
    const x0 = Math.min(...boxes.map((b) => b.n.x));
    const y0 = Math.min(...boxes.map((b) => b.n.y));
    const x1 = Math.max(...boxes.map((b) => b.n.x + b.w));
    const y1 = Math.max(...boxes.map((b) => b.n.y + b.h));
    const k = Math.min(1.25, Math.max(ZOOM_MIN, Math.min((rect.width - 60) / (x1 - x0), (rect.height - 60) / (y1 - y0))));
    app.view = { k, x: (rect.width - (x1 - x0) * k) / 2 - x0 * k, y: (rect.height - (y1 - y0) * k) / 2 - y0 * k };
    app.applyView();
  };
  app.centerOn = (node) => {
    const rect = app.els.canvas.getBoundingClientRect();
    const size = nodeSize(node);
    app.view.x = rect.width / 2 - (node.x + size.w / 2) * app.view.k;
    app.view.y = rect.height / 2 - (node.y + size.h / 2) * app.view.k;
    app.applyView();
  };
  app.toWorld = (clientX, clientY) => {
    const rect = app.els.canvas.getBoundingClientRect();
    return { x: (clientX - rect.left - app.view.x) / app.view.k, y: (clientY - rect.top - app.view.y) / app.view.k };
  };
  app.addNodeAt = (type, x, y) => {
    let added = null;
    app.change((doc) => (added = addNode(doc, type, x, y)));
    if (added) app.select({ kind: "node", id: added.id });
    return added;
  };
  app.deleteSelection = () => {
    const sel = app.selection;
    if (!sel) return;
    app.selection = null;
    app.change((doc) => (sel.kind === "node" ? removeNode(doc, sel.id) : removeEdge(doc, sel.id)));
  };
  app.copy = () => {
    const node = app.selection?.kind === "node" && nodeById(app.doc, app.selection.id);
    if (node && node.type !== "start" && node.type !== "end") app.clipboard = JSON.parse(JSON.stringify(node));
    else if (node) app.toast("START and END are unique: they cannot be copied", "error");
  };
  app.paste = () => {
    if (!app.clipboard) return;
    let added = null;
    app.change((doc) => (added = pasteNode(doc, app.clipboard)));
    if (added) {
      app.clipboard = { ...app.clipboard, x: added.x, y: added.y };
      app.select({ kind: "node", id: added.id });
    }
  };
  app.undoEdit = () => restore(app, app.undo.undo(app.doc));
  app.redoEdit = () => restore(app, app.undo.redo(app.doc));
  app.escape = () => {
    const open = root.querySelector(".sb-overlay:last-of-type, .sb-context");
    if (open) open.remove();
    else if (app.connecting) {
      app.connecting = null;
      app.render();
    } else if (app.selection) app.select(null);
    root.querySelectorAll(".sb-menu-items").forEach((m) => (m.hidden = true));
  };

  buildPalette(app);
  installCanvasEvents(app);
  app.codeChanged = startCodePanel(app);
  installMenus(app);
  installRunPanel(app);
  installKeys(app, options.globalKeys ? root.ownerDocument : root);
  app.applyView();
  app.render();
  renderProperties(app);
  app.codeChanged();
  requestAnimationFrame(() => app.fit());
  backend
    .health()
    .then((info) => {
      app.info = info;
      app.serverless = !info.backend;
      root.dataset.mode = app.serverless ? "serverless" : "server";
      app.els.status.textContent = app.serverless ? "serverless mode" : `server ${info.version || ""}`.trim();
      if (app.serverless) {
        app.els.banner.hidden = false;
        app.els.banner.textContent =
          "Serverless mode: runs are mocked in the browser and AI generation uses keyword matching. Python export and import, templates, real runs, the AI copilot, Watch File and Load Trace need the builder server: run `selectools serve --builder`.";
      }
    })
    .catch((exc) => app.toast(`backend: ${exc.message}`, "error"));

  return {
    app,
    getDocument: () => app.rootDoc(),
    setDocument: (doc, opts) => app.setDocument(doc, opts),
    fit: () => app.fit(),
    destroy: () => {
      app.listeners.forEach(([target, type, fn]) => target.removeEventListener(type, fn));
      root.replaceChildren();
    },
  };
}

function showCrumb(app) {
  const crumb = app.root.querySelector(".sb-crumb");
  const frame = app.stack[app.stack.length - 1];
  crumb.hidden = !frame;
  crumb.replaceChildren();
  if (frame) {
    crumb.append(
      h("button", { type: "button", "data-action": "close-subgraph", onclick: () => app.closeSubgraph() }, `← Back to ${frame.parent.name}`),
      ` Editing subgraph “${frame.graph}”: its START receives the Subgraph node's input; what reaches its END is the node's output.`,
    );
  }
}

function restore(app, doc) {
  if (!doc) return;
  app.doc = doc;
  if (app.selection && !(app.selection.kind === "node" ? nodeById(doc, app.selection.id) : doc.edges.some((e) => e.id === app.selection.id))) {
    app.selection = null;
  }
  app.render();
  renderProperties(app);
  app.notify();
}

function buildPalette(app) {
  for (const meta of NODE_TYPES) {
    const button = h("button", { type: "button", class: `sb-palette-item sb-t-${meta.type}`, draggable: "true", dataset: { add: meta.type } }, meta.label);
    button.addEventListener("dragstart", (ev) => ev.dataTransfer.setData("application/x-selectools-node", meta.type));
    button.addEventListener("click", () => {
      const rect = app.els.canvas.getBoundingClientRect();
      const centre = app.toWorld(rect.left + rect.width / 2, rect.top + rect.height / 2);
      const spot = freeSpot(app.doc, centre.x - NODE_WIDTH / 2, centre.y - 60, meta.type);
      app.addNodeAt(meta.type, spot.x, spot.y);
    });
    app.els.palette.append(button);
  }
}

/** The first place near (x, y), scanning a grid, where a new node overlaps no other. */
function freeSpot(doc, x, y, type) {
  const size = nodeSize({ type, options: ["a", "b"], width: 220, height: 120 });
  const clear = (cx, cy) =>
    doc.nodes.every((n) => {
      const s = nodeSize(n);
      return cx + size.w + 20 <= n.x || n.x + s.w + 20 <= cx || cy + size.h + 20 <= n.y || n.y + s.h + 20 <= cy;
    });
  for (let ring = 0; ring < 8; ring += 1) {
    for (const [i, j] of [[0, 0], [0, 1], [1, 0], [1, 1], [0, -1], [-1, 0], [1, -1], [-1, 1], [-1, -1]]) {
      const cx = x + i * ring * 210;
      const cy = y + j * ring * 140;
      if (clear(cx, cy)) return { x: cx, y: cy };
    }
  }
  return { x: x + 20, y: y + 20 };
}

function lastOutputOfEdge(app, edge) {
  return app.last.edges.get(edge.id) ?? app.last.nodes.get(edge.from)?.output ?? null;
}

function renderCanvas(app) {
  const { doc, els, connecting, selection } = app;
  els.nodes.replaceChildren();
  els.edges.replaceChildren();
  els.tooltip.hidden = true; // its edge is redrawn: a stale preview would linger
  for (const node of doc.nodes) els.nodes.append(renderNode(app, node, connecting));
  const byId = new Map(doc.nodes.map((n) => [n.id, n]));
  for (const edge of doc.edges) {
    const a = byId.get(edge.from);
    const b = byId.get(edge.to);
    if (!a || !b) continue;
    const d = bezier(portPoint(a, "out", edge.from_port), portPoint(b, "in", edge.to_port));
    const selected = selection?.kind === "edge" && selection.id === edge.id;
    const type = portsOf(a).outputs.find((p) => p.name === edge.from_port)?.type || "text";
    els.edges.append(svg("path", { d, class: `sb-edge sb-p-${type}${selected ? " sb-selected" : ""}`, "data-id": edge.id }));
    els.edges.append(svg("path", { d, class: "sb-edge-hit", "data-id": edge.id }));
    if (edge.condition) {
      const p = portPoint(a, "out", edge.from_port);
      const q = portPoint(b, "in", edge.to_port);
      const label = svg("text", { x: (p.x + q.x) / 2, y: (p.y + q.y) / 2 - 6, class: "sb-edge-label", "data-id": edge.id, "text-anchor": "middle" });
      label.textContent = edge.condition;
      els.edges.append(label);
    }
  }
  if (connecting?.to) {
    const from = byId.get(connecting.node);
    if (from) els.edges.append(svg("path", { d: bezier(portPoint(from, "out", connecting.port), connecting.to), class: "sb-edge sb-edge-draft" }));
  }
  els.canvas.classList.toggle("sb-connecting", Boolean(connecting));
}

function renderNode(app, node, connecting) {
  const size = nodeSize(node);
  const classes = ["sb-node", `sb-t-${node.type}`];
  if (app.selection?.kind === "node" && app.selection.id === node.id) classes.push("sb-selected");
  if (app.highlight === node.id) classes.push("sb-highlight");
  if (node.frozen) classes.push("sb-frozen");
  if (node.type === "note" && node.color) classes.push(`sb-note-${node.color}`);
  if (node.collapsed) classes.push("sb-collapsed");
  const el = h("div", { class: classes.join(" "), dataset: { id: node.id, type: node.type }, style: `left:${node.x}px;top:${node.y}px;width:${size.w}px;height:${size.h}px` });
  const title = node.type === "start" || node.type === "end" ? typeLabel(node.type) : node.name || typeLabel(node.type);
  const badges = [node.pinned_output !== undefined && node.pinned_output !== null ? "📌" : "", node.frozen ? "❄" : ""].join("");
  const header = h("div", { class: "sb-node-head" }, h("span", { class: "sb-node-type" }, typeLabel(node.type)), h("span", { class: "sb-node-name" }, node.type === "note" ? "" : title), badges ? h("span", { class: "sb-badges" }, badges) : null);
  el.append(header);
  if (node.type === "note") {
    header.append(h("button", { type: "button", class: "sb-note-toggle", title: node.collapsed ? "Expand" : "Collapse" }, node.collapsed ? "▸" : "▾"));
    if (!node.collapsed) {
      const body = h("div", { class: "sb-note-body" });
      body.append(renderMarkdown(node.text));
      el.append(body, h("div", { class: "sb-resize", title: "Resize" }));
    }
    return el;
  }
  const ports = portsOf(node);
  ports.inputs.forEach((port, i) => el.append(portEl(app, node, "in", port, i, connecting)));
  ports.outputs.forEach((port, i) => el.append(portEl(app, node, "out", port, i, connecting)));
  const summary = nodeSummary(node);
  if (summary) el.append(h("div", { class: "sb-node-summary" }, summary));
  return el;
}

function portEl(app, node, side, port, i, connecting) {
  const classes = ["sb-port", side === "in" ? "in" : "out", `sb-p-${port.type}`];
  if (connecting && side === "in") {
    const ok = portsCompatible(connecting.type, port.type) && !connectProblem(app.doc, connecting.node, connecting.port, node.id, port.name);
    classes.push(ok ? "sb-compatible" : "sb-incompatible");
  }
  if (connecting && side === "out" && connecting.node === node.id && connecting.port === port.name) classes.push("sb-active");
  return h(
    "div",
    { class: `sb-port-row sb-${side}`, style: `top:${PORT_TOP + i * PORT_STEP - 9}px` },
    h("span", { class: classes.join(" "), dataset: { port: port.name, portType: port.type, node: node.id }, title: `${port.name} (${port.type})` }),
    h("span", { class: "sb-port-label" }, port.name),
  );
}

function nodeSummary(node) {
  switch (node.type) {
    case "start": return "user message";
    case "end": return "final answer";
    case "agent": case "agent_tool": return [node.provider || "default", node.model].filter(Boolean).join(" · ") + ((node.tools || []).length ? ` · ${node.tools.length} tool(s)` : "");
    case "loop": return `≤ ${node.max_iterations} passes · until "${node.exit_condition}"`;
    case "subgraph": return node.graph ? `runs ${node.graph}` : "choose a graph";
    case "hitl": return node.timeout_s ? `timeout ${node.timeout_s}s → ${node.default_option || "first"}` : "waits for a person";
    default: return "";
  }
}

function installCanvasEvents(app) {
  const { canvas } = app.els;
  let drag = null; // {kind: "node"|"pan"|"resize", ...}
  let spaceDown = false;
  const listen = (target, type, fn, opts) => {
    target.addEventListener(type, fn, opts);
    app.listeners.push([target, type, fn]);
  };
  const win = app.root.ownerDocument.defaultView;
  listen(win, "keydown", (ev) => {
    if (ev.code === "Space" && !/INPUT|TEXTAREA|SELECT/.test(ev.target.tagName || "")) spaceDown = true;
  });
  listen(win, "keyup", (ev) => {
    if (ev.code === "Space") spaceDown = false;
  });

  canvas.addEventListener("mousedown", (ev) => {
    canvas.focus({ preventScroll: true });
    const target = ev.target;
    if (ev.button === 1 || (ev.button === 0 && spaceDown)) {
      ev.preventDefault();
      drag = { kind: "pan", sx: ev.clientX, sy: ev.clientY, vx: app.view.x, vy: app.view.y };
      return;
    }
    if (ev.button !== 0) return;
    const nodeEl = target.closest(".sb-node");
    if (target.closest(".sb-port") || target.closest(".sb-note-toggle") || target.closest(".sb-zoom")) return;
    if (nodeEl) {
      const node = nodeById(app.doc, nodeEl.dataset.id);
      const before = JSON.parse(JSON.stringify(app.doc));
      if (target.classList.contains("sb-resize")) drag = { kind: "resize", node, before, sx: ev.clientX, sy: ev.clientY, w: node.width, h: node.height };
      else drag = { kind: "node", node, before, sx: ev.clientX, sy: ev.clientY, x: node.x, y: node.y, moved: false };
      return;
    }
    if (target.closest(".sb-edge-hit") || target.closest(".sb-edge-label")) return;
    drag = { kind: "pan", sx: ev.clientX, sy: ev.clientY, vx: app.view.x, vy: app.view.y, click: true };
  });
  listen(win, "mousemove", (ev) => {
    if (app.connecting) {
      app.connecting.to = app.toWorld(ev.clientX, ev.clientY);
      const draft = app.els.edges.querySelector(".sb-edge-draft");
      const from = nodeById(app.doc, app.connecting.node);
      if (draft && from) draft.setAttribute("d", bezier(portPoint(from, "out", app.connecting.port), app.connecting.to));
      else if (from) app.render();
    }
    if (!drag) return;
    const dx = ev.clientX - drag.sx;
    const dy = ev.clientY - drag.sy;
    if (drag.kind === "pan") {
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.click = false;
      app.view.x = drag.vx + dx;
      app.view.y = drag.vy + dy;
      app.applyView();
    } else if (drag.kind === "node") {
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (!drag.moved) return;
      drag.node.x = Math.round(drag.x + dx / app.view.k);
      drag.node.y = Math.round(drag.y + dy / app.view.k);
      app.render();
    } else if (drag.kind === "resize") {
      drag.node.width = Math.max(120, Math.round(drag.w + dx / app.view.k));
      drag.node.height = Math.max(60, Math.round(drag.h + dy / app.view.k));
      drag.moved = true;
      app.render();
    }
  });
  listen(win, "mouseup", () => {
    if (!drag) return;
    const done = drag;
    drag = null;
    if ((done.kind === "node" || done.kind === "resize") && done.moved) {
      app.undo.record(done.before);
      app.notify();
    } else if (done.kind === "node") app.select({ kind: "node", id: done.node.id });
    else if (done.kind === "pan" && done.click) {
      if (app.connecting) {
        app.connecting = null;
        app.render();
      } else if (app.selection) app.select(null);
    }
  });

  canvas.addEventListener("click", (ev) => {
    const port = ev.target.closest(".sb-port");
    if (port) {
      ev.stopPropagation();
      const { node, port: name, portType } = port.dataset;
      if (port.classList.contains("out")) {
        app.connecting = { node, port: name, type: portType };
        app.selection = null;
        app.render();
      } else if (app.connecting) {
        const from = app.connecting;
        const problem = connectProblem(app.doc, from.node, from.port, node, name);
        if (problem) {
          app.toast(`Refused: ${problem}`, "error");
          return;
        }
        app.connecting = null;
        let edge = null;
        app.change((doc) => (edge = connect(doc, from.node, from.port, node, name)));
        if (edge) app.select({ kind: "edge", id: edge.id });
      }
      return;
    }
    const toggle = ev.target.closest(".sb-note-toggle");
    if (toggle) {
      const id = toggle.closest(".sb-node").dataset.id;
      app.change((doc) => {
        const note = nodeById(doc, id);
        note.collapsed = !note.collapsed;
      });
      return;
    }
    const edgeEl = ev.target.closest(".sb-edge-hit, .sb-edge-label");
    if (edgeEl) {
      app.select({ kind: "edge", id: edgeEl.dataset.id });
      const input = app.els.props.querySelector("[data-field=condition]");
      input?.focus();
    }
  });
  canvas.addEventListener("dblclick", (ev) => {
    const nodeEl = ev.target.closest(".sb-node");
    if (!nodeEl) return;
    app.select({ kind: "node", id: nodeEl.dataset.id });
    app.els.props.querySelector("textarea, input")?.focus();
  });
  canvas.addEventListener("mouseover", (ev) => {
    const hit = ev.target.closest(".sb-edge-hit");
    if (!hit) return;
    const edge = app.doc.edges.find((e) => e.id === hit.dataset.id);
    const output = edge && lastOutputOfEdge(app, edge);
    const tip = app.els.tooltip;
    tip.textContent = output === null || output === undefined ? "No output yet: run the workflow to see what flows here." : `Last output: ${output.length > 400 ? `${output.slice(0, 397)}...` : output}`;
    const rect = canvas.getBoundingClientRect();
    tip.style.left = `${ev.clientX - rect.left + 12}px`;
    tip.style.top = `${ev.clientY - rect.top + 12}px`;
    tip.hidden = false;
    tip.dataset.edge = hit.dataset.id;
  });
  canvas.addEventListener("mouseout", (ev) => {
    if (ev.target.closest(".sb-edge-hit")) app.els.tooltip.hidden = true;
  });
  canvas.addEventListener(
    "wheel",
    (ev) => {
      ev.preventDefault();
      const rect = canvas.getBoundingClientRect();
      app.zoomAt(Math.exp(-ev.deltaY * 0.0015), ev.clientX - rect.left, ev.clientY - rect.top);
    },
    { passive: false },
  );
  canvas.addEventListener("dragover", (ev) => {
    if (ev.dataTransfer.types.includes("application/x-selectools-node")) ev.preventDefault();
  });
  canvas.addEventListener("drop", (ev) => {
    const type = ev.dataTransfer.getData("application/x-selectools-node");
    if (!type) return;
    ev.preventDefault();
    const at = app.toWorld(ev.clientX, ev.clientY);
    app.addNodeAt(type, at.x - NODE_WIDTH / 2, at.y - 20);
  });
  app.root.querySelector(".sb-zoom").addEventListener("click", (ev) => {
    const which = ev.target.closest("[data-zoom]")?.dataset.zoom;
    if (which === "in") app.zoomAt(1.2);
    else if (which === "out") app.zoomAt(1 / 1.2);
    else if (which === "fit") app.fit();
  });
  canvas.addEventListener("contextmenu", (ev) => {
    const nodeEl = ev.target.closest(".sb-node");
    if (!nodeEl) return;
    ev.preventDefault();
    app.select({ kind: "node", id: nodeEl.dataset.id });
    app.openNodeMenu(nodeEl.dataset.id, ev.clientX, ev.clientY);
  });
  listen(win, "resize", debounce(() => app.applyView(), 100));
}
