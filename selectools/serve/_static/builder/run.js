// The run panel: Output (the streamed run events, tool calls included, and HITL questions as
// buttons), the execution scrubber (one button per step: highlight its node, ▶ re-run from its
// checkpoint), the 📊 Timeline (one bar per node run, tokens and cost on hover), History (every
// run, kept by history.js), the AI copilot tab, and the node context menu (re-run in isolation,
// pin last output, freeze). Replayed runs (history, Load Trace) draw through the same code.

import { download, h } from "./dom.js";
import { nodeById } from "./document.js";
import { historyJsonl, loadHistory, saveRun, searchHistory, clearHistory } from "./history.js";

const PANEL = `
<div class="sb-run-bar">
  <input class="sb-run-prompt" placeholder="A test message for START">
  <button type="button" class="sb-primary" data-run="start">Run</button>
  <button type="button" data-run="stop" disabled>Stop</button>
  <button type="button" data-run="timeline">📊 Timeline</button>
  <span class="sb-run-status" role="status"></span>
  <button type="button" class="sb-close" data-run="close" title="Close">×</button>
</div>
<div class="sb-scrubber" aria-label="Execution scrubber"></div>
<div class="sb-timeline" hidden><div class="sb-bars"></div><div class="sb-timeline-info"></div></div>
<div class="sb-run-tabs"><button type="button" data-run-tab="output" class="sb-active">Output</button><button type="button" data-run-tab="history">History</button><button type="button" data-run-tab="ai">AI</button></div>
<div class="sb-output" data-pane="output"></div>
<div class="sb-history" data-pane="history" hidden>
  <div class="sb-row"><input class="sb-history-search" placeholder="Search runs"><button type="button" data-run="export-history">Export JSONL</button><button type="button" data-run="clear-history">Clear</button></div>
  <ul class="sb-history-list"></ul>
</div>
<div class="sb-copilot" data-pane="ai" hidden>
  <div class="sb-copilot-log"></div>
  <div class="sb-row"><input class="sb-copilot-text" placeholder="Add a step that summarizes the output"><button type="button" data-run="copilot">Send</button></div>
</div>`;

const short = (text, n = 160) => (text.length > n ? `${text.slice(0, n - 3)}...` : text);

