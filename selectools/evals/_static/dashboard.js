// The live eval dashboard: follows /events (Server-Sent Events) and redraws the table.
// Case names and failure messages are untrusted: they are only ever set as text.

const token = new URLSearchParams(location.search).get("token") || "";
const $ = (id) => document.getElementById(id);
const rows = new Map(); // case index -> <tr>
let total = 0;

function setStatus(state, text) {
  $("status").dataset.state = state;
  $("status").textContent = text;
}

function cell(tr, className, text) {
  const td = document.createElement("td");
  td.className = className;
  td.textContent = text;
  tr.append(td);
}

function showCase(c) {
  const tr = document.createElement("tr");
  tr.dataset.index = String(c.index);
  tr.dataset.verdict = c.verdict;
  cell(tr, "num", String(c.index + 1));
  cell(tr, "label", c.label);
  cell(tr, "verdict", c.verdict.toUpperCase());
  cell(tr, "num", c.verdict === "skip" ? "" : `${Math.round(c.latency_ms)} ms`);
  cell(tr, "why", c.why.join("\n"));
  const old = rows.get(c.index);
  if (old) {
    old.replaceWith(tr);
  } else {
    const next = [...rows.keys()].filter((i) => i > c.index).sort((a, b) => a - b)[0];
    $("cases").insertBefore(tr, next === undefined ? null : rows.get(next));
  }
  rows.set(c.index, tr);
}

function showCounts(counts, done) {
  for (const key of ["pass", "fail", "error", "skip"]) $(key).textContent = String(counts[key]);
  $("done").textContent = String(done);
  $("total").textContent = String(total);
  $("progress").max = Math.max(total, 1);
  $("progress").value = done;
}

function liveCounts() {
  const counts = { pass: 0, fail: 0, error: 0, skip: 0 };
  for (const tr of rows.values()) counts[tr.dataset.verdict] += 1;
  showCounts(counts, rows.size);
}

function start(event) {
  rows.clear();
  $("cases").replaceChildren();
  total = event.total;
  $("name").textContent = event.name;
  $("accuracy").textContent = "–";
  setStatus("running", `Running ${event.total} cases…`);
  liveCounts();
}

function end(event) {
  for (const c of event.cases) showCase(c); // final verdicts (snapshot failures included)
  showCounts(event, event.cases.length);
  const accuracy = `${(event.accuracy * 100).toFixed(1)}%`;
  $("accuracy").textContent = accuracy;
  const tally = `${event.pass} passed · ${event.fail} failed · ${event.error} errored · ${event.skip} skipped`;
  setStatus("done", `Done: ${tally} · accuracy ${accuracy}`);
}

const source = new EventSource(`events?token=${encodeURIComponent(token)}`);
source.addEventListener("start", (e) => start(JSON.parse(e.data)));
source.addEventListener("case", (e) => {
  showCase(JSON.parse(e.data));
  liveCounts();
});
source.addEventListener("end", (e) => end(JSON.parse(e.data)));
source.addEventListener("error", () => {
  if ($("status").dataset.state !== "done") setStatus("offline", "Not connected (retrying)…");
});
