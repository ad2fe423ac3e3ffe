// selectools builder: a canvas of START -> Agent(s) -> END, a test panel that runs the
// workflow on the server (streamed, with a timeline), and export to Python, YAML and JSON.
// Plain ES module, no dependencies, no build step.
import { sseData } from "./sse.js";

const $ = (id) => document.getElementById(id);
const canvas = $("canvas");
const svg = $("edges");
const STORE = "selectools-builder-workflow";

let wf = load() || fresh();
let selected = null;
let armed = null; // node id whose output port was clicked
let tab = "python";

function fresh() {
  return {
    nodes: [
      { id: "start", type: "start", name: "START", x: 40, y: 160 },
      { id: "end", type: "end", name: "END", x: 640, y: 160 },
    ],
    edges: [],
  };
}

function load() {
  try { return JSON.parse(localStorage.getItem(STORE)); } catch (e) { return null; }
}

function save() {
  localStorage.setItem(STORE, JSON.stringify(wf));
  renderCode();
}

function node(id) { return wf.nodes.find((n) => n.id === id); }

function nextId(type) {
  let i = 1;
  while (node(`${type}${i}`)) i += 1;
  return `${type}${i}`;
}

function addNode(type, x, y) {
  const id = nextId(type);
  const count = wf.nodes.filter((n) => n.type === type).length;
  const n = { id, type, name: type === "agent" ? `agent_${count + 1}` : "note", x: x ?? 200 + count * 40, y: y ?? 60 + count * 110 };
  if (type === "agent") { n.model = ""; n.system_prompt = ""; }
  if (type === "note") n.text = "";
  wf.nodes.push(n);
  select(id);
  render();
  save();
}

function connect(from, to) {
  if (from === to || node(to).type === "start" || node(from).type === "end") return;
  if (node(from).type === "note" || node(to).type === "note") return;
  if (wf.edges.some((e) => e.from === from && e.to === to)) return;
  wf.edges.push({ from, to });
  render();
  save();
}

function select(id) {
  selected = id;
  const n = id && node(id);
  const form = $("editor-form");
  form.hidden = !n || n.type === "start" || n.type === "end";
  $("editor-empty").hidden = !form.hidden;
  if (n && !form.hidden) {
    form.className = n.type;
    $("node-name").value = n.name || "";
    $("node-model").value = n.model || "";
    $("node-prompt").value = n.type === "note" ? n.text || "" : n.system_prompt || "";
  }
  document.querySelectorAll(".node").forEach((el) => el.classList.toggle("selected", el.dataset.id === id));
}

function render() {
  canvas.querySelectorAll(".node").forEach((el) => el.remove());
  for (const n of wf.nodes) {
    const el = document.createElement("div");
    el.className = `node ${n.type}`;
    el.dataset.id = n.id;
    el.style.left = `${n.x}px`;
    el.style.top = `${n.y}px`;
    const kind = document.createElement("div");
    kind.className = "kind";
    kind.textContent = n.type;
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = n.type === "note" ? (n.text || "note").slice(0, 40) : n.name;
    el.append(kind, name);
    if (n.type !== "start" && n.type !== "note") el.appendChild(port("in", n.id));
    if (n.type !== "end" && n.type !== "note") el.appendChild(port("out", n.id));
    el.addEventListener("mousedown", (e) => startDrag(e, n));
    canvas.appendChild(el);
  }
  drawEdges();
  select(selected && node(selected) ? selected : null);
}

function port(kind, id) {
  const p = document.createElement("span");
  p.className = `port ${kind}`;
  if (kind === "out" && armed === id) p.classList.add("armed");
  p.title = kind === "out" ? "connect from here" : "connect to here";
  p.addEventListener("mousedown", (e) => e.stopPropagation());
  p.addEventListener("click", (e) => {
    e.stopPropagation();
    if (kind === "out") { armed = armed === id ? null : id; render(); return; }
    if (armed) { const from = armed; armed = null; connect(from, id); }
  });
  return p;
}

function center(id, side) {
  const el = canvas.querySelector(`.node[data-id="${id}"]`);
  const n = node(id);
  return { x: n.x + (side === "out" ? el.offsetWidth : 0), y: n.y + el.offsetHeight / 2 };
}

function drawEdges() {
  svg.replaceChildren();
  for (const e of wf.edges) {
    const a = center(e.from, "out");
    const b = center(e.to, "in");
    const dx = Math.max(40, (b.x - a.x) / 2);
    const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
    path.setAttribute("d", `M${a.x},${a.y} C${a.x + dx},${a.y} ${b.x - dx},${b.y} ${b.x},${b.y}`);
    path.setAttribute("class", "edge");
    path.dataset.from = e.from;
    path.dataset.to = e.to;
    svg.appendChild(path);
  }
}

