// Serverless mode: the builder served by any static host (GitHub Pages, `python -m http.server`)
// has no Python behind it. This backend keeps what can work in the browser: mock runs that walk
// the graph by the contract's semantics and stream made-up outputs, keyword generation, and YAML
// import/export through the vendored js-yaml (vendor/README.md says why it is vendored). What
// needs Python (Python export and import, templates, real runs, the copilot, Watch File, traces)
// is refused with a BackendError that says to run `selectools serve --builder`.

import { BackendError, NEEDS_SERVER } from "./backend.js";
import { normalizeDocument } from "./document.js";
import { generateFromKeywords } from "./keywords.js";
import { hitlOptions } from "./ports.js";
import { dump, load } from "./vendor/js-yaml.mjs";

const MAX_STEPS = 100;
const KEPT_RUNS = 20;
const refuse = (what) => async () => {
  throw new BackendError(`${what} ${NEEDS_SERVER}`, { code: "needs_server" });
};
const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new DOMException("stopped", "AbortError"));
    });
  });

export function toYaml(doc) {
  return dump(doc, { noRefs: true, lineWidth: 100, sortKeys: false });
}

/** A workflow from YAML (or JSON) text; a BackendError naming the line on a mistake. */
export function fromYaml(text) {
  let tree;
  try {
    tree = load(text);
  } catch (exc) {
    const line = exc.mark ? exc.mark.line + 1 : null;
    throw new BackendError(`YAML error: ${exc.reason || exc.message}`, { code: "import_error", line });
  }
  try {
    return normalizeDocument(tree);
  } catch (exc) {
    throw new BackendError(`not a workflow: ${exc.message}`, { code: "import_error", line: 1 });
  }
}

const wordRe = (label) => new RegExp(`\\b${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`, "i");

/** The edge a node's output takes out of `port`: first matching condition, else the unconditional one. */
function chooseEdge(doc, node, port, output) {
  const edges = doc.edges.filter((e) => e.from === node.id && e.from_port === port);
  return edges.find((e) => e.condition && wordRe(e.condition).test(output)) || edges.find((e) => !e.condition) || null;
}

function mockOutput(node, input) {
  const shown = input.length > 80 ? `${input.slice(0, 77)}...` : input;
  return `[${node.name || node.id}] mock reply to: ${shown}`;
}

/** A subgraph's mock run, all at once: its agents reply, its loops count, its questions take their default. */
function walkSubgraph(doc, node, input) {
  const sub = doc.subgraphs?.[node.graph];
  if (!sub || !Array.isArray(sub.nodes)) throw Object.assign(new Error(`no subgraph named ${node.graph || "(empty)"}`), { node: node.id });
  const byId = new Map(sub.nodes.map((n) => [n.id, n]));
  const passes = new Map();
  let text = input;
  let current = sub.nodes.find((n) => n.type === "start");
  for (let step = 0; current && current.type !== "end"; step += 1) {
    if (step > MAX_STEPS) throw Object.assign(new Error(`subgraph ${node.graph} ran ${MAX_STEPS} steps`), { node: node.id });
    let port = "out";
    if (current.type === "agent" || current.type === "subgraph") text = mockOutput(current, text);
    else if (current.type === "loop") {
      const n = (passes.get(current.id) || 0) + 1;
      passes.set(current.id, n);
      const done = (current.exit_condition && text.toLowerCase().includes(String(current.exit_condition).toLowerCase())) || n >= (current.max_iterations || 1);
      port = done ? "done" : "body";
    } else if (current.type === "hitl") port = current.default_option || hitlOptions(current)[0];
    const edge = chooseEdge(sub, current, port, text);
    current = edge ? byId.get(edge.to) : null;
  }
  return text;
}

