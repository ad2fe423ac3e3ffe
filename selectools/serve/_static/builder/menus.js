// The header: File (New, Load Example, Templates, Import, Watch File), ✨ AI, Export (Python,
// YAML, Embed Widget, Load Trace), ▶ Run and ?. Each action goes through the backend, so the
// same menus work against the server, in serverless mode (which refuses what needs Python with
// a message) and in the notebook widget.

import { NEEDS_SERVER } from "./backend.js";
import { download, h } from "./dom.js";
import { emptyDocument, encodeGraph } from "./document.js";
import { generateFromKeywords } from "./keywords.js";
import { openModal } from "./panels.js";

function errorText(exc) {
  if (!exc.line || /^line \d+/i.test(exc.message)) return exc.message;
  return `Line ${exc.line}: ${exc.message}`;
}

export function installMenus(app) {
  const header = app.root.querySelector(".sb-header");
  const closeMenus = () => app.root.querySelectorAll(".sb-menu-items").forEach((m) => (m.hidden = true));
  header.addEventListener("click", (ev) => {
    const menu = ev.target.closest("[data-menu]");
    if (menu) {
      const items = header.querySelector(`[data-items="${menu.dataset.menu}"]`);
      const open = items.hidden;
      closeMenus();
      items.hidden = !open;
      return;
    }
    const action = ev.target.closest("[data-action]")?.dataset.action;
    if (!action) return;
    closeMenus();
    const run = ACTIONS[action];
    if (run) Promise.resolve(run(app)).catch((exc) => app.toast(errorText(exc), "error"));
  });
  app.root.addEventListener("mousedown", (ev) => {
    if (!ev.target.closest(".sb-menu")) closeMenus();
  });
  app.runAction = (name) => ACTIONS[name]?.(app);
}

