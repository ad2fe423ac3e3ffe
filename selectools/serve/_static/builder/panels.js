// The right-hand properties panel (the selected node, edge, or the workflow itself), the live
// code panel (Python | YAML from `backend.code`, debounced), and the modal helper the menus use.

import { debounce, download, h } from "./dom.js";
import { isNamed, NOTE_COLORS, nodeById, PROVIDERS, typeLabel } from "./document.js";

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FIELDS = {
  agent: [["name"], ["provider", "select", PROVIDERS], ["model"], ["system_prompt", "textarea"], ["tools", "lines"]],
  agent_tool: [["name"], ["description"], ["provider", "select", PROVIDERS], ["model"], ["system_prompt", "textarea"], ["tools", "lines"]],
  loop: [["name"], ["max_iterations", "number"], ["exit_condition"]],
  subgraph: [["name"], ["graph", "graph"]],
  hitl: [["name"], ["prompt", "textarea"], ["options", "lines"], ["timeout_s", "number"], ["default_option"]],
  note: [["text", "textarea"], ["color", "select", NOTE_COLORS], ["width", "number"], ["height", "number"]],
};
const LABELS = {
  system_prompt: "System prompt", tools: "Tools (one per line: dotted import path or agent tool name)",
  max_iterations: "Max iterations", exit_condition: "Exit condition", graph: "Graph name",
  options: "Options (one per line; each is an output port)", timeout_s: "Timeout (s, then auto-resume)",
  default_option: "Default option on timeout", text: "Text (Markdown)",
};
const label = (key) => LABELS[key] || key[0].toUpperCase() + key.slice(1);

/** An overlay dialog inside the builder root; Esc or × closes it. Returns `{el, body, close}`. */
export function openModal(app, title, className = "") {
  const body = h("div", { class: "sb-modal-body" });
  const close = () => overlay.remove();
  const overlay = h(
    "div",
    { class: `sb-overlay ${className}`.trim() },
    h("div", { class: "sb-modal", role: "dialog", "aria-label": title }, h("div", { class: "sb-modal-head" }, h("strong", {}, title), h("button", { type: "button", class: "sb-close", title: "Close (Esc)", onclick: close }, "×")), body),
  );
  overlay.addEventListener("mousedown", (ev) => ev.target === overlay && close());
  app.root.append(overlay);
  return { el: overlay, body, close };
}

function fieldInput(app, node, [key, kind = "text", choices]) {
  const value = node[key];
  const attrs = { "data-field": key, name: key };
  let input;
  if (kind === "textarea") input = h("textarea", { ...attrs, rows: key === "text" ? 8 : 5, value: value ?? "" });
  else if (kind === "lines") input = h("textarea", { ...attrs, rows: 3, value: (value || []).join("\n") });
  else if (kind === "number") input = h("input", { ...attrs, type: "number", min: 0, value: value ?? "" });
  else if (kind === "select") input = h("select", attrs, choices.map((c) => h("option", { value: c, selected: c === (value ?? "") }, c || "(server default)")));
  else if (kind === "graph") {
    const list = `sb-graphs-${Math.random().toString(36).slice(2)}`;
    input = h("span", {}, h("input", { ...attrs, list, value: value ?? "" }), h("datalist", { id: list }, Object.keys(app.rootDoc().subgraphs || {}).map((g) => h("option", { value: g }))));
  } else input = h("input", { ...attrs, value: value ?? "" });
  return h("label", { class: "sb-field" }, h("span", {}, label(key)), input, h("small", { class: "sb-field-error", "data-error-for": key }));
}

function parseField(node, key, raw) {
  if (key === "tools" || key === "options") return raw.split("\n").map((s) => s.trim()).filter(Boolean);
  if (["max_iterations", "timeout_s", "width", "height"].includes(key)) return raw === "" ? 0 : Math.max(0, Math.round(Number(raw)) || 0);
  return raw;
}

function problemOf(app, node, key, value) {
  if (key === "name" && isNamed(node.type)) {
    if (!IDENT.test(value)) return "a Python identifier: letters, digits and _, not starting with a digit";
    if (value.length > 80) return "at most 80 characters";
    if (app.doc.nodes.some((n) => n !== node && n.name === value)) return "another node has this name";
  }
  if (typeof value === "string" && value.length > 20000) return "at most 20,000 characters";
  return "";
}

/** Inputs edit the document live; one focus session on a field is one undo step. */
function bindEditing(app, form, target) {
  let pending = null;
  form.addEventListener("focusin", () => (pending = JSON.parse(JSON.stringify(app.doc))));
  form.addEventListener("input", (ev) => {
    const key = ev.target.dataset.field;
    if (!key) return;
    const obj = target();
    if (!obj) return;
    if (pending) {
      app.undo.record(pending);
      pending = null;
    }
    if (key === "workflow-name") obj.name = ev.target.value;
    else obj[key] = parseField(obj, key, ev.target.value);
    const error = form.querySelector(`[data-error-for="${key}"]`);
    if (error) error.textContent = problemOf(app, obj, key, obj[key]);
    ev.target.classList.toggle("sb-invalid", Boolean(error && error.textContent));
    app.render();
    app.notify();
  });
}

