/**
 * Clients for the protocol faces of turnloop, as the benchmarks use them:
 * - {@link measureAcp}: `turnloop acp` (ACP v1, newline-delimited JSON-RPC on stdio), timed from
 *   spawn to `initialize` answered and to `session/prompt` answered, with every
 *   `agent_message_chunk` timed on arrival;
 * - {@link measureSdkServer}: `turnloop --headless --stdio` (Copilot-compatible JSON-RPC with
 *   `Content-Length` framing), many sessions prompted at once.
 *
 * Both answer `{available: false, reason}` instead of throwing when the face does not work (not
 * built yet, or broken), so the benchmark suite can mark the figure as pending and go on.
 */

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { binCommand } from "./bin.mjs";
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
function withTimeout(promise, milliseconds, message) {
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
async function stopChild(child) {
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
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text) => {
    stderr += text;
  });
  child.stdin.on("error", () => undefined);
  let nextId = 1;
  /** @type {Map<number, {resolve: (value: any) => void, reject: (error: Error) => void}>} */
  const pending = new Map();
  /** @type {Array<{number: number, at: number}>} */
  const chunks = [];
  let onCpuAtFirstChunk = Number.NaN;
  const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  void exited.then((code) => {
    for (const waiting of pending.values()) {
      waiting.reject(new Error(`turnloop acp exited with code ${code}: ${stderr.trim()}`));
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
    return { available: false, reason: oneLine(reason || stderr) };
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
function oneLine(text) {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 240 ? `${line.slice(0, 237)}...` : line;
}

/**
 * @typedef {object} SdkServerMeasurement
 * @property {true} available
 * @property {number} connectMilliseconds Spawn → `connect` (or `ping`) answered.
 * @property {number} allIdleMilliseconds First `session.send` → every session idle.
 * @property {number} sendOnCpuMilliseconds The server's main thread's time on a CPU over that span
 *   (schedstat): the work of every turn, without the waiting for a CPU.
 * @property {number} peakRssBytes VmHWM of the server when every session was idle.
 * @property {{exited: false} | {exited: true, exitCode: number | null, milliseconds: number}} shutdown
 *   Whether the server exited by itself within {@link SERVER_SHUTDOWN_PATIENCE} of its input
 *   ending (it closes every session first), its exit code and how long it took.
 * @property {Map<string, Array<{start: number, running: number, complete: number}>>} toolsBySession
 *   Tool calls per session id, in order: `tool.execution_start`, `tool.execution_running` (NaN
 *   when not seen) and `tool.execution_complete`, timed by the events' own timestamps (ms), or by
 *   arrival when absent; use only differences.
 * @property {Map<string, string>} promptBySession The prompt sent to each session.
 */

/** How long the server may take to close its sessions and exit once its input ends. */
const SERVER_SHUTDOWN_PATIENCE = 120_000;

/**
 * Starts `node <cliPath> --headless --stdio` as an SDK app does (without the bin's first line's
 * Node flags), creates `sessions` sessions and sends each one prompt at the same time, waits until
 * every session is idle, then ends the server's input and waits for it to exit by itself.
 * @param {{cliPath: string, cwd: string, env: NodeJS.ProcessEnv, model: string, prompt: string,
 *   sessions: number, timeoutMilliseconds?: number, nodeArguments?: string[],
 *   onEvent?: (sessionId: string, event: any) => void}}
 *   options `onEvent` sees every `session.event` notification's event, in arrival order;
 *   `nodeArguments` go to node before `cliPath` (e.g. the bin's `--max-semi-space-size=2`).
 * @returns {Promise<SdkServerMeasurement | {available: false, reason: string}>}
 */
export async function measureSdkServer(options) {
  const timeoutMilliseconds = options.timeoutMilliseconds ?? 120_000;
  const rpc = await import("vscode-jsonrpc/node.js");
  const spawnedAt = monotonicMilliseconds();
  // As an SDK app starts it (src/sdk/transport.ts `spawnServer`; the Copilot SDK likewise runs a
  // `.js` path with `node`): `node <cliPath> --headless --stdio`, so the bin's first line and its
  // Node flags do not apply. `nodeArguments` add flags to measure another start.
  const command = process.execPath;
  const args = [...(options.nodeArguments ?? []), options.cliPath, "--headless", "--stdio"];
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text) => {
    stderr += text;
  });
  child.stdin.on("error", () => undefined);
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(child.stdout),
    new rpc.StreamMessageWriter(child.stdin),
  );
  /** @type {Map<string, Array<{start: number, running: number, complete: number, toolCallId: string}>>} */
  const toolsBySession = new Map();
  /** @type {Map<string, () => void>} */
  const idleWaiters = new Map();
  connection.onNotification("session.event", (params) => {
    const arrivedAt = monotonicMilliseconds();
    const sessionId = String(params?.sessionId);
    const event = params?.event;
    // The agent's own timestamp (ms resolution) is the tool's real time; arrival times of the
    // notifications can be delayed by the server's busy loop. Arrival is the fallback.
    const stamped = Date.parse(event?.timestamp ?? "");
    const at = Number.isFinite(stamped) ? stamped : arrivedAt;
    options.onEvent?.(sessionId, event);
    const tools = toolsBySession.get(sessionId) ?? [];
    toolsBySession.set(sessionId, tools);
    if (event?.type === "tool.execution_start") {
      tools.push({
        toolCallId: event.data?.toolCallId,
        start: at,
        running: Number.NaN,
        complete: Number.NaN,
      });
    } else if (event?.type === "tool.execution_running") {
      const tool = tools.find((candidate) => candidate.toolCallId === event.data?.toolCallId);
      if (tool !== undefined) {
        tool.running = at;
      }
    } else if (event?.type === "tool.execution_complete") {
      const tool = tools.find((candidate) => candidate.toolCallId === event.data?.toolCallId);
      if (tool !== undefined) {
        tool.complete = at;
      }
    } else if (event?.type === "session.idle") {
      idleWaiters.get(sessionId)?.();
    }
  });
  connection.onRequest(() => {
    throw new rpc.ResponseError(-32601, "the benchmark client handles no requests");
  });
  const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  connection.listen();
  try {
    const work = (async () => {
      const failed = exited.then((code) => {
        throw new Error(`turnloop --headless exited with code ${code}: ${stderr.trim()}`);
      });
      failed.catch(() => undefined);
      const call = (method, params) =>
        Promise.race([connection.sendRequest(method, params), failed]);
      try {
        await call("connect", {});
      } catch (error) {
        if (!(error instanceof rpc.ResponseError) || error.code !== -32601) {
          throw error;
        }
        await call("ping", {});
      }
      const connectMilliseconds = monotonicMilliseconds() - spawnedAt;
      /** @type {Map<string, string>} */
      const promptBySession = new Map();
      const sessionIds = [];
      for (let index = 0; index < options.sessions; index++) {
        const created = await call("session.create", {
          model: options.model,
          workingDirectory: options.cwd,
          streaming: true,
          requestPermission: false,
        });
        sessionIds.push(String(created.sessionId));
      }
      const sentAt = monotonicMilliseconds();
      const onCpuAtSend = mainThreadOnCpuMilliseconds(child.pid);
      const idle = sessionIds.map(
        (sessionId) =>
          new Promise((resolve) => {
            idleWaiters.set(sessionId, () => resolve(undefined));
          }),
      );
      await Promise.all(
        sessionIds.map((sessionId, index) => {
          const prompt = `${options.prompt} (session ${index + 1})`;
          promptBySession.set(sessionId, prompt);
          return call("session.send", { sessionId, prompt });
        }),
      );
      await Promise.race([Promise.all(idle), failed]);
      const allIdleMilliseconds = monotonicMilliseconds() - sentAt;
      const sendOnCpuMilliseconds = mainThreadOnCpuMilliseconds(child.pid) - onCpuAtSend;
      const peakRssBytes = peakRssOfLiveProcess(child.pid);
      // The server ends when its input does, after closing every session (each log's last event
      // is then its `session.shutdown`): wait for that rather than kill it halfway through.
      const endedAt = monotonicMilliseconds();
      child.stdin.end();
      let patience;
      const exitCode = await Promise.race([
        exited,
        new Promise((resolve) => {
          patience = setTimeout(() => resolve(undefined), SERVER_SHUTDOWN_PATIENCE);
        }),
      ]).finally(() => clearTimeout(patience));
      return {
        available: /** @type {const} */ (true),
        connectMilliseconds,
        allIdleMilliseconds,
        sendOnCpuMilliseconds,
        peakRssBytes,
        shutdown:
          exitCode === undefined
            ? { exited: false }
            : { exited: true, exitCode, milliseconds: monotonicMilliseconds() - endedAt },
        toolsBySession,
        promptBySession,
      };
    })();
    return await withTimeout(
      work,
      timeoutMilliseconds,
      "turnloop --headless did not answer in time",
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { available: false, reason: oneLine(reason || stderr) };
  } finally {
    connection.dispose();
    await stopChild(child);
  }
}
