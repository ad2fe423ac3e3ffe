// The page's entry point. Served by `selectools serve --builder` it talks to the server's API;
// served by a static host (no API: the health check fails) it switches to serverless mode. With
// `?embed=1&graph=...` it shows only the chat (embed.js). The canvas is saved in localStorage
// after each edit, so a reload (or a closed tab) loses nothing.

import { httpBackend } from "./backend.js";
import { debounce } from "./dom.js";
import { mountBuilder } from "./canvas.js";
import { mountEmbed } from "./embed.js";
import { serverlessBackend } from "./serverless.js";

async function chooseBackend() {
  const http = httpBackend();
  try {
    await http.health();
    return http;
  } catch (exc) {
    if (exc.status === 401) {
      location.assign("/login"); // a builder server whose session ended: sign in again
      return new Promise(() => {});
    }
    return serverlessBackend(); // no builder API here: a static host
  }
}

const params = new URLSearchParams(location.search);
const root = document.getElementById("builder");
const backend = await chooseBackend();
if (params.get("embed") === "1") mountEmbed(root, backend, params.get("graph"));
else {
  const AUTOSAVE = "selectools.builder.autosave.v1";
  let saved;
  try {
    saved = JSON.parse(localStorage.getItem(AUTOSAVE) || "null") || undefined;
  } catch {
    saved = undefined;
  }
  const autosave = debounce((doc) => {
    try {
      localStorage.setItem(AUTOSAVE, JSON.stringify(doc));
    } catch {
      /* storage full or disabled: the canvas still works, unsaved */
    }
  }, 300);
  let builder;
  try {
    builder = mountBuilder(root, backend, { document: saved, onChange: autosave, globalKeys: true, embedBase: `${location.origin}${location.pathname}` });
  } catch {
    builder = mountBuilder(root, backend, { onChange: autosave, globalKeys: true, embedBase: `${location.origin}${location.pathname}` });
  }
  globalThis.selectoolsBuilder = builder; // for the browser tests and the devtools console
}