const ACTIONS = {
  new: (app) => app.setDocument(emptyDocument()),
  example: async (app) => {
    const doc = app.backend.example ? await app.backend.example() : await app.backend.template((await app.backend.templates())[0].name);
    app.setDocument(doc);
    app.toast(`Loaded the example “${doc.name}”`);
  },
  templates: async (app) => {
    const modal = openModal(app, "Templates", "sb-templates");
    let list;
    try {
      list = await app.backend.templates();
    } catch (exc) {
      modal.body.append(h("p", { class: "sb-error" }, exc.message));
      return;
    }
    const grid = h("div", { class: "sb-template-grid" });
    for (const t of list) {
      grid.append(
        h("button", { type: "button", class: "sb-template", dataset: { template: t.name }, onclick: async () => {
          try {
            app.setDocument(await app.backend.template(t.name));
            modal.close();
          } catch (exc) {
            app.toast(exc.message, "error");
          }
        } }, h("strong", {}, t.title || t.name), h("span", {}, t.description || "")),
      );
    }
    modal.body.append(grid);
  },
  import: (app) => {
    const modal = openModal(app, "Import YAML / Python", "sb-import");
    const text = h("textarea", { class: "sb-import-text", rows: 14, spellcheck: "false", placeholder: "Paste AgentGraph Python or a workflow's YAML" });
    const format = h("select", { class: "sb-import-format" }, ["auto", "yaml", "python"].map((f) => h("option", { value: f }, f)));
    const file = h("input", { type: "file", accept: ".py,.yaml,.yml,.json,text/plain" });
    const error = h("pre", { class: "sb-error sb-import-error", role: "alert" });
    file.addEventListener("change", async () => {
      if (file.files[0]) text.value = await file.files[0].text();
    });
    const load = async () => {
      error.textContent = "";
      try {
        app.setDocument(await app.backend.importText(text.value, format.value));
        modal.close();
        app.toast("Imported");
      } catch (exc) {
        error.textContent = errorText(exc);
        if (exc.line) markLine(text, exc.line);
      }
    };
    modal.body.append(text, h("div", { class: "sb-row" }, h("label", {}, "Format ", format), file, h("button", { type: "button", class: "sb-primary", "data-action": "import-load", onclick: load }, "Load")), error);
    text.focus();
  },
  watch: (app) => {
    const modal = openModal(app, "Watch File", "sb-watch");
    const path = h("input", { class: "sb-watch-path", placeholder: "my_workflow.py (under the server's working directory)", value: app.watchPath || "" });
    const status = h("p", { class: "sb-watch-status", role: "status" }, app.watching ? `Watching ${app.watchPath}` : "Not watching.");
    const start = async () => {
      app.watching?.abort();
      const controller = new AbortController();
      app.watching = controller;
      app.watchPath = path.value;
      status.textContent = `Watching ${path.value}…`;
      try {
        await app.backend.watch(path.value, (event) => {
          if (event.type === "workflow") {
            app.setDocument(event.workflow, { fit: false });
            status.textContent = `Reloaded ${path.value} at ${new Date().toLocaleTimeString()}`;
            app.root.dataset.watchReloads = String(Number(app.root.dataset.watchReloads || 0) + 1);
          } else if (event.type === "error") {
            status.textContent = errorText(event);
            app.toast(`${path.value}: ${errorText(event)}`, "error");
          }
        }, controller.signal);
        if (app.watching === controller) status.textContent = "The watch ended.";
      } catch (exc) {
        status.textContent = errorText(exc);
      }
      if (app.watching === controller) app.watching = null;
    };
    const stop = () => {
      app.watching?.abort();
      app.watching = null;
      status.textContent = "Stopped.";
    };
    modal.body.append(h("p", {}, "The canvas reloads every time the file is saved."), path, h("div", { class: "sb-row" }, h("button", { type: "button", class: "sb-primary", "data-action": "watch-start", onclick: start }, "Watch"), h("button", { type: "button", "data-action": "watch-stop", onclick: stop }, "Stop")), status);
  },
  ai: (app) => {
    const modal = openModal(app, "✨ Generate a workflow", "sb-ai");
    const text = h("textarea", { class: "sb-ai-text", rows: 4, placeholder: "A chatbot that searches the web before answering" });
    const note = h("p", { class: "sb-muted sb-ai-note" });
    const go = async () => {
      let doc;
      let source;
      try {
        const answer = await app.backend.generate(text.value);
        if (answer.fallback) [doc, source] = [generateFromKeywords(text.value), "keywords"];
        else [doc, source] = [answer.workflow, answer.source || "ai"];
      } catch (exc) {
        if (!app.serverless) throw exc;
        [doc, source] = [generateFromKeywords(text.value), "keywords"];
      }
      app.setDocument(doc);
      app.root.dataset.generatedBy = source;
      modal.close();
      app.toast(source === "keywords" ? "Generated offline by keyword matching (no AI key configured)" : "Generated by the AI");
    };
    modal.body.append(text, h("div", { class: "sb-row" }, h("button", { type: "button", class: "sb-primary", "data-action": "generate", onclick: () => go().catch((exc) => (note.textContent = exc.message)) }, "Generate")), note, h("p", { class: "sb-muted" }, "Then iterate with the AI tab of the run panel."));
    text.focus();
  },
  "export-python": async (app) => {
    if (app.serverless) throw new Error(`Python export ${NEEDS_SERVER}`);
    const code = await app.freshCode();
    download(`${app.rootDoc().name || "workflow"}.py`, code.python, "text/x-python");
  },
  "export-yaml": async (app) => {
    const code = await app.freshCode();
    download(`${app.rootDoc().name || "workflow"}.yaml`, code.yaml, "application/yaml");
  },
  embed: (app) => {
    const modal = openModal(app, "Embed Widget", "sb-embed");
    const base = app.options.embedBase || `${location.origin}/builder`;
    const src = `${base}?embed=1&graph=${encodeGraph(app.rootDoc())}`;
    const snippet = `<iframe src="${src}"\n        width="400" height="600" frameborder="0"></iframe>`;
    const area = h("textarea", { class: "sb-embed-snippet", rows: 5, readonly: true, value: snippet });
    modal.body.append(
      h("p", {}, "Paste this on any page: it shows only the chat for this workflow."),
      area,
      h("div", { class: "sb-row" }, h("button", { type: "button", onclick: () => navigator.clipboard?.writeText(snippet).then(() => app.toast("Copied")) }, "Copy"), h("a", { href: src, target: "_blank", rel: "noopener", class: "sb-embed-open" }, "Open the chat view")),
    );
    area.select();
  },
  trace: (app) => {
    const modal = openModal(app, "Load Trace", "sb-trace");
    const text = h("textarea", { class: "sb-trace-text", rows: 12, spellcheck: "false", placeholder: "Paste the output of trace_to_json(result.trace)" });
    const error = h("pre", { class: "sb-error", role: "alert" });
    const load = async () => {
      error.textContent = "";
      try {
        const { steps } = await app.backend.trace(text.value);
        app.showSteps(steps, "trace");
        modal.close();
      } catch (exc) {
        error.textContent = errorText(exc);
      }
    };
    modal.body.append(text, h("div", { class: "sb-row" }, h("button", { type: "button", class: "sb-primary", "data-action": "trace-load", onclick: load }, "Replay")), error);
  },
  "run-panel": (app) => app.toggleRunPanel(),
  help: (app) => app.openHelp(),
};

function markLine(textarea, line) {
  const lines = textarea.value.split("\n");
  const start = lines.slice(0, line - 1).join("\n").length + (line > 1 ? 1 : 0);
  textarea.focus();
  textarea.setSelectionRange(start, start + (lines[line - 1] || "").length);
}