/** The client-side backend: `health()` reports `serverless: true`. */
export function serverlessBackend() {
  const runs = new Map(); // run_id -> {prompt, steps: [{node, input, output}]}
  const waiting = new Map(); // `${run_id}/${node}` -> resolve(option)
  let counter = 0;

  async function runNode(doc, node, input, ctx) {
    const { emit, signal, step } = ctx;
    const t0 = (performance.now() - ctx.began) / 1000;
    emit({ type: "node_start", node: node.id, step, t: t0 });
    let output;
    let port = "out";
    if (typeof node.pinned_output === "string") output = node.pinned_output;
    else if (node.frozen && ctx.lastOutputs.has(node.id)) output = ctx.lastOutputs.get(node.id);
    if (node.type === "loop") {
      const passes = (ctx.passes.get(node.id) || 0) + 1;
      ctx.passes.set(node.id, passes);
      const done = (node.exit_condition && input.toLowerCase().includes(String(node.exit_condition).toLowerCase())) || passes >= (node.max_iterations || 1);
      port = done ? "done" : "body";
      output = input;
    } else if (node.type === "hitl") {
      const options = hitlOptions(node);
      emit({ type: "interrupt", node: node.id, prompt: node.prompt || "", options, timeout_s: node.timeout_s || 0 });
      const answer = await new Promise((resolve) => {
        waiting.set(`${ctx.runId}/${node.id}`, resolve);
        if (node.timeout_s > 0) setTimeout(() => resolve(node.default_option || options[0]), node.timeout_s * 1000);
        signal?.addEventListener("abort", () => resolve(null));
      });
      waiting.delete(`${ctx.runId}/${node.id}`);
      if (answer === null) throw new DOMException("stopped", "AbortError");
      port = answer;
      output = input;
    } else if (output === undefined) {
      output = node.type === "subgraph" ? walkSubgraph(doc, node, input) : mockOutput(node, input);
      for (const tool of node.tools || []) {
        emit({ type: "tool_call", node: node.id, tool, args: { input: input.slice(0, 60) }, result: `mock result of ${tool}`, ms: 1 });
      }
      for (const word of output.split(/(?<= )/)) {
        await sleep(15, signal);
        emit({ type: "chunk", node: node.id, content: word });
      }
    }
    ctx.lastOutputs.set(node.id, output);
    const edge = chooseEdge(doc, node, port, output);
    const tokens = Math.ceil((input.length + output.length) / 4);
    emit({ type: "node_end", node: node.id, step, t0, t1: (performance.now() - ctx.began) / 1000, tokens, cost_usd: 0, input, output, port, edge: edge ? edge.id : null });
    return { output, edge };
  }

  async function run(req, onEvent, signal) {
    const doc = normalizeDocument(req.workflow);
    const runId = `mock-${Date.now().toString(36)}-${++counter}`;
    const record = { prompt: req.prompt || "", steps: [] };
    runs.set(runId, record);
    if (runs.size > KEPT_RUNS) runs.delete(runs.keys().next().value);
    const previous = runs.get(req.run_id);
    const lastOutputs = new Map(previous ? previous.steps.map((s) => [s.node, s.output]) : []);
    const ctx = { emit: onEvent, signal, began: performance.now(), step: 0, runId, passes: new Map(), lastOutputs };
    const byId = new Map(doc.nodes.map((n) => [n.id, n]));
    onEvent({ type: "run_start", run_id: runId, mock: true });
    let current = null;
    let text = req.prompt || "";
    try {
      if (req.only_node) {
        const node = byId.get(req.only_node);
        const seen = previous && [...previous.steps].reverse().find((s) => s.node === req.only_node);
        if (!node || !seen) throw new Error("run the workflow once first: this node has no input yet");
        const { output } = await runNode(doc, { ...node, pinned_output: undefined, frozen: false }, seen.input, ctx);
        onEvent({ type: "result", content: output });
        return;
      }
      if (previous && Number.isInteger(req.from_step) && previous.steps[req.from_step]) {
        const from = previous.steps[req.from_step];
        record.steps = previous.steps.slice(0, req.from_step);
        ctx.step = req.from_step;
        current = byId.get(from.node);
        text = from.input;
      } else {
        const start = doc.nodes.find((n) => n.type === "start");
        if (!start) throw new Error("the workflow has no START node");
        const first = chooseEdge(doc, start, "out", text);
        if (!first) throw new Error("connect START to a node");
        current = byId.get(first.to);
      }
      while (current && current.type !== "end") {
        if (ctx.step >= MAX_STEPS) throw new Error(`stopped after ${MAX_STEPS} steps (does a loop never end?)`);
        if (current.type === "note" || current.type === "agent_tool") throw new Error(`${current.type} nodes do not run; node ${current.id} is on the path`);
        const node = current;
        const { output, edge } = await runNode(doc, node, text, ctx);
        record.steps.push({ node: node.id, input: text, output });
        ctx.step += 1;
        if (!edge) throw Object.assign(new Error(`no edge out of ${node.name || node.id} matches its output`), { node: node.id });
        text = output;
        current = byId.get(edge.to);
      }
      onEvent({ type: "result", content: text });
    } catch (exc) {
      if (exc.name === "AbortError") onEvent({ type: "error", message: "the run was stopped", node: null });
      else onEvent({ type: "error", message: exc.message, node: exc.node || null });
    }
  }

  return {
    kind: "serverless",
    health: async () => ({ backend: false, serverless: true, ai: false, github_oauth: false }),
    code: async (workflow) => ({ python: `# Python export ${NEEDS_SERVER}\n`, yaml: toYaml(workflow), errors: [] }),
    importText: async (text, format = "auto") => {
      const python = format === "python" || (format === "auto" && /^\s*(from|import|def|class)\s/m.test(text) && !/^\s*nodes\s*:/m.test(text));
      if (python) throw new BackendError(`Importing Python ${NEEDS_SERVER}`, { code: "needs_server" });
      return fromYaml(text);
    },
    run,
    resume: async ({ run_id: runId, node, option }) => {
      const resolve = waiting.get(`${runId}/${node}`);
      if (!resolve) throw new BackendError("that run is not waiting for an answer");
      resolve(option);
      return { ok: true };
    },
    templates: refuse("Templates"),
    template: refuse("Templates"),
    example: async () => generateFromKeywords("research the topic, write a report, review it until approved"),
    generate: async (description) => ({ workflow: generateFromKeywords(description), source: "keywords" }),
    copilot: refuse("The AI copilot"),
    watch: refuse("Watch File"),
    trace: refuse("Loading a trace"),
  };
}
