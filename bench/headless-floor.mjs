/**
 * The floor of figure 7d: the same sessions' chains of model requests made by as many tiny loops
 * at once in one Node process, through `node:http` (Node's global agent, as turnloop's provider
 * transport uses), with no tools, no log and no client. Each loop POSTs its request, reads the SSE
 * answer to its end, and when the answer is a `view` call sends the next request at once with the
 * call and a fixed result appended. What its per-turn gaps (response end → next request) show is
 * the queueing any one-threaded client of this many sessions has against the same fake model.
 *
 *   node bench/headless-floor.mjs <options.json>
 *
 * `options.json`: `{baseUrl, sessions, prompt, firstBody?}`. `firstBody` is a request body
 * turnloop sent (the fake model's first recorded one: system prompt, tools, first user message);
 * each loop sends it with its own prompt `<prompt> (session N)` as that message, as bench/
 * sdk-server.mjs prompts session N, so the requests are the size turnloop's are. Without it, a
 * minimal body offering one `view` tool. Prints one JSON line: requests made, the process's
 * CPU time (user + system, ms) from the first request to the last answer, and each turn's gap
 * inside this process (ms, monotonic clock): from its answer's end read and parsed to the next
 * request sent, as 7d's gap inside the server (`assistant.message` → next `assistant.turn_start`).
 * `measureHeadlessFloor` runs this script as a child process and answers the gaps from the fake
 * model's own stamps beside them.
 */

import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The one tool of the minimal body: the fake model answers a request offering none with text. */
const VIEW_TOOL = {
  type: "function",
  function: {
    name: "view",
    description: "Reads a file.",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
};

/** Milliseconds on the monotonic clock. @returns {number} */
function now() {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * POSTs `body` and reads the answer to its end.
 * @param {URL} url @param {string} body @returns {Promise<string>}
 */
export function post(url, body) {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
    });
    outgoing.on("error", reject);
    outgoing.on("response", (incoming) => {
      let text = "";
      incoming.setEncoding("utf8");
      incoming.on("data", (chunk) => {
        text += chunk;
      });
      incoming.on("end", () => resolve(text));
      incoming.on("error", reject);
    });
    outgoing.end(body);
  });
}

/**
 * The assistant's `view` call `callId` of `notes.md` and its fixed result, as the history holds them.
 * @param {string} callId @returns {object[]}
 */
export function viewCallMessages(callId) {
  return [
    {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: callId,
          type: "function",
          function: { name: "view", arguments: '{"path":"notes.md"}' },
        },
      ],
    },
    { role: "tool", tool_call_id: callId, content: "1. # Notes\n2." },
  ];
}

/**
 * One session's loop: request, answer, and again while the answer is a `view` call.
 * @param {URL} url @param {any} first The first request's parsed body.
 * @param {number[]} gaps Receives each turn's gap in this process (answer parsed → next sent, ms).
 */
async function loop(url, first, gaps) {
  const body = { ...first, messages: [...first.messages], stream: true };
  let requests = 0;
  let answeredAt = Number.NaN;
  for (;;) {
    const json = JSON.stringify(body);
    if (Number.isFinite(answeredAt)) {
      gaps.push(now() - answeredAt);
    }
    const text = await post(url, json);
    requests += 1;
    const callId = /"id":"(call_[^"]+)"/.exec(text)?.[1];
    answeredAt = now();
    if (callId === undefined) {
      return requests;
    }
    body.messages.push(...viewCallMessages(callId));
  }
}

/** @param {{baseUrl: string, sessions: number, prompt: string, firstBody?: string}} options */
async function runLoops(options) {
  const url = new URL(`${options.baseUrl}/chat/completions`);
  const template =
    options.firstBody === undefined
      ? { model: "bench-model", messages: [{ role: "user", content: "" }], tools: [VIEW_TOOL] }
      : JSON.parse(options.firstBody);
  const userAt = template.messages.findIndex((message) => message.role === "user");
  const bodies = Array.from({ length: options.sessions }, (_, index) => {
    const messages = [...template.messages];
    messages[userAt] = { role: "user", content: `${options.prompt} (session ${index + 1})` };
    return { ...template, messages };
  });
  const cpuBefore = process.cpuUsage();
  /** @type {number[]} */
  const gapsInClient = [];
  const counts = await Promise.all(bodies.map((body) => loop(url, body, gapsInClient)));
  const cpu = process.cpuUsage(cpuBefore);
  return {
    requests: counts.reduce((sum, count) => sum + count, 0),
    cpuMilliseconds: (cpu.user + cpu.system) / 1e3,
    gapsInClient,
  };
}

/**
 * Runs the floor in a child process against the fake model `model` (reset first, so its records
 * are the floor's alone) and answers each turn's gap: for each session, the next request's
 * arrival minus the previous answer's end, by the fake model's stamps.
 * @param {{model: {baseUrl: string, reset: () => Promise<void>, requests: () => Promise<any[]>},
 *   sessions: number, prompt: string, firstBody?: string, temp: string, env: NodeJS.ProcessEnv}} options
 * @returns {Promise<{gaps: number[], gapsInClient: number[], requests: number,
 *   cpuMilliseconds: number}>} `gapsInClient`: each turn's gap inside the loops' process (see
 *   the file comment).
 */
export async function measureHeadlessFloor(options) {
  await options.model.reset();
  const optionsFile = join(options.temp, "headless-floor.json");
  writeFileSync(
    optionsFile,
    JSON.stringify({
      baseUrl: options.model.baseUrl,
      sessions: options.sessions,
      prompt: options.prompt,
      ...(options.firstBody === undefined ? {} : { firstBody: options.firstBody }),
    }),
  );
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), optionsFile], {
    env: options.env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  const code = await new Promise((resolve) => child.once("exit", resolve));
  if (code !== 0) {
    throw new Error(`bench/headless-floor.mjs exited with code ${code}`);
  }
  const result = JSON.parse(stdout);
  /** @type {Map<string, any[]>} */
  const byKey = new Map();
  for (const record of await options.model.requests()) {
    const list = byKey.get(record.key) ?? [];
    list.push(record);
    byKey.set(record.key, list);
  }
  const gaps = [];
  for (const list of byKey.values()) {
    list.sort((a, b) => a.index - b.index);
    for (let turn = 0; turn + 1 < list.length; turn++) {
      gaps.push(list[turn + 1].receivedAt - list[turn].finishedAt);
    }
  }
  return {
    gaps,
    gapsInClient: result.gapsInClient,
    requests: result.requests,
    cpuMilliseconds: result.cpuMilliseconds,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const options = JSON.parse(readFileSync(String(process.argv[2]), "utf8"));
  process.stdout.write(`${JSON.stringify(await runLoops(options))}\n`);
}
