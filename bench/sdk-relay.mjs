/**
 * The streaming relay as an app sees it: turnloop's own SDK (`dist/sdk`, which spawns
 * `turnloop --headless --stdio`), one session, one prompt, every `assistant.message_delta` timed
 * on arrival at the app, and the server's main-thread CPU over the relay (for a per-CPU-second
 * figure that holds on a loaded machine).
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { deltaNumbers, mainThreadOnCpuMilliseconds } from "./faces.mjs";
import { monotonicMilliseconds } from "./fake-model.mjs";

/**
 * @typedef {object} SdkRelayMeasurement
 * @property {true} available
 * @property {Array<{number: number, at: number}>} chunks Numbered deltas seen in
 *   `assistant.message_delta` events, with their arrival (monotonic ms).
 * @property {number} relayOnCpuMilliseconds The server's main-thread time on a CPU from the first
 *   delta's arrival to `session.idle`.
 * @property {number} eventCount Every session event the app saw.
 */

/**
 * Runs one prompt through the SDK and times its deltas.
 * @param {{dist: string, cliPath: string, cwd: string, env: NodeJS.ProcessEnv, model: string,
 *   prompt: string, timeoutMilliseconds?: number}} options
 * @returns {Promise<SdkRelayMeasurement | {available: false, reason: string}>}
 */
export async function measureSdkRelay(options) {
  const { TurnloopClient } = await import(pathToFileURL(join(options.dist, "sdk/index.js")).href);
  const client = new TurnloopClient({
    cliPath: options.cliPath,
    cwd: options.cwd,
    env: options.env,
  });
  try {
    const session = await client.createSession({ model: options.model, streaming: true });
    const server = serverPid();
    /** @type {Array<{number: number, at: number}>} */
    const chunks = [];
    let eventCount = 0;
    let onCpuAtFirst = Number.NaN;
    session.on((event) => {
      eventCount++;
      if (event.type !== "assistant.message_delta") {
        return;
      }
      const at = monotonicMilliseconds();
      if (chunks.length === 0) {
        onCpuAtFirst = mainThreadOnCpuMilliseconds(server);
      }
      for (const number of deltaNumbers(event.data.deltaContent)) {
        chunks.push({ number, at });
      }
    });
    await session.sendAndWait({ prompt: options.prompt }, options.timeoutMilliseconds ?? 120_000);
    const relayOnCpuMilliseconds = mainThreadOnCpuMilliseconds(server) - onCpuAtFirst;
    return { available: /** @type {const} */ (true), chunks, relayOnCpuMilliseconds, eventCount };
  } catch (error) {
    return { available: false, reason: error instanceof Error ? error.message : String(error) };
  } finally {
    await client.stop();
  }
}

/**
 * The pid of the server the SDK spawned: this process's one child running `--headless`.
 * @returns {number | undefined}
 */
function serverPid() {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (
        parent === process.pid &&
        readFileSync(`/proc/${entry}/cmdline`, "latin1").includes("--headless")
      ) {
        return Number(entry);
      }
    } catch {
      // A process that ended while we looked.
    }
  }
  return undefined;
}