function startDrag(e, n) {
  select(n.id);
  const ox = e.clientX - n.x;
  const oy = e.clientY - n.y;
  const move = (m) => {
    n.x = Math.max(0, m.clientX - ox);
    n.y = Math.max(0, m.clientY - oy);
    const el = canvas.querySelector(`.node[data-id="${n.id}"]`);
    el.style.left = `${n.x}px`;
    el.style.top = `${n.y}px`;
    drawEdges();
  };
  const up = () => { window.removeEventListener("mousemove", move); window.removeEventListener("mouseup", up); save(); };
  window.addEventListener("mousemove", move);
  window.addEventListener("mouseup", up);
}

// -- the chain START -> agents -> END (what the server runs) ---------------------------
function chain() {
  const start = wf.nodes.find((n) => n.type === "start");
  const out = [];
  const seen = new Set([start.id]);
  let cur = start.id;
  for (;;) {
    const next = wf.edges.filter((e) => e.from === cur);
    if (next.length === 0) throw new Error(`connect ${node(cur).name} on to END`);
    if (next.length > 1) throw new Error("branches need AgentGraph (not in this build yet)");
    cur = next[0].to;
    if (seen.has(cur)) throw new Error("loops need AgentGraph (not in this build yet)");
    seen.add(cur);
    if (node(cur).type === "end") return out;
    out.push(node(cur));
  }
}

const ident = (s, i) => (String(s).replace(/\W+/g, "_").replace(/^(\d)/, "_$1") || `agent_${i + 1}`).toLowerCase();
const pystr = (s) => JSON.stringify(String(s ?? ""));

function toPython() {
  let agents;
  try { agents = chain(); } catch (e) { return `# cannot export yet: ${e.message}\n`; }
  const names = agents.map((a, i) => ident(a.name, i));
  const lines = [
    '"""Workflow exported from the selectools builder: each agent answers the previous one."""',
    "",
    "import sys",
    "",
    "from selectools import Agent, AgentConfig",
    "from selectools.templates import make_provider",
    "",
    'provider = make_provider("auto")  # the first API key in the environment, else offline',
    "",
  ];
  agents.forEach((a, i) => {
    const opts = [`name=${pystr(a.name)}`];
    if (a.model) opts.push(`model=${pystr(a.model)}`);
    if (a.system_prompt) opts.push(`system_prompt=${pystr(a.system_prompt)}`);
    lines.push(`${names[i]} = Agent(provider=provider, config=AgentConfig(${opts.join(", ")}))`);
  });
  lines.push(
    "",
    "",
    "def run(prompt: str) -> str:",
    "    text = prompt",
    `    for agent in (${names.join(", ")}${names.length === 1 ? "," : ""}):`,
    "        text = agent.run(text).content",
    "    return text",
    "",
    "",
    'if __name__ == "__main__":',
    '    print(run(" ".join(sys.argv[1:]) or "Hello"))',
    "",
  );
  return lines.join("\n");
}

function toYaml() {
  const q = (s) => JSON.stringify(String(s ?? ""));
  const lines = ["# selectools builder workflow", "nodes:"];
  for (const n of wf.nodes) {
    lines.push(`  - id: ${q(n.id)}`, `    type: ${n.type}`, `    name: ${q(n.name)}`);
    if (n.type === "agent") lines.push(`    model: ${q(n.model)}`, `    system_prompt: ${q(n.system_prompt)}`);
    if (n.type === "note") lines.push(`    text: ${q(n.text)}`);
    lines.push(`    position: [${Math.round(n.x)}, ${Math.round(n.y)}]`);
  }
  lines.push(wf.edges.length ? "edges:" : "edges: []");
  for (const e of wf.edges) lines.push(`  - {from: ${q(e.from)}, to: ${q(e.to)}}`);
  return lines.join("\n") + "\n";
}

function renderCode() {
  $("code").value = tab === "python" ? toPython() : tab === "yaml" ? toYaml() : JSON.stringify(wf, null, 2);
  document.querySelectorAll(".tabs button").forEach((b) => b.classList.toggle("active", b.dataset.tab === tab));
}

function download(name, text) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  a.download = name;
  a.click();
  URL.revokeObjectURL(a.href);
}

// -- the test panel ----------------------------------------------------------------------
function drawGantt(spans) {
  const gantt = $("gantt");
  gantt.replaceChildren();
  const total = Math.max(...spans.map((s) => s.t1), 0.001);
  for (const s of spans) {
    const lane = document.createElement("div");
    lane.className = "lane";
    const label = document.createElement("span");
    label.className = "label";
    label.textContent = s.name;
    const track = document.createElement("span");
    track.className = "track";
    const bar = document.createElement("span");
    bar.className = "bar";
    bar.dataset.node = s.node;
    bar.style.left = `${(s.t0 / total) * 100}%`;
    bar.style.width = `${((s.t1 - s.t0) / total) * 100}%`;
    bar.title = `${s.name}: ${((s.t1 - s.t0) * 1000).toFixed(0)} ms · ${s.tokens} tokens · $${s.cost_usd.toFixed(5)}`;
    track.appendChild(bar);
    lane.append(label, track);
    gantt.appendChild(lane);
  }
}