export function installRunPanel(app) {
  const panel = app.els.run;
  panel.innerHTML = PANEL; // static markup of this module only
  const q = (sel) => panel.querySelector(sel);
  const output = q(".sb-output");
  const scrubber = q(".sb-scrubber");
  const bars = q(".sb-bars");
  const info = q(".sb-timeline-info");
  const status = q(".sb-run-status");
  let record = null; // the run on display
  let controller = null;

  const nameOf = (id) => {
    const node = nodeById(app.doc, id);
    return node ? node.name || node.type.toUpperCase() : id;
  };

  function reset(rec) {
    record = rec;
    output.replaceChildren();
    scrubber.replaceChildren();
    bars.replaceChildren();
    info.textContent = "";
    output.dataset.state = "running";
    delete output.dataset.result;
  }

  function block(nodeId) {
    const existing = output.querySelector(`.sb-out-node[data-node="${CSS.escape(nodeId)}"]:last-of-type`);
    if (existing && existing === output.lastElementChild) return existing;
    const el = h("div", { class: "sb-out-node", dataset: { node: nodeId } }, h("div", { class: "sb-out-head" }, `[${nameOf(nodeId)}]`), h("div", { class: "sb-out-text" }));
    output.append(el);
    return el;
  }

  /** Draw one run event (live or replayed). */
  function draw(event, { live }) {
    switch (event.type) {
      case "run_start":
        record.run_id = event.run_id;
        if (live) app.last.runId = event.run_id;
        break;
      case "node_start":
        block(event.node);
        if (live) {
          app.highlight = event.node;
          app.render();
        }
        break;
      case "chunk":
        block(event.node).querySelector(".sb-out-text").append(event.content);
        break;
      case "tool_call":
        block(event.node).append(h("div", { class: "sb-out-tool" }, `🔧 ${event.tool}(${JSON.stringify(event.args || {})}) → ${short(String(event.result ?? ""))}${event.ms !== undefined ? ` · ${event.ms} ms` : ""}`));
        break;
      case "node_end": {
        const text = block(event.node).querySelector(".sb-out-text");
        if (!text.textContent && event.output) text.textContent = event.output;
        if (live) {
          app.last.nodes.set(event.node, { input: event.input, output: event.output, runId: record.run_id });
          if (event.edge) app.last.edges.set(event.edge, event.output);
        }
        const asked = output.querySelector(`.sb-interrupt[data-node="${CSS.escape(event.node)}"]:not(.sb-answered)`);
        if (asked) {
          // answered here, or by the timeout on the server: the buttons are done either way
          asked.classList.add("sb-answered");
          asked.querySelectorAll("button").forEach((b) => (b.disabled = true));
          asked.dataset.answer = event.port || "";
        }
        addStep(event);
        break;
      }
      case "interrupt":
        output.append(interruptEl(event, live));
        break;
      case "result":
        record.result = event.content;
        output.dataset.result = event.content;
        output.append(h("div", { class: "sb-out-result" }, h("strong", {}, "Result: "), event.content));
        break;
      case "error":
        record.error = event.message;
        output.append(h("div", { class: "sb-out-error", role: "alert" }, `Error${event.node ? ` in ${nameOf(event.node)}` : ""}: ${event.message}`));
        break;
      default:
        break;
    }
    output.scrollTop = output.scrollHeight;
  }

  function interruptEl(event, live) {
    const box = h("div", { class: "sb-interrupt", dataset: { node: event.node } }, h("p", {}, `✋ ${nameOf(event.node)} asks: ${event.prompt || "choose an option"}${event.timeout_s ? ` (auto-resumes in ${event.timeout_s}s)` : ""}`));
    const runId = record.run_id;
    for (const option of event.options || []) {
      box.append(
        h("button", { type: "button", dataset: { option }, disabled: !live, onclick: async () => {
          box.querySelectorAll("button").forEach((b) => (b.disabled = true));
          try {
            await app.backend.resume({ run_id: runId, node: event.node, option });
          } catch (exc) {
            app.toast(exc.message, "error");
          }
        } }, option),
      );
    }
    return box;
  }

  function addStep(event) {
    const k = event.step ?? scrubber.children.length;
    record.steps.push(event);
    const step = h(
      "span",
      { class: "sb-step", dataset: { step: k, node: event.node } },
      h("button", { type: "button", class: "sb-step-go", title: `${short(event.output || "", 300)}`, onclick: () => focusStep(k, event) }, `${k} · ${nameOf(event.node)}${event.port && event.port !== "out" ? ` → ${event.port}` : ""}`),
      record.replayOnly ? null : h("button", { type: "button", class: "sb-step-rerun", title: "Re-run from this step's checkpoint", onclick: () => startRun({ run_id: record.run_id, from_step: k }, record.prompt) }, "▶"),
    );
    scrubber.append(step);
    drawTimeline();
  }

  function focusStep(k, event) {
    scrubber.querySelectorAll(".sb-step").forEach((s) => s.classList.toggle("sb-active", s.dataset.step === String(k)));
    app.highlight = event.node;
    app.render();
    status.textContent = `step ${k}: ${nameOf(event.node)} · in: ${short(event.input || "", 60)} · out: ${short(event.output || "", 60)}`;
  }

  function drawTimeline() {
    const steps = record.steps.filter((s) => typeof s.t0 === "number" && typeof s.t1 === "number");
    const t0 = Math.min(...steps.map((s) => s.t0));
    const span = Math.max(1e-6, Math.max(...steps.map((s) => s.t1)) - t0);
    const rows = [...new Set(steps.map((s) => s.node))];
    bars.replaceChildren(
      ...rows.map((node) =>
        h("div", { class: "sb-bar-row" }, h("span", { class: "sb-bar-label" }, nameOf(node)), h("div", { class: "sb-bar-track" }, steps.filter((s) => s.node === node).map((s) => {
          const detail = `${nameOf(node)} · ${Math.round((s.t1 - s.t0) * 1000)} ms · ${s.tokens ?? 0} tokens · $${Number(s.cost_usd || 0).toFixed(6)}`;
          const bar = h("div", { class: "sb-bar", title: detail, dataset: { node, detail }, style: `left:${((s.t0 - t0) / span) * 100}%;width:${Math.max(0.8, ((s.t1 - s.t0) / span) * 100)}%` });
          bar.addEventListener("mouseenter", () => (info.textContent = detail));
          return bar;
        }))),
      ),
    );
  }

  async function startRun(extra = {}, promptText) {
    const prompt = promptText ?? q(".sb-run-prompt").value;
    if (!prompt.trim() && !extra.only_node && extra.from_step === undefined) {
      app.toast("Type a test message first", "error");
      q(".sb-run-prompt").focus();
      return;
    }
    controller?.abort();
    controller = new AbortController();
    const mine = controller;
    const rec = { id: `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`, when: new Date().toISOString(), prompt, workflow: app.rootDoc(), events: [], steps: [], result: null, kind: extra.only_node ? "isolated" : extra.from_step !== undefined ? `from step ${extra.from_step}` : "run" };
    reset(rec);
    openPanel("output");
    status.textContent = "running…";
    q('[data-run="stop"]').disabled = false;
    app.last.prompt = prompt;
    try {
      await app.backend.run({ workflow: app.rootDoc(), prompt, ...extra }, (event) => {
        if (record !== rec) return;
        rec.events.push(event);
        draw(event, { live: true });
      }, mine.signal);
    } catch (exc) {
      if (exc.name !== "AbortError") draw({ type: "error", message: exc.message, node: null }, { live: true });
    }
    if (mine.signal.aborted && !rec.error && rec.result === null && record === rec) draw({ type: "error", message: "the run was stopped", node: null }, { live: true });
    if (controller === mine) controller = null;
    q('[data-run="stop"]').disabled = true;
    rec.status = rec.error ? "error" : rec.result !== null ? "done" : "stopped";
    if (record === rec) {
      output.dataset.state = rec.status === "done" ? "done" : "error";
      status.textContent = rec.status === "done" ? `done · ${rec.steps.length} steps` : rec.status;
      app.highlight = null;
      app.render();
    }
    const { steps, ...kept } = rec;
    saveRun(kept);
    renderHistory();
  }

  /** Draw a finished run or a trace's steps without running anything. */
  function replay(events, rec) {
    reset({ ...rec, events, steps: [], replayOnly: rec.replayOnly });
    for (const event of events) draw(event, { live: false });
    output.dataset.state = "done";
    openPanel("output");
  }

  function openPanel(tab) {
    panel.hidden = false;
    panel.querySelectorAll("[data-run-tab]").forEach((b) => b.classList.toggle("sb-active", b.dataset.runTab === tab));
    panel.querySelectorAll("[data-pane]").forEach((p) => (p.hidden = p.dataset.pane !== tab));
    if (tab === "history") renderHistory();
  }

  function renderHistory() {
    const runs = searchHistory(loadHistory(), q(".sb-history-search").value);
    q(".sb-history-list").replaceChildren(
      ...runs.map((r) =>
        h("li", { class: "sb-history-item", dataset: { run: r.id } },
          h("button", { type: "button", class: "sb-history-open", title: "Replay this run", onclick: () => replay(r.events || [], { ...r, replayOnly: true }) }, `${new Date(r.when).toLocaleTimeString()} · ${r.workflow?.name || ""} · ${r.status} · ${short(r.prompt || "", 40)} → ${short(String(r.result ?? r.error ?? ""), 60)}`),
          h("button", { type: "button", class: "sb-history-rerun", title: "Run this prompt again on its workflow", onclick: () => {
            app.setDocument(r.workflow, { fit: false });
            q(".sb-run-prompt").value = r.prompt;
            startRun({}, r.prompt);
          } }, "↻"),
        ),
      ),
    );
  }

  panel.addEventListener("click", (ev) => {
    const tab = ev.target.closest("[data-run-tab]")?.dataset.runTab;
    if (tab) return openPanel(tab);
    const action = ev.target.closest("[data-run]")?.dataset.run;
    if (action === "start") startRun();
    else if (action === "stop") controller?.abort();
    else if (action === "timeline") q(".sb-timeline").hidden = !q(".sb-timeline").hidden;
    else if (action === "close") panel.hidden = true;
    else if (action === "export-history") download("selectools-runs.jsonl", historyJsonl(loadHistory()), "application/x-ndjson");
    else if (action === "clear-history") {
      clearHistory();
      renderHistory();
    } else if (action === "copilot") copilot();
  });
  q(".sb-run-prompt").addEventListener("keydown", (ev) => ev.key === "Enter" && startRun());
  q(".sb-history-search").addEventListener("input", renderHistory);
  q(".sb-copilot-text").addEventListener("keydown", (ev) => ev.key === "Enter" && copilot());

  async function copilot() {
    const input = q(".sb-copilot-text");
    const log = q(".sb-copilot-log");
    const instruction = input.value.trim();
    if (!instruction) return;
    log.append(h("p", { class: "sb-you" }, `You: ${instruction}`));
    input.value = "";
    try {
      const answer = await app.backend.copilot(app.rootDoc(), instruction);
      app.setDocument(answer.workflow, { fit: false });
      log.append(h("p", { class: "sb-ai-msg" }, `AI: ${answer.message || "done"}`));
    } catch (exc) {
      log.append(h("p", { class: "sb-error" }, exc.message));
    }
  }

  app.toggleRunPanel = () => {
    if (panel.hidden) {
      openPanel("output");
      q(".sb-run-prompt").focus();
    } else panel.hidden = true;
  };
  app.startRun = startRun;
  app.showSteps = (events, source) => {
    replay(events, { id: `${source}-${Date.now()}`, prompt: "", replayOnly: true });
    q(".sb-timeline").hidden = false;
    status.textContent = `${source}: ${events.filter((e) => e.type === "node_end").length} steps`;
  };
  app.openNodeMenu = (id, x, y) => openNodeMenu(app, id, x, y);
}

