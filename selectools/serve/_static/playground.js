// The selectools playground: a chat against this server's /stream endpoint.
// Plain ES module, no dependencies. The conversation lives in one session id
// (kept for this tab), so the server remembers earlier turns.
import { sseData } from "./sse.js";

const body = document.body;
const prefix = body.dataset.prefix || "";
const authRequired = body.dataset.auth === "required";
const $ = (id) => document.getElementById(id);
const messages = $("messages");
let sessionId = newSessionId();

function newSessionId() {
  const random = crypto.getRandomValues(new Uint32Array(4));
  return "playground-" + Array.from(random, (n) => n.toString(16)).join("");
}

function token() {
  return sessionStorage.getItem("selectools-token") || "";
}

function headers() {
  const h = { "Content-Type": "application/json" };
  if (token()) h.Authorization = "Bearer " + token();
  return h;
}

function bubble(kind, text) {
  const div = document.createElement("div");
  div.className = "msg " + kind;
  div.textContent = text || "";
  messages.appendChild(div);
  messages.scrollTop = messages.scrollHeight;
  return div;
}

async function loadInfo() {
  const info = $("agent-info");
  try {
    const res = await fetch(prefix + "/health", { headers: headers() });
    if (res.status === 401) {
      $("token-bar").hidden = false;
      info.textContent = "token required";
      return;
    }
    const h = await res.json();
    info.textContent = `model ${h.model} · provider ${h.provider} · tools: ${h.tools.join(", ") || "none"}`;
  } catch (err) {
    info.textContent = "server not reachable";
  }
}

async function send(prompt) {
  bubble("user", prompt);
  const answer = bubble("assistant", "");
  answer.dataset.state = "streaming";
  const text = document.createElement("span");
  text.className = "text";
  answer.appendChild(text);
  const res = await fetch(prefix + "/stream", {
    method: "POST",
    headers: headers(),
    body: JSON.stringify({ prompt, session_id: sessionId }),
  });
  if (!res.ok) {
    let message = res.statusText;
    try { message = (await res.json()).error.message; } catch (e) { /* not JSON */ }
    answer.className = "msg error";
    answer.textContent = `${res.status}: ${message}`;
    if (res.status === 401) $("token-bar").hidden = false;
    return;
  }
  for await (const data of sseData(res)) {
    if (data === "[DONE]") break;
    const event = JSON.parse(data);
    if (event.type === "chunk") {
      text.textContent += event.content;
    } else if (event.type === "restart") {
      text.textContent = "";
    } else if (event.type === "tool_call") {
      for (const call of event.tool_calls) {
        const t = document.createElement("div");
        t.className = "tool";
        t.textContent = `⚙ ${call.name}(${JSON.stringify(call.arguments)})`;
        answer.insertBefore(t, text);
      }
    } else if (event.type === "result") {
      text.textContent = event.content;
      const meta = document.createElement("div");
      meta.className = "meta";
      meta.textContent = `${event.iterations} iteration(s) · ${event.tokens} tokens · $${event.cost_usd.toFixed(5)}`;
      answer.appendChild(meta);
    } else if (event.type === "error") {
      answer.className = "msg error";
      text.textContent = event.message;
    }
    messages.scrollTop = messages.scrollHeight;
  }
  answer.dataset.state = "done";
}

$("composer").addEventListener("submit", async (e) => {
  e.preventDefault();
  const prompt = $("prompt").value.trim();
  if (!prompt) return;
  $("prompt").value = "";
  $("send").disabled = true;
  try {
    await send(prompt);
  } catch (err) {
    bubble("error", "request failed: " + err);
  } finally {
    $("send").disabled = false;
    $("prompt").focus();
  }
});
$("prompt").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey) {
    e.preventDefault();
    $("composer").requestSubmit();
  }
});
$("new-chat").addEventListener("click", () => {
  sessionId = newSessionId();
  messages.replaceChildren();
});
$("token-save").addEventListener("click", () => {
  sessionStorage.setItem("selectools-token", $("token").value);
  $("token-bar").hidden = true;
  loadInfo();
});
if (authRequired && !token()) $("token-bar").hidden = false;
loadInfo();
