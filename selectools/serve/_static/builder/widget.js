// The notebook widget's front end (anywidget: `export default {render}`): the same canvas as the
// page, mounted with a backend that talks to the kernel through the widget model, so it works
// offline with no server and no IFrame.
//
// Protocol (the kernel side is selectools' Python widget):
// - trait `workflow` (dict, two-way): the document. Canvas edits set it (debounced); a change from
//   Python redraws the canvas.
// - front end → kernel: `{kind: "call", id, method, args}` with method one of code, importText,
//   run, resume, templates, template, example, generate, copilot, watch, trace; and
//   `{kind: "insert_cell", format: "graph" | "python"}` for the "insert cell below" buttons.
// - kernel → front end: `{kind: "event", id, event}` for each run/watch event, then
//   `{kind: "reply", id, result}` or `{kind: "reply", id, error: {message, code, line}}`.

import { BackendError } from "./backend.js";
import { mountBuilder } from "./canvas.js";
import { h, debounce } from "./dom.js";

export function kernelBackend(model) {
  const pending = new Map();
  let next = 0;
  const onMessage = (msg) => {
    const call = msg && pending.get(msg.id);
    if (!call) return;
    if (msg.kind === "event") call.onEvent?.(msg.event);
    else if (msg.kind === "reply") {
      pending.delete(msg.id);
      if (msg.error) call.reject(new BackendError(msg.error.message || "the kernel refused", msg.error));
      else call.resolve(msg.result);
    }
  };
  model.on("msg:custom", onMessage);
  const call = (method, args, onEvent, signal) =>
    new Promise((resolve, reject) => {
      const id = `c${++next}`;
      pending.set(id, { resolve, reject, onEvent });
      signal?.addEventListener("abort", () => {
        pending.delete(id);
        model.send({ kind: "cancel", id });
        resolve(null);
      });
      model.send({ kind: "call", id, method, args });
    });
  return {
    kind: "kernel",
    health: async () => ({ backend: true, version: "notebook", ai: false, github_oauth: false }),
    code: (doc) => call("code", [doc]),
    importText: (text, format = "auto") => call("importText", [text, format]),
    run: (req, onEvent, signal) => call("run", [req], onEvent, signal),
    resume: (req) => call("resume", [req]),
    templates: () => call("templates", []),
    template: (name) => call("template", [name]),
    example: () => call("example", []),
    generate: (description) => call("generate", [description]),
    copilot: (doc, instruction) => call("copilot", [doc, instruction]),
    watch: (path, onEvent, signal) => call("watch", [path], onEvent, signal),
    trace: (json) => call("trace", [json]),
  };
}

function render({ model, el }) {
  const root = h("div", { class: "sb-widget", style: "height: 640px; position: relative" });
  el.append(root);
  let sent = JSON.stringify(model.get("workflow") || null);
  const push = debounce((doc) => {
    sent = JSON.stringify(doc);
    model.set("workflow", doc);
    model.save_changes();
  }, 300);
  const initial = model.get("workflow");
  const builder = mountBuilder(root, kernelBackend(model), {
    document: initial && initial.nodes ? initial : undefined,
    onChange: push,
    embedBase: "http://localhost:8000/builder",
  });
  const header = root.querySelector(".sb-header");
  for (const [format, text] of [["graph", "⤵ %%graph cell"], ["python", "⤵ Python cell"]]) {
    header.insertBefore(h("button", { type: "button", class: "sb-menu-button", dataset: { insert: format }, title: "Copy the equivalent code; the kernel also adds it as a new cell below the next cell you run", onclick: () => model.send({ kind: "insert_cell", format }) }, text), header.querySelector(".sb-status"));
  }
  // A kernel can add a cell only in reply to a run: say so, and copy the text for pasting now.
  const onInserted = (msg) => {
    if (!msg || msg.kind !== "inserted") return;
    const copied = navigator.clipboard?.writeText(msg.text).then(() => true, () => false) ?? Promise.resolve(false);
    copied.then((ok) =>
      builder.app.toast(`${ok ? "Copied. " : ""}The ${msg.format === "graph" ? "%%graph" : "Python"} cell appears below the next cell you run.`),
    );
  };
  model.on("msg:custom", onInserted);
  const onWorkflow = () => {
    const doc = model.get("workflow");
    if (!doc || JSON.stringify(doc) === sent) return;
    sent = JSON.stringify(doc);
    builder.setDocument(doc, { fit: false, silent: true });
  };
  model.on("change:workflow", onWorkflow);
  return () => {
    model.off("change:workflow", onWorkflow);
    model.off("msg:custom", onInserted);
    builder.destroy();
  };
}

export default { render };