export function renderProperties(app) {
  const panel = app.els.props;
  const sel = app.selection;
  const form = h("form", { class: "sb-props-form", onsubmit: (ev) => ev.preventDefault() });
  panel.replaceChildren(form);
  if (sel?.kind === "edge") {
    const edge = app.doc.edges.find((e) => e.id === sel.id);
    if (!edge) return;
    const from = nodeById(app.doc, edge.from);
    const to = nodeById(app.doc, edge.to);
    form.dataset.edge = edge.id;
    form.append(
      h("p", { class: "sb-kind" }, "Edge"),
      h("p", {}, `${from?.name || edge.from}.${edge.from_port} → ${to?.name || edge.to}.${edge.to_port}`),
      h("label", { class: "sb-field" }, h("span", {}, "Condition label (taken when the output contains it; empty = otherwise)"), h("input", { "data-field": "condition", value: edge.condition || "", placeholder: "e.g. approved" })),
      h("button", { type: "button", class: "sb-danger", "data-action": "delete-selection", onclick: () => app.deleteSelection() }, "Delete edge"),
    );
    bindEditing(app, form, () => app.doc.edges.find((e) => e.id === sel.id));
    return;
  }
  const node = sel?.kind === "node" ? nodeById(app.doc, sel.id) : null;
  if (!node) {
    form.append(
      h("p", { class: "sb-kind" }, "Workflow"),
      h("label", { class: "sb-field" }, h("span", {}, "Name (a Python identifier)"), h("input", { "data-field": "workflow-name", value: app.doc.name })),
      h("p", { class: "sb-muted" }, `${app.doc.nodes.length} nodes · ${app.doc.edges.length} edges`),
      h("p", { class: "sb-muted" }, "Click a node or an edge to edit it."),
    );
    const subgraphs = Object.keys(app.doc.subgraphs || {});
    if (subgraphs.length) form.append(h("p", { class: "sb-muted" }, `Subgraphs: ${subgraphs.join(", ")} (select a Subgraph node to edit one)`));
    bindEditing(app, form, () => app.doc);
    return;
  }
  form.dataset.node = node.id;
  form.append(h("p", { class: "sb-kind" }, `${typeLabel(node.type)} · ${node.id}`));
  for (const field of FIELDS[node.type] || []) form.append(fieldInput(app, node, field));
  if (node.type === "start") form.append(h("p", { class: "sb-muted" }, "The entry point: it receives the user's message."));
  if (node.type === "end") form.append(h("p", { class: "sb-muted" }, "The exit point: what reaches it is the answer."));
  if (node.type === "subgraph" && !app.stack.length) {
    form.append(h("button", { type: "button", "data-action": "open-subgraph", onclick: () => app.openSubgraph(node.id) }, "✎ Edit this subgraph"));
  }
  if (node.type === "agent_tool") form.append(h("p", { class: "sb-muted" }, "Wire its tool port to an agent's tools port; it does not run on its own."));
  const last = app.last.nodes.get(node.id);
  if (last) form.append(h("details", { class: "sb-last" }, h("summary", {}, "Last input / output"), h("pre", {}, `in: ${last.input ?? ""}\n\nout: ${last.output ?? ""}`)));
  if (node.pinned_output !== undefined && node.pinned_output !== null) form.append(h("p", { class: "sb-muted" }, "📌 pinned output: downstream nodes receive it instead of a fresh run."));
  if (node.frozen) form.append(h("p", { class: "sb-muted" }, "❄ frozen: the cached output is used instead of running."));
  form.append(h("button", { type: "button", class: "sb-danger", "data-action": "delete-selection", onclick: () => app.deleteSelection() }, "Delete node"));
  bindEditing(app, form, () => nodeById(app.doc, node.id));
}

/** Start the live code panel; returns the (debounced) function to call after each edit. */
export function startCodePanel(app) {
  const section = app.els.code;
  const text = section.querySelector(".sb-code-text");
  const errors = section.querySelector(".sb-code-errors");
  let tab = "python";
  let latest = { python: "", yaml: "", errors: [] };
  let seq = 0;
  const show = () => {
    text.textContent = latest[tab] || "";
    text.dataset.tab = tab;
    section.querySelectorAll("[data-code-tab]").forEach((b) => b.classList.toggle("sb-active", b.dataset.codeTab === tab));
  };
  const refresh = async () => {
    const mine = ++seq;
    try {
      const code = await app.backend.code(app.rootDoc());
      if (mine !== seq) return;
      latest = { python: code.python || "", yaml: code.yaml || "", errors: code.errors || [] };
      errors.replaceChildren(...latest.errors.slice(0, 5).map((e) => h("button", { type: "button", class: "sb-code-error", onclick: () => e.node && app.select({ kind: "node", id: e.node }) }, `⚠ ${e.node ? `${e.node}: ` : ""}${e.message}`)));
    } catch (exc) {
      if (mine !== seq) return;
      latest = { python: `# ${exc.message}\n`, yaml: `# ${exc.message}\n`, errors: [] };
      errors.replaceChildren(h("span", { class: "sb-code-error" }, `⚠ ${exc.message}`));
    }
    section.dataset.state = "ready";
    show();
  };
  app.code = () => latest;
  app.freshCode = async () => {
    await refresh();
    return latest;
  };
  section.addEventListener("click", (ev) => {
    const tabButton = ev.target.closest("[data-code-tab]");
    const action = ev.target.closest("[data-action]")?.dataset.action;
    if (tabButton) {
      tab = tabButton.dataset.codeTab;
      show();
    } else if (action === "toggle-code") {
      const collapsed = section.classList.toggle("sb-collapsed");
      ev.target.textContent = collapsed ? "▲ Code" : "▼ Code";
    } else if (action === "copy-code") {
      navigator.clipboard?.writeText(latest[tab]).then(() => app.toast("Copied"), () => app.toast("Copy failed: select the text instead", "error"));
    } else if (action === "download-code") {
      download(`${app.rootDoc().name || "workflow"}.${tab === "python" ? "py" : "yaml"}`, latest[tab]);
    }
  });
  const later = debounce(refresh, 250);
  return () => {
    section.dataset.state = "stale"; // until the code of this very document is in
    later();
  };
}
