// Keyboard shortcuts, the ? help panel that lists them (from the same table, so the two cannot
// drift apart), and the Cmd/Ctrl+K node search.

import { h } from "./dom.js";
import { typeLabel } from "./document.js";
import { openModal } from "./panels.js";

const mod = (ev) => ev.ctrlKey || ev.metaKey;

// [keys shown in the help, what it does, test(ev), run(app)]
export const SHORTCUTS = [
  ["Ctrl+Z / Cmd+Z", "Undo", (ev) => mod(ev) && !ev.shiftKey && ev.key.toLowerCase() === "z", (app) => app.undoEdit()],
  ["Ctrl+Y / Cmd+Y (or Ctrl+Shift+Z)", "Redo", (ev) => mod(ev) && (ev.key.toLowerCase() === "y" || (ev.shiftKey && ev.key.toLowerCase() === "z")), (app) => app.redoEdit()],
  // Ctrl+C leaves selected page text (run output, code) to the browser's own copy
  ["Ctrl+C / Cmd+C", "Copy the selected node", (ev) => mod(ev) && ev.key.toLowerCase() === "c" && !ev.view?.getSelection()?.toString(), (app) => app.copy()],
  ["Ctrl+V / Cmd+V", "Paste the copied node", (ev) => mod(ev) && ev.key.toLowerCase() === "v", (app) => app.paste()],
  ["Del / Backspace", "Delete the selected node or edge", (ev) => !mod(ev) && (ev.key === "Delete" || ev.key === "Backspace"), (app) => app.deleteSelection()],
  ["Esc", "Cancel a connection, deselect, close a dialog", (ev) => ev.key === "Escape", (app) => app.escape()],
  ["Cmd+K / Ctrl+K", "Search nodes by name", (ev) => mod(ev) && ev.key.toLowerCase() === "k", (app) => openSearch(app)],
  ["+ / -", "Zoom in / out", (ev) => !mod(ev) && (ev.key === "+" || ev.key === "=" || ev.key === "-"), (app, ev) => app.zoomAt(ev.key === "-" ? 1 / 1.2 : 1.2)],
  ["Ctrl+0 / Cmd+0", "Zoom to fit", (ev) => mod(ev) && ev.key === "0", (app) => app.fit()],
  ["?", "Open this help panel", (ev) => !mod(ev) && ev.key === "?", (app) => app.openHelp()],
];
const NAVIGATION = [
  ["Scroll wheel", "Zoom toward the cursor"],
  ["Space + drag, middle-mouse drag, or drag the background", "Pan"],
  ["+ − ⟳ (bottom right)", "Zoom in, out, to fit"],
  ["Click an output port, then an input port", "Connect (greyed ports are refused)"],
  ["Click an edge", "Set its condition label"],
  ["Right-click a node", "Re-run in isolation, pin output, freeze"],
];

const typing = (el) => el && (/^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName) || el.isContentEditable);

export function installKeys(app, target) {
  const onKey = (ev) => {
    if (!app.root.isConnected) return;
    const inside = app.root.contains(ev.target) || ev.target === app.root.ownerDocument.body;
    if (!inside) return;
    const inField = typing(ev.target);
    for (const [, , test, run] of SHORTCUTS) {
      if (!test(ev)) continue;
      const always = ev.key === "Escape" || (mod(ev) && ev.key.toLowerCase() === "k");
      if (inField && !always) return; // text fields keep their own undo, copy, delete
      if (!always && app.root.querySelector(".sb-overlay")) return;
      ev.preventDefault();
      run(app, ev);
      return;
    }
  };
  target.addEventListener("keydown", onKey);
  app.listeners.push([target, "keydown", onKey]);
  if (target === app.root) {
    // inside a host page (JupyterLab): keys typed in the builder are the builder's, so the
    // notebook's own shortcuts (d d, Backspace, Ctrl+Z...) do not also act on the cells
    target.addEventListener("keydown", (ev) => ev.stopPropagation());
  }
  app.openHelp = () => openHelp(app);
}

function table(rows) {
  return h("table", { class: "sb-keys" }, rows.map(([keys, what]) => h("tr", {}, h("td", {}, h("kbd", {}, keys)), h("td", {}, what))));
}

function openHelp(app) {
  if (app.root.querySelector(".sb-help")) return;
  const modal = openModal(app, "Help: shortcuts and navigation", "sb-help");
  modal.body.append(
    h("h4", {}, "Keyboard shortcuts"),
    table(SHORTCUTS),
    h("h4", {}, "Canvas"),
    table(NAVIGATION),
    h("p", { class: "sb-muted" }, "File: New, Load Example, Templates, Import YAML / Python, Watch File. Export: Python, YAML, Embed Widget, Load Trace. ▶ Run opens the run panel (Output, History, AI)."),
  );
}

function openSearch(app) {
  app.root.querySelector(".sb-search")?.remove();
  const modal = openModal(app, "Find a node", "sb-search");
  const input = h("input", { class: "sb-search-input", placeholder: "Node name, type or id", autocomplete: "off" });
  const list = h("ul", { class: "sb-search-results" });
  const matches = () => {
    const q = input.value.trim().toLowerCase();
    return app.doc.nodes.filter((n) => [n.name, n.id, n.type, typeLabel(n.type)].some((v) => String(v || "").toLowerCase().includes(q)));
  };
  const go = (node) => {
    modal.close();
    app.select({ kind: "node", id: node.id });
    app.centerOn(node);
  };
  const draw = () => list.replaceChildren(...matches().slice(0, 20).map((n) => h("li", {}, h("button", { type: "button", dataset: { id: n.id }, onclick: () => go(n) }, `${n.name || typeLabel(n.type)} · ${typeLabel(n.type)} · ${n.id}`))));
  input.addEventListener("input", draw);
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") {
      const first = matches()[0];
      if (first) go(first);
    }
  });
  modal.body.append(input, list);
  draw();
  input.focus();
}