function openNodeMenu(app, id, x, y) {
  app.root.querySelector(".sb-context")?.remove();
  const node = nodeById(app.doc, id);
  if (!node || node.type === "note") return;
  const last = app.last.nodes.get(id);
  const pinned = node.pinned_output !== undefined && node.pinned_output !== null;
  const rect = app.root.getBoundingClientRect();
  const menu = h("div", { class: "sb-context", role: "menu", style: `left:${x - rect.left}px;top:${y - rect.top}px` });
  const item = (action, text, fn) => menu.append(h("button", { type: "button", role: "menuitem", dataset: { menuAction: action }, onclick: () => { menu.remove(); fn(); } }, text));
  item("isolate", "Re-run in isolation", () => {
    if (!last?.runId) return app.toast("Run the workflow first: this node has no input yet", "error");
    app.startRun({ run_id: last.runId, only_node: id }, app.last.prompt); // the run it last ran in
  });
  item("pin", pinned ? "Unpin output" : "Pin last output", () => {
    if (!pinned && !last) return app.toast("Run the workflow first: this node has no output to pin", "error");
    app.change((doc) => {
      const target = nodeById(doc, id);
      if (pinned) delete target.pinned_output;
      else target.pinned_output = last.output;
    });
  });
  item("freeze", node.frozen ? "Unfreeze" : "Freeze", () =>
    app.change((doc) => {
      const target = nodeById(doc, id);
      if (target.frozen) delete target.frozen;
      else target.frozen = true;
    }),
  );
  app.root.append(menu);
  const close = (ev) => {
    if (!menu.contains(ev.target)) {
      menu.remove();
      app.root.ownerDocument.removeEventListener("mousedown", close, true);
    }
  };
  app.root.ownerDocument.addEventListener("mousedown", close, true);
}
