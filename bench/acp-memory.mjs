/**
 * Issue 27 item 3: memory of `turnloop acp` for one huge prompt line, and for a line over the
 * message limit, measured from outside (`VmRSS`/`VmHWM` of /proc/<pid>/status).
 *
 * `node bench/acp-memory.mjs [--prompt-mb 50] [--dropped-mb 300] [--cli dist/cli/main.js]` (after
 * `npm run build`): for
 * each case a fresh agent is spawned as an editor starts it: the `bin` file itself
 * (`dist/cli/main.js acp`, executable, its shebang's `node --max-semi-space-size=2` honoured; a
 * file that is not executable runs under `node` with its shebang's flags: bench/bin.mjs), answers `initialize` and `session/new` (its idle
 * baseline is `VmRSS` then), then gets one line: a `session/prompt` whose text is N MB (answered
 * by the fake model with a short reply), or an N-MB line over the 128 MiB limit (dropped, its
 * request answered with an error). The figure is the peak (`VmHWM`) over the baseline, against
 * the targets: ≤ 4 × the prompt for a prompt, and within about twice the limit for a dropped
 * line (the README's bound). Prints one JSON object per case; a size of 0 leaves its case out.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { binCommand } from "./bin.mjs";
import { loadAverage } from "./child.mjs";
import { startFakeModelWorker } from "./fake-model.mjs";

const CLI_INDEX = process.argv.indexOf("--cli");
const CLI =
  CLI_INDEX === -1
    ? fileURLToPath(new URL("../dist/cli/main.js", import.meta.url))
    : resolve(String(process.argv[CLI_INDEX + 1]));
const MIB = 1024 * 1024;

function option(name, fallback) {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

/** `VmRSS` and `VmHWM` of a live process, in bytes. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1]) * 1024;
  return { rss: field("VmRSS"), peak: field("VmHWM") };
}

/** Writes `text` to the child's stdin in 1 MiB pieces, waiting for the pipe to drain. */
async function writeLarge(stream, text) {
  for (let start = 0; start < text.length; start += MIB) {
    if (!stream.write(text.slice(start, start + MIB))) {
      await new Promise((resolve) => stream.once("drain", resolve));
    }
  }
}

/** One agent, one huge line; resolves with the figures of the case. */
async function measure(name, lineFor, modelUrl) {
  const home = mkdtempSync(join(tmpdir(), "turnloop-bench-memory-"));
  const { command, args } = binCommand(CLI, ["acp"]);
  const agent = spawn(command, args, {
    cwd: home,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      TURNLOOP_HOME: home,
      TURNLOOP_MODEL: "openai-compatible:fake-model",
      TURNLOOP_BASE_URL: modelUrl,
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const answers = new Map();
  const waiting = new Map();
  createInterface({ input: agent.stdout }).on("line", (line) => {
    const message = JSON.parse(line);
    if (message.id === undefined || message.method !== undefined) {
      return;
    }
    const deliver = waiting.get(message.id);
    waiting.delete(message.id);
    if (deliver === undefined) {
      answers.set(message.id, message);
    } else {
      deliver(message);
    }
  });
  const exited = new Promise((_, reject) =>
    agent.once("close", (code) => reject(new Error(`the agent exited (${code}) in case ${name}`))),
  );
  exited.catch(() => undefined);
  const answer = (id) =>
    answers.has(id)
      ? Promise.resolve(answers.get(id))
      : Promise.race([exited, new Promise((done) => waiting.set(id, done))]);
  const send = (id, method, params) =>
    agent.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  try {
    send(1, "initialize", { protocolVersion: 1, clientCapabilities: {} });
    await answer(1);
    send(2, "session/new", { cwd: home, mcpServers: [] });
    const { result } = await answer(2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const idle = memoryOf(agent.pid);
    const line = lineFor(result.sessionId);
    await writeLarge(agent.stdin, `${line}\n`);
    const reply = await answer(3);
    const after = memoryOf(agent.pid);
    return {
      case: name,
      lineMiB: +(Buffer.byteLength(line) / MIB).toFixed(1),
      answer: reply.error === undefined ? reply.result : { error: reply.error.message },
      idleRssMiB: +(idle.rss / MIB).toFixed(1),
      peakMiB: +(after.peak / MIB).toFixed(1),
      peakOverIdleMiB: +((after.peak - idle.rss) / MIB).toFixed(1),
      peakOverIdleTimesLine: +((after.peak - idle.rss) / Buffer.byteLength(line)).toFixed(2),
    };
  } finally {
    agent.stdin.end();
    await new Promise((resolve) => agent.once("close", resolve));
    rmSync(home, { recursive: true, force: true });
  }
}

const promptBytes = option("--prompt-mb", 50) * 1000 * 1000;
const droppedBytes = option("--dropped-mb", 300) * 1000 * 1000;
const model = await startFakeModelWorker({});
try {
  const load = loadAverage();
  const prompt = (sessionId) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "session/prompt",
      params: { sessionId, prompt: [{ type: "text", text: "x".repeat(promptBytes) }] },
    });
  if (promptBytes > 0) {
    console.log(JSON.stringify({ ...(await measure("prompt", prompt, model.baseUrl)), load }));
  }
  const dropped = () =>
    `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"text":"${"y".repeat(droppedBytes)}"}}`;
  if (droppedBytes > 0) {
    console.log(JSON.stringify({ ...(await measure("dropped", dropped, model.baseUrl)), load }));
  }
} finally {
  await model.close();
}
