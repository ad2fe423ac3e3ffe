// The page's backend: the builder's HTTP API (see the builder contract) behind the
// object `mountBuilder` expects. Runs and file watching are SSE over POST, read from
// the fetch body, so a request can carry a workflow and be cancelled with an AbortSignal.

import { sseData } from "./sse.js";

export const NEEDS_SERVER = "needs the builder server: run `selectools serve --builder`";

/** A failed backend call: `message`, and the server's `code` and `line` when it sent them. */
export class BackendError extends Error {
  constructor(message, { code = "", line = null, status = 0 } = {}) {
    super(message);
    this.code = code;
    this.line = line;
    this.status = status;
  }
}

async function failure(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    /* not JSON: the status says enough */
  }
  const err = (body && body.error) || {};
  return new BackendError(err.message || `the server answered ${response.status}`, {
    code: err.code || "",
    line: err.line ?? null,
    status: response.status,
  });
}

/** Feed each event of an SSE body to `onEvent` (parsed JSON) until `[DONE]`; malformed events are skipped. */
export async function readEventStream(response, onEvent) {
  for await (const data of sseData(response)) {
    if (data === "[DONE]") return;
    let event;
    try {
      event = JSON.parse(data);
    } catch {
      continue;
    }
    onEvent(event);
  }
}

/** The HTTP backend for a page served by `selectools serve --builder` (same origin, cookie session). */
export function httpBackend(base = "/builder/api") {
  const call = async (method, path, body, signal) => {
    const response = await fetch(`${base}${path}`, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
    if (!response.ok) throw await failure(response);
    return response;
  };
  const json = async (method, path, body) => (await call(method, path, body)).json();
  const stream = async (path, body, onEvent, signal) => {
    const response = await call("POST", path, body, signal);
    try {
      await readEventStream(response, onEvent);
    } catch (exc) {
      if (exc.name !== "AbortError") throw exc;
    }
  };
  return {
    kind: "server",
    health: async () => {
      const info = await json("GET", "/health");
      if (!info || info.backend !== true) throw new BackendError("no builder backend here");
      return info;
    },
    code: (workflow) => json("POST", "/code", { workflow }),
    importText: async (text, format = "auto") => (await json("POST", "/import", { text, format })).workflow,
    run: (req, onEvent, signal) => stream("/run", req, onEvent, signal),
    resume: (req) => json("POST", "/resume", req),
    templates: () => json("GET", "/templates"),
    template: (name) => json("GET", `/templates/${encodeURIComponent(name)}`),
    example: () => json("GET", "/example"),
    generate: (description) => json("POST", "/generate", { description }),
    copilot: (workflow, instruction) => json("POST", "/copilot", { workflow, instruction }),
    watch: (path, onEvent, signal) => stream("/watch", { path }, onEvent, signal),
    trace: (traceJson) => json("POST", "/trace", { trace_json: traceJson }),
  };
}
