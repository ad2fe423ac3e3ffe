// The approval card: one pending tool call, answered with approve / deny / edit / always allow.
// Plain ES module loaded by anywidget (no build step, no CDN). State lives in the model's
// traits; answers go to Python as custom messages, which validates them (schema check)
// and sets `error` (shown inline) or `status` (the card collapses to its record).

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function parseArgs(text) {
  try {
    const value = JSON.parse(text);
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      return { error: "arguments must be a JSON object" };
    }
    return { value };
  } catch (exc) {
    return { error: "invalid JSON: " + exc.message };
  }
}

// The schema check the card can do itself (required keys, basic JSON types); Python
// validates again against the tool's full schema before anything runs.
function schemaError(schema, args) {
  const props = (schema && schema.properties) || {};
  for (const key of (schema && schema.required) || []) {
    if (!(key in args)) return "missing required argument '" + key + "'";
  }
  const kinds = { string: "string", integer: "number", number: "number", boolean: "boolean" };
  for (const [key, value] of Object.entries(args)) {
    const spec = props[key];
    if (!spec) {
      if (schema && schema.additionalProperties === false) return "unknown argument '" + key + "'";
      continue;
    }
    const want = kinds[spec.type];
    if (want && typeof value !== want) return "'" + key + "' must be " + spec.type;
    if (spec.type === "integer" && !Number.isInteger(value)) return "'" + key + "' must be integer";
  }
  return "";
}

function render({ model, el: root }) {
  const card = el("div", "selectools-approval");
  card.tabIndex = 0;
  root.appendChild(card);

  function send(action, extra) {
    model.send(Object.assign({ action }, extra || {}));
  }

  function answer(action, scope) {
    if (action === "deny") {
      send("deny", { reason: card.querySelector(".sa-reason").value });
      return;
    }
    const text = card.querySelector(".sa-args").value;
    const parsed = parseArgs(text);
    const problem = parsed.error || schemaError(model.get("schema"), parsed.value);
    if (problem) {
      model.set("error", problem);
      model.save_changes();
      return;
    }
    const edited = text.trim() !== model.get("args_json").trim();
    send("approve", { args: edited ? parsed.value : null, scope: scope || "" });
  }

  function draw() {
    card.replaceChildren();
    const status = model.get("status");
    card.dataset.status = status;
    if (status !== "pending") {
      card.classList.add("sa-decided");
      card.appendChild(el("div", "sa-record", model.get("record")));
      return;
    }
    card.classList.remove("sa-decided");
    const head = el("div", "sa-head");
    head.appendChild(el("span", "sa-title", "Approve tool call: "));
    head.appendChild(el("code", "sa-tool", model.get("preview")));
    card.appendChild(head);
    card.appendChild(el("div", "sa-why", model.get("rule")));
    card.appendChild(
      el("div", "sa-usage", "run so far: " + model.get("tokens") + " tokens, $" +
        Number(model.get("cost_usd")).toFixed(6))
    );
    const args = el("textarea", "sa-args");
    args.value = model.get("args_json");
    args.rows = Math.min(12, args.value.split("\n").length + 1);
    args.spellcheck = false;
    card.appendChild(args);
    const error = el("div", "sa-error", model.get("error"));
    card.appendChild(error);
    const reason = el("input", "sa-reason");
    reason.placeholder = "reason for the model (optional, on deny)";
    card.appendChild(reason);
    const buttons = el("div", "sa-buttons");
    const add = (label, cls, fn) => {
      const b = el("button", "sa-btn " + cls, label);
      b.addEventListener("click", fn);
      buttons.appendChild(b);
    };
    add("Approve", "sa-approve", () => answer("approve"));
    add("Deny", "sa-deny", () => answer("deny"));
    add("Always allow (run)", "sa-allow-run", () => answer("approve", "run"));
    add("Always allow (notebook)", "sa-allow-notebook", () => answer("approve", "notebook"));
    card.appendChild(buttons);
    card.appendChild(el("div", "sa-keys", "Enter approves (with the arguments above), Esc denies"));
  }

  card.addEventListener("keydown", (event) => {
    if (model.get("status") !== "pending") return;
    const inArgs = event.target && event.target.classList.contains("sa-args");
    if (event.key === "Enter" && !(inArgs && !event.ctrlKey && !event.metaKey)) {
      event.preventDefault();
      event.stopPropagation();
      answer("approve");
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      answer("deny");
    }
  });

  model.on("change:status", draw);
  model.on("change:record", draw);
  model.on("change:error", () => {
    const node = card.querySelector(".sa-error");
    if (node) node.textContent = model.get("error");
  });
  draw();
  // tell Python a frontend really rendered this card (honest frontend detection)
  send("rendered");
}

export default { render };
