// The page's entry point. Served by `selectools serve --builder` it talks to the server's API;
// served by a static host (no API: the health check fails) it switches to serverless mode. With
// `?embed=1&graph=...` it shows only the chat (embed.js).

import { httpBackend } from "./backend.js";
import { mountBuilder } from "./canvas.js";
import { mountEmbed } from "./embed.js";
import { serverlessBackend } from "./serverless.js";

async function chooseBackend() {
  const http = httpBackend();
  try {
    await http.health();
    return http;
  } catch {
    return serverlessBackend();
  }
}

const params = new URLSearchParams(location.search);
const root = document.getElementById("builder");
const backend = await chooseBackend();
if (params.get("embed") === "1") mountEmbed(root, backend, params.get("graph"));
else {
  const builder = mountBuilder(root, backend, { globalKeys: true, embedBase: `${location.origin}${location.pathname}` });
  globalThis.selectoolsBuilder = builder; // for the browser tests and the devtools console
}
