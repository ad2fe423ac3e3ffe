// The embed view (`?embed=1&graph=BASE64URL`): only a chat for the workflow in the URL, for an
// <iframe> on another page. It runs through the same backend as the editor (the server, or mock
// runs in serverless mode) and shows the streamed answer; messages are text nodes only.

import { h } from "./dom.js";
import { decodeGraph } from "./document.js";

export function mountEmbed(root, backend, graphParam) {
  root.classList.add("sb-embed-app");
  let doc;
  try {
    doc = decodeGraph(graphParam || "");
  } catch (exc) {
    root.replaceChildren(h("p", { class: "sb-error", role: "alert" }, `This embed link carries no readable workflow (${exc.message}).`));
    return;
  }
  const log = h("div", { class: "sb-chat-log", "aria-live": "polite" });
  const input = h("input", { class: "sb-chat-input", placeholder: "Type a message" });
  const send = h("button", { type: "button", class: "sb-primary sb-chat-send" }, "Send");
  root.replaceChildren(h("div", { class: "sb-chat" }, h("div", { class: "sb-chat-head" }, doc.name), log, h("div", { class: "sb-row" }, input, send)));
  const question = (event, runId) => {
    const box = h("div", { class: "sb-msg sb-bot sb-interrupt" }, event.prompt || "Choose an option", h("br"));
    for (const option of event.options || []) {
      box.append(h("button", { type: "button", dataset: { option }, onclick: async () => {
        box.querySelectorAll("button").forEach((b) => (b.disabled = true));
        await backend.resume({ run_id: runId, node: event.node, option }).catch((exc) => box.append(` (${exc.message})`));
      } }, option), " ");
    }
    return box;
  };
  const ask = async () => {
    const prompt = input.value.trim();
    if (!prompt) return;
    input.value = "";
    send.disabled = true;
    log.append(h("div", { class: "sb-msg sb-user" }, prompt));
    const answer = h("div", { class: "sb-msg sb-bot", dataset: { state: "running" } });
    log.append(answer);
    let streamed = "";
    try {
      let runId = null;
      await backend.run({ workflow: doc, prompt }, (event) => {
        if (event.type === "run_start") runId = event.run_id;
        else if (event.type === "interrupt") log.insertBefore(question(event, runId), answer);
        else if (event.type === "chunk") answer.textContent = streamed += event.content;
        else if (event.type === "node_start") answer.textContent = streamed = "";
        else if (event.type === "result") answer.textContent = event.content;
        else if (event.type === "error") {
          answer.textContent = `Error: ${event.message}`;
          answer.classList.add("sb-error");
        }
      });
    } catch (exc) {
      answer.textContent = `Error: ${exc.message}`;
      answer.classList.add("sb-error");
    }
    answer.dataset.state = "done";
    send.disabled = false;
    log.scrollTop = log.scrollHeight;
  };
  send.addEventListener("click", ask);
  input.addEventListener("keydown", (ev) => ev.key === "Enter" && ask());
}
