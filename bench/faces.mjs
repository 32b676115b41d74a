/**
 * Clients for the protocol faces of turnloop, as the benchmarks use them:
 * - {@link measureAcp}: `turnloop acp` (ACP v1, newline-delimited JSON-RPC on stdio), timed from
 *   spawn to `initialize` answered and to `session/prompt` answered, with every
 *   `agent_message_chunk` timed on arrival;
 * - `measureSdkServer` (bench/sdk-server.mjs): `turnloop --headless --stdio`, many sessions
 *   prompted at once; it uses the process helpers here.
 *
 * Both answer `{available: false, reason}` instead of throwing when the face does not work (not
 * built yet, or broken), so the benchmark suite can mark the figure as pending and go on.
 */

import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { binCommand } from "./bin.mjs";
import { spawnPeer } from "./child.mjs";
import { monotonicMilliseconds } from "./fake-model.mjs";

/**
 * Peak resident set size of a live process (`VmHWM` in /proc/<pid>/status), in bytes.
 * @param {number | undefined} pid
 * @returns {number} NaN when it cannot be read (process gone, no /proc).
 */
export function peakRssOfLiveProcess(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
    return match === null ? Number.NaN : Number(match[1]) * 1024;
  } catch {
    return Number.NaN;
  }
}

/**
 * Time a live process's main thread has spent on a CPU (`/proc/<pid>/task/<pid>/schedstat`), in
 * ms: the load-robust measure of its work on a machine shared with others.
 * @param {number | undefined} pid
 * @returns {number} NaN when it cannot be read.
 */
export function mainThreadOnCpuMilliseconds(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "latin1");
    return Number(text.split(" ")[0]) / 1e6;
  } catch {
    return Number.NaN;
  }
}

/**
 * Waits for a promise, or fails with `message` after `milliseconds`.
 * @template T
 * @param {Promise<T>} promise
 * @param {number} milliseconds
 * @param {string} message
 * @returns {Promise<T>}
 */
export function withTimeout(promise, milliseconds, message) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), milliseconds);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Ends a child we started: closes its stdin, then SIGTERM, then SIGKILL if it lingers.
 * @param {import("node:child_process").ChildProcess} child
 */
export async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise((resolve) => child.once("exit", () => resolve(undefined)));
  child.stdin?.end();
  const gentle = await Promise.race([
    exited.then(() => true),
    new Promise((resolve) => setTimeout(() => resolve(false), 1_000)),
  ]);
  if (!gentle) {
    child.kill("SIGTERM");
    const terminated = await Promise.race([
      exited.then(() => true),
      new Promise((resolve) => setTimeout(() => resolve(false), 1_000)),
    ]);
    if (!terminated) {
      child.kill("SIGKILL");
      await exited;
    }
  }
}

/**
 * The numbers of the numbered deltas (`w<N> `) in a piece of streamed text.
 * @param {string} text
 * @returns {number[]}
 */
export function deltaNumbers(text) {
  return [...text.matchAll(/w(\d+) /g)].map((match) => Number(match[1]));
}

/**
 * @typedef {object} AcpMeasurement
 * @property {true} available
 * @property {number} initializeMilliseconds Spawn → `initialize` answered.
 * @property {number} sessionMilliseconds Spawn → `session/new` answered.
 * @property {number} promptMilliseconds Spawn → `session/prompt` answered.
 * @property {string} stopReason
 * @property {number} peakRssBytes VmHWM of the agent just before it was stopped.
 * @property {Array<{number: number, at: number}>} chunks Numbered deltas seen in
 *   `agent_message_chunk` updates, with their arrival (monotonic ms).
 * @property {number} relayOnCpuMilliseconds The agent's main-thread time on a CPU from the first
 *   `agent_message_chunk` to the prompt's answer.
 */

/**
 * Runs one prompt through `turnloop acp` as an editor would: spawn (the `bin` itself, its shebang's
 * Node flags honoured: bench/bin.mjs), `initialize`, `session/new`, `session/prompt`; permission
 * requests are allowed once, other client calls are refused.
 * @param {{cliPath: string, cwd: string, env: NodeJS.ProcessEnv, prompt: string,
 *   timeoutMilliseconds?: number, nodeArguments?: string[]}} options `nodeArguments` go to node
 *   after the shebang's flags, before the CLI's path (e.g. `--cpu-prof`).
 * @returns {Promise<AcpMeasurement | {available: false, reason: string}>}
 */
