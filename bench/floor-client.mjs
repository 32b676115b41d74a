/**
 * The floor of the one-prompt run: the same HTTP requests turnloop made, sent by a tiny script.
 *
 *   node bench/floor-client.mjs <base URL> <bodies.json>
 *
 * `bodies.json` holds the request bodies (strings) recorded by the fake model server. Each is
 * POSTed with fetch to `<base URL>/chat/completions` in turn, and its SSE answer read to the end.
 */

import { readFileSync } from "node:fs";

const [baseUrl, bodiesPath] = process.argv.slice(2);
if (baseUrl === undefined || bodiesPath === undefined) {
  process.stderr.write("usage: node bench/floor-client.mjs <base URL> <bodies.json>\n");
  process.exit(64);
}
/** @type {string[]} */
const bodies = JSON.parse(readFileSync(bodiesPath, "utf8"));
let bytes = 0;
for (const body of bodies) {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  bytes += (await response.text()).length;
}
process.stdout.write(`${bytes}\n`);
