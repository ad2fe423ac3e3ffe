// The live run widget: the streamed transcript (HTML rendered by selectools' own escaping
// renderer), a status line and a Stop button that asks Python to cancel the run.

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "selectools-live-widget";
  const bar = document.createElement("div");
  bar.className = "slw-bar";
  const status = document.createElement("span");
  status.className = "slw-status";
  const stop = document.createElement("button");
  stop.className = "slw-stop";
  stop.textContent = "Stop";
  stop.addEventListener("click", () => {
    stop.disabled = true;
    model.send({ action: "stop" });
  });
  bar.append(stop, status);
  const body = document.createElement("div");
  body.className = "slw-body";
  root.append(bar, body);
  el.appendChild(root);

  function draw() {
    const state = model.get("status");
    status.textContent = state;
    root.dataset.status = state;
    stop.hidden = state !== "running";
    body.innerHTML = model.get("html");
  }
  model.on("change:html", draw);
  model.on("change:status", draw);
  draw();
}

export default { render };
