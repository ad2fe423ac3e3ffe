// Run history, kept in the browser's localStorage so it survives a reload: every run with its
// prompt, result and events, searchable and exportable as JSONL. Bounded (runs and bytes) so a
// long session cannot fill the storage quota; the oldest runs go first.

const KEY = "selectools.builder.history.v1";
const MAX_RUNS = 50;
const MAX_BYTES = 1_500_000;

export function loadHistory() {
  try {
    const runs = JSON.parse(localStorage.getItem(KEY) || "[]");
    return Array.isArray(runs) ? runs : [];
  } catch {
    return [];
  }
}

/** Store `run` first in the history; returns the history as kept. */
export function saveRun(run) {
  const runs = [run, ...loadHistory().filter((r) => r.id !== run.id)].slice(0, MAX_RUNS);
  let text = JSON.stringify(runs);
  while (text.length > MAX_BYTES && runs.length > 1) {
    runs.pop();
    text = JSON.stringify(runs);
  }
  try {
    localStorage.setItem(KEY, text);
  } catch {
    /* storage full or disabled (private mode): the history lives for this page only */
  }
  return runs;
}

export function clearHistory() {
  try {
    localStorage.removeItem(KEY);
  } catch {
    /* nothing stored */
  }
}

/** Runs whose prompt, result, error, workflow name, status or kind contain `query` (case-insensitive). */
export function searchHistory(runs, query) {
  const q = query.trim().toLowerCase();
  if (!q) return runs;
  return runs.filter((r) => [r.prompt, r.result, r.error, r.workflow?.name, r.status, r.kind].some((v) => String(v || "").toLowerCase().includes(q)));
}

export function historyJsonl(runs) {
  return runs.map((r) => JSON.stringify(r)).join("\n") + (runs.length ? "\n" : "");
}
