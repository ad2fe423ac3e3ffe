// The workflow document the canvas edits (the builder contract's JSON shape), and the
// plain operations on it: new nodes with unique ids and names, connecting ports under the
// typed-port rule, undo/redo snapshots, and the base64url form the embed URL carries.

import { findPort, portsCompatible } from "./ports.js";

export const NODE_TYPES = [
  { type: "start", label: "START", unique: true },
  { type: "agent", label: "Agent" },
  { type: "loop", label: "Loop" },
  { type: "subgraph", label: "Subgraph" },
  { type: "hitl", label: "Human Input" },
  { type: "agent_tool", label: "Agent Tool" },
  { type: "note", label: "Note" },
  { type: "end", label: "END", unique: true },
];
export const PROVIDERS = ["", "openai", "anthropic", "gemini", "ollama", "local"];
export const NOTE_COLORS = ["amber", "green", "cyan", "purple", "red", "grey"];
export const LIMITS = { nodes: 200, edges: 400, name: 80, text: 20000 };

const DEFAULTS = {
  agent: { provider: "", model: "", system_prompt: "", tools: [] },
  loop: { max_iterations: 3, exit_condition: "approved" },
  subgraph: { graph: "" },
  hitl: { prompt: "Continue?", options: ["approve", "reject"], timeout_s: 300, default_option: "approve" },
  agent_tool: { description: "", provider: "", model: "", system_prompt: "", tools: [] },
  note: { text: "**Note** — double-click to edit in the properties panel.", color: "amber", width: 220, height: 120, collapsed: false },
};
const NAMED = new Set(["agent", "loop", "subgraph", "hitl", "agent_tool"]);

export function typeLabel(type) {
  return (NODE_TYPES.find((t) => t.type === type) || { label: type }).label;
}

export function isNamed(type) {
  return NAMED.has(type);
}

export function emptyDocument(name = "workflow") {
  return {
    version: 1,
    name,
    nodes: [
      { id: "start", type: "start", x: 60, y: 200 },
      { id: "end", type: "end", x: 700, y: 200 },
    ],
    edges: [],
    subgraphs: {},
  };
}

export function cloneDoc(doc) {
  return JSON.parse(JSON.stringify(doc));
}

/** A document with every field the canvas reads present (imports and old saves may omit some). */
export function normalizeDocument(input) {
  if (!input || typeof input !== "object" || !Array.isArray(input.nodes)) {
    throw new Error("a workflow needs a list of nodes");
  }
  const doc = cloneDoc(input);
  doc.version = 1;
  doc.name = typeof doc.name === "string" && doc.name ? doc.name : "workflow";
  doc.edges = Array.isArray(doc.edges) ? doc.edges : [];
  doc.subgraphs = doc.subgraphs && typeof doc.subgraphs === "object" ? doc.subgraphs : {};
  doc.nodes.forEach((node, i) => {
    if (!node.id) node.id = `n${i + 1}`;
    Object.entries(DEFAULTS[node.type] || {}).forEach(([k, v]) => {
      if (node[k] === undefined) node[k] = cloneDoc({ v }).v;
    });
    // positions and sizes go into CSS: only finite numbers get there (hostile documents)
    if (!Number.isFinite(node.x)) node.x = 60 + 220 * (i % 5);
    if (!Number.isFinite(node.y)) node.y = 80 + 160 * Math.floor(i / 5);
    for (const [key, fallback] of [["width", 220], ["height", 120]]) {
      if (node.type === "note" && !Number.isFinite(node[key])) node[key] = fallback;
    }
  });
  doc.edges.forEach((edge, i) => {
    if (!edge.id) edge.id = `e${i + 1}`;
    if (edge.condition === undefined) edge.condition = "";
  });
  return doc;
}

function freshId(doc, prefix) {
  const used = new Set([...doc.nodes.map((n) => n.id), ...doc.edges.map((e) => e.id)]);
  let i = 1;
  while (used.has(`${prefix}${i}`)) i += 1;
  return `${prefix}${i}`;
}

function freshName(doc, base) {
  const used = new Set(doc.nodes.map((n) => n.name).filter(Boolean));
  let i = 1;
  while (used.has(`${base}${i}`)) i += 1;
  return `${base}${i}`;
}

