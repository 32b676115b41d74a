/**
 * The SDK client of figure 7d: `turnloop --headless --stdio` (Copilot-compatible JSON-RPC with
 * `Content-Length` framing) started as an SDK app starts it, many sessions prompted at once, then
 * its input ended and its own exit awaited. Answers `{available: false, reason}` instead of
 * throwing when the face does not work, as bench/faces.mjs's clients do.
 */

import { spawnPeer } from "./child.mjs";
import {
  mainThreadOnCpuMilliseconds,
  oneLine,
  peakRssOfLiveProcess,
  stopChild,
  withTimeout,
} from "./faces.mjs";
import { monotonicMilliseconds } from "./fake-model.mjs";

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
 *   onEvent?: (sessionId: string, event: any) => void, beforeSend?: () => Promise<void>}}
 *   options `onEvent` sees every `session.event` notification's event, in arrival order;
 *   `beforeSend` is awaited once every session is created, before the first `session.send`;
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
  // `TURNLOOP_BENCH_SERVER_PREFIX` (words split at blanks) runs the server under another command,
  // which must end by running node in the same process (e.g. `setarch -R valgrind
  // --tool=callgrind`, for instruction counts of the server alone; bench/notes/fleet26.md).
  const prefix = (process.env.TURNLOOP_BENCH_SERVER_PREFIX ?? "").split(/\s+/).filter(Boolean);
  const nodeArgs = [...(options.nodeArguments ?? []), options.cliPath, "--headless", "--stdio"];
  const command = prefix[0] ?? process.execPath;
  const args = prefix.length === 0 ? nodeArgs : [...prefix.slice(1), process.execPath, ...nodeArgs];
  const { child, stderr } = spawnPeer(command, args, options);
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
        throw new Error(`turnloop --headless exited with code ${code}: ${stderr().trim()}`);
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
      // Several servers measured together send at once (bench/notes/server42-split.mjs).
      await options.beforeSend?.();
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
    return { available: false, reason: oneLine(reason || stderr()) };
  } finally {
    connection.dispose();
    await stopChild(child);
  }
}