export async function measureAcp(options) {
  const timeoutMilliseconds = options.timeoutMilliseconds ?? 30_000;
  const spawnedAt = monotonicMilliseconds();
  const { command, args } = binCommand(options.cliPath, ["acp"], options.nodeArguments);
  const { child, stderr } = spawnPeer(command, args, options);
  let nextId = 1;
  /** @type {Map<number, {resolve: (value: any) => void, reject: (error: Error) => void}>} */
  const pending = new Map();
  /** @type {Array<{number: number, at: number}>} */
  const chunks = [];
  let onCpuAtFirstChunk = Number.NaN;
  const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  void exited.then((code) => {
    for (const waiting of pending.values()) {
      waiting.reject(new Error(`turnloop acp exited with code ${code}: ${stderr().trim()}`));
    }
    pending.clear();
  });
  /** @param {object} message */
  const send = (message) =>
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  /** @param {string} method @param {object} params @returns {Promise<any>} */
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ id, method, params });
    });
  createInterface({ input: child.stdout }).on("line", (line) => {
    const at = monotonicMilliseconds();
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (message.method === "session/update") {
      const update = message.params?.update;
      if (update?.sessionUpdate === "agent_message_chunk" && update.content?.type === "text") {
        if (chunks.length === 0) {
          onCpuAtFirstChunk = mainThreadOnCpuMilliseconds(child.pid);
        }
        for (const number of deltaNumbers(update.content.text)) {
          chunks.push({ number, at });
        }
      }
      return;
    }
    if (message.method !== undefined && message.id !== undefined) {
      answerAgentRequest(message, send);
      return;
    }
    const waiting = pending.get(message.id);
    if (waiting !== undefined) {
      pending.delete(message.id);
      if (message.error !== undefined) {
        waiting.reject(new Error(`${message.error.code}: ${message.error.message}`));
      } else {
        waiting.resolve(message.result);
      }
    }
  });
  try {
    const work = (async () => {
      await request("initialize", {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: "turnloop-bench", version: "0.0.0" },
      });
      const initializeMilliseconds = monotonicMilliseconds() - spawnedAt;
      const created = await request("session/new", { cwd: options.cwd, mcpServers: [] });
      const sessionMilliseconds = monotonicMilliseconds() - spawnedAt;
      const answered = await request("session/prompt", {
        sessionId: created.sessionId,
        prompt: [{ type: "text", text: options.prompt }],
      });
      const promptMilliseconds = monotonicMilliseconds() - spawnedAt;
      const relayOnCpuMilliseconds = mainThreadOnCpuMilliseconds(child.pid) - onCpuAtFirstChunk;
      return {
        available: /** @type {const} */ (true),
        initializeMilliseconds,
        sessionMilliseconds,
        promptMilliseconds,
        stopReason: String(answered?.stopReason),
        peakRssBytes: peakRssOfLiveProcess(child.pid),
        chunks,
        relayOnCpuMilliseconds,
      };
    })();
    return await withTimeout(work, timeoutMilliseconds, "turnloop acp did not answer in time");
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { available: false, reason: oneLine(reason || stderr()) };
  } finally {
    await stopChild(child);
  }
}

/**
 * Answers a request the agent sends to the client: permissions are allowed once, anything else is
 * "method not found" (the benchmark client offers no fs or terminal).
 * @param {{id: number | string, method: string, params?: any}} message
 * @param {(message: object) => void} send
 */
function answerAgentRequest(message, send) {
  if (message.method === "session/request_permission") {
    const options = Array.isArray(message.params?.options) ? message.params.options : [];
    const allow = options.find((option) => option.kind === "allow_once") ?? options[0];
    send({
      id: message.id,
      result: {
        outcome:
          allow === undefined
            ? { outcome: "cancelled" }
            : { outcome: "selected", optionId: allow.optionId },
      },
    });
    return;
  }
  send({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
}

/** @param {string} text */
export function oneLine(text) {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 240 ? `${line.slice(0, 237)}...` : line;
}