/** Add a node of `type` at (x, y); returns it, or throws when the document is full or START/END exist. */
export function addNode(doc, type, x, y, fields = {}) {
  const meta = NODE_TYPES.find((t) => t.type === type);
  if (!meta) throw new Error(`unknown node type ${type}`);
  if (meta.unique && doc.nodes.some((n) => n.type === type)) {
    throw new Error(`a workflow has one ${meta.label} node`);
  }
  if (doc.nodes.length >= LIMITS.nodes) throw new Error(`a workflow has at most ${LIMITS.nodes} nodes`);
  const node = { id: meta.unique ? type : freshId(doc, "n"), type, x: Math.round(x), y: Math.round(y) };
  if (isNamed(type)) node.name = freshName(doc, type === "agent_tool" ? "tool" : type);
  Object.assign(node, cloneDoc(DEFAULTS[type] || {}), fields);
  doc.nodes.push(node);
  return node;
}

/** A copy of `node` (new id and name) placed 40px lower right, for paste. */
export function pasteNode(doc, node) {
  const fields = cloneDoc(node);
  delete fields.id;
  delete fields.name;
  delete fields.pinned_output;
  delete fields.frozen;
  return addNode(doc, node.type, node.x + 40, node.y + 40, fields);
}

export function removeNode(doc, id) {
  doc.nodes = doc.nodes.filter((n) => n.id !== id);
  doc.edges = doc.edges.filter((e) => e.from !== id && e.to !== id);
}

export function removeEdge(doc, id) {
  doc.edges = doc.edges.filter((e) => e.id !== id);
}

export function nodeById(doc, id) {
  return doc.nodes.find((n) => n.id === id) || null;
}

/** Why `from.fromPort` may not join `to.toPort`, or "" when it may. */
export function connectProblem(doc, from, fromPort, to, toPort) {
  const a = nodeById(doc, from);
  const b = nodeById(doc, to);
  if (!a || !b) return "both ends must be nodes of this workflow";
  const out = findPort(a, "out", fromPort);
  const inp = findPort(b, "in", toPort);
  if (!out || !inp) return "no such port";
  if (!portsCompatible(out.type, inp.type)) {
    return `a ${out.type} output cannot join a ${inp.type} input`;
  }
  if (from === to && a.type !== "loop") return "a node cannot feed itself";
  if (doc.edges.some((e) => e.from === from && e.from_port === fromPort && e.to === to && e.to_port === toPort)) {
    return "those ports are already joined";
  }
  if (doc.edges.length >= LIMITS.edges) return `a workflow has at most ${LIMITS.edges} edges`;
  return "";
}

/** Join two ports; returns the new edge, or throws with the reason the pair is refused. */
export function connect(doc, from, fromPort, to, toPort, condition = "") {
  const problem = connectProblem(doc, from, fromPort, to, toPort);
  if (problem) throw new Error(problem);
  const edge = { id: freshId(doc, "e"), from, from_port: fromPort, to, to_port: toPort, condition };
  doc.edges.push(edge);
  const tool = nodeById(doc, from);
  const agent = nodeById(doc, to);
  if (tool.type === "agent_tool" && toPort === "tools" && tool.name) {
    // an agent gets the tools its list names: wiring a tool in names it there too
    agent.tools = Array.isArray(agent.tools) ? agent.tools : [];
    if (!agent.tools.includes(tool.name)) agent.tools.push(tool.name);
  }
  return edge;
}

/** Undo/redo over whole-document snapshots (JSON text), bounded so a long session stays small. */
export class UndoStack {
  constructor(limit = 100) {
    this.limit = limit;
    this.past = [];
    this.future = [];
  }
  record(doc) {
    const snap = JSON.stringify(doc);
    if (this.past[this.past.length - 1] === snap) return;
    this.past.push(snap);
    if (this.past.length > this.limit) this.past.shift();
    this.future = [];
  }
  undo(current) {
    if (!this.past.length) return null;
    this.future.push(JSON.stringify(current));
    return JSON.parse(this.past.pop());
  }
  redo(current) {
    if (!this.future.length) return null;
    this.past.push(JSON.stringify(current));
    return JSON.parse(this.future.pop());
  }
}

/** base64url of the document's UTF-8 JSON (the embed view's `graph=` parameter). */
export function encodeGraph(doc) {
  const bytes = new TextEncoder().encode(JSON.stringify(doc));
  let binary = "";
  bytes.forEach((b) => (binary += String.fromCharCode(b)));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodeGraph(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(b64 + "===".slice((b64.length + 3) % 4));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return normalizeDocument(JSON.parse(new TextDecoder().decode(bytes)));
}