async function runWorkflow() {
  const out = $("output");
  out.textContent = "";
  out.dataset.state = "running";
  out.classList.remove("error");
  const spans = [];
  drawGantt(spans);
  try {
    const res = await fetch("/builder/run", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ workflow: wf, prompt: $("run-prompt").value || "Hello" }),
    });
    if (!res.ok) {
      const body = await res.json().catch(() => ({ error: { message: res.statusText } }));
      throw new Error(body.error.message);
    }
    for await (const data of sseData(res)) {
      if (data === "[DONE]") break;
      const ev = JSON.parse(data);
      const el = ev.node && canvas.querySelector(`.node[data-id="${ev.node}"]`);
      if (ev.type === "node_start") { el?.classList.add("running"); out.textContent += `\n[${node(ev.node).name}] `; }
      if (ev.type === "chunk") out.textContent += ev.content;
      if (ev.type === "node_end") { el?.classList.remove("running"); spans.push(ev); drawGantt(spans); }
      if (ev.type === "result") { out.dataset.result = ev.content; }
      if (ev.type === "error") throw new Error(ev.message);
    }
  } catch (err) {
    out.classList.add("error");
    out.textContent += `\n${err.message}`;
  } finally {
    out.dataset.state = "done";
  }
}

// -- wiring ------------------------------------------------------------------------------
document.querySelectorAll("[data-add]").forEach((b) => {
  b.addEventListener("click", () => addNode(b.dataset.add));
  b.addEventListener("dragstart", (e) => e.dataTransfer.setData("text/plain", b.dataset.add));
});
canvas.addEventListener("dragover", (e) => e.preventDefault());
canvas.addEventListener("drop", (e) => {
  e.preventDefault();
  const type = e.dataTransfer.getData("text/plain");
  const box = canvas.getBoundingClientRect();
  if (type === "agent" || type === "note") addNode(type, e.clientX - box.left + canvas.scrollLeft, e.clientY - box.top + canvas.scrollTop);
});
canvas.addEventListener("click", (e) => { if (e.target === canvas) { armed = null; select(null); render(); } });
for (const [id, key] of [["node-name", "name"], ["node-model", "model"], ["node-prompt", "prompt"]]) {
  $(id).addEventListener("input", () => {
    const n = node(selected);
    if (!n) return;
    const value = $(id).value;
    if (key === "prompt") { if (n.type === "note") n.text = value; else n.system_prompt = value; } else n[key] = value;
    canvas.querySelector(`.node[data-id="${n.id}"] .name`).textContent = n.type === "note" ? (n.text || "note").slice(0, 40) : n.name;
    save();
  });
}
$("node-delete").addEventListener("click", () => {
  wf.nodes = wf.nodes.filter((n) => n.id !== selected);
  wf.edges = wf.edges.filter((e) => e.from !== selected && e.to !== selected);
  selected = null;
  render();
  save();
});
document.addEventListener("keydown", (e) => {
  if ((e.key === "Delete" || e.key === "Backspace") && selected && !["INPUT", "TEXTAREA"].includes(document.activeElement.tagName)) $("node-delete").click();
  if (e.key === "Escape") { armed = null; render(); }
});
document.querySelectorAll(".tabs button").forEach((b) => b.addEventListener("click", () => { tab = b.dataset.tab; renderCode(); }));
$("new").addEventListener("click", () => { wf = fresh(); selected = null; render(); save(); });
$("run").addEventListener("click", runWorkflow);
$("export-python").addEventListener("click", () => { tab = "python"; renderCode(); download("workflow.py", toPython()); });
$("export-yaml").addEventListener("click", () => { tab = "yaml"; renderCode(); download("workflow.yaml", toYaml()); });
$("export-json").addEventListener("click", () => { tab = "json"; renderCode(); download("workflow.json", JSON.stringify(wf, null, 2)); });
$("import-open").addEventListener("click", () => { $("import-error").textContent = ""; $("import-dialog").showModal(); });
$("import-load").addEventListener("click", () => {
  try {
    const data = JSON.parse($("import-text").value);
    if (!Array.isArray(data.nodes) || !Array.isArray(data.edges)) throw new Error("expected {nodes: [...], edges: [...]}");
    if (data.nodes.filter((n) => n.type === "start").length !== 1) throw new Error("a workflow needs one START node");
    wf = data;
    selected = null;
    render();
    save();
    $("import-dialog").close();
  } catch (err) {
    $("import-error").textContent = `cannot import: ${err.message}`;
  }
});
render();
renderCode();
