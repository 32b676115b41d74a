/**
 * The floor of the one-prompt run: the same HTTP requests turnloop made, sent by a tiny script.
 *
 *   node bench/floor-client.mjs <base URL> <bodies.json> [--fetch]
 *
 * `bodies.json` holds the request bodies (strings) recorded by the fake model server. Each is
 * POSTed to `<base URL>/chat/completions` in turn and its SSE answer read to the end, over one
 * kept-alive connection: with `node:http`, as turnloop sends model requests (src/llm/http-fetch.ts)
 * and as the cheapest correct client does; with `--fetch`, through Node's global `fetch` (undici,
 * which costs about 100 ms of CPU and 40 MiB more: an information row, not the floor).
 * Prints the number of characters read.
 */

import { readFileSync } from "node:fs";

const [baseUrl, bodiesPath, mode] = process.argv.slice(2);
if (baseUrl === undefined || bodiesPath === undefined || (mode ?? "--fetch") !== "--fetch") {
  process.stderr.write("usage: node bench/floor-client.mjs <base URL> <bodies.json> [--fetch]\n");
  process.exit(64);
}
/** @type {string[]} */
const bodies = JSON.parse(readFileSync(bodiesPath, "utf8"));
const url = `${baseUrl}/chat/completions`;
const { post, close } =
  mode === "--fetch" ? { post: postWithFetch, close() {} } : await httpClient();
let characters = 0;
for (const body of bodies) {
  characters += (await post(body)).length;
}
close();
process.stdout.write(`${characters}\n`);

/** @param {string} body @returns {Promise<string>} */
async function postWithFetch(body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  return response.text();
}

/** POSTs through `node:http` (or `node:https`) with a keep-alive agent, as fetch keeps alive. */
async function httpClient() {
  const http = url.startsWith("https:") ? await import("node:https") : await import("node:http");
  const agent = new http.Agent({ keepAlive: true });
  /** @param {string} body @returns {Promise<string>} */
  const post = (body) =>
    new Promise((resolve, reject) => {
      const request = http.request(url, {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        },
      });
      request.once("error", reject);
      request.once("response", (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => {
          text += chunk;
        });
        response.once("error", reject);
        response.once("end", () => resolve(text));
      });
      request.end(body);
    });
  return { post, close: () => agent.destroy() };
}
