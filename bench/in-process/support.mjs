import { openSync, readSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { BENCH_MODEL, BENCH_PROMPT } from "../scenario.mjs";

/** Monotonic ms, the clock of fake-model.mjs (kept here so that `import` and `rss-breakdown` load nothing more). */
export function monotonicMilliseconds() {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * Starts the fake model in a child process, so that neither its CPU nor its memory counts in this
 * process (imported on use, for the same reason as above).
 * @param {import("../fake-model.mjs").FakeModelOptions} options
 */
export async function startFakeModelElsewhere(options) {
  const { startFakeModelProcess } = await import("../fake-model.mjs");
  return startFakeModelProcess(options);
}

/**
 * Imports a compiled module of turnloop.
 * @param {string} dist Absolute path of `dist/`.
 * @param {string} path Module path inside `dist/`, e.g. `session/session.js`.
 */
export function importDist(dist, path) {
  return import(pathToFileURL(join(dist, path)).href);
}

/**
 * The main thread's scheduler times from /proc (`schedstat`): time on a CPU and time spent
 * runnable but waiting for one, in ms. On a busy machine the second one is the time lost to others.
 * @returns {{onCpu: number, waiting: number}}
 */
export function mainThreadSchedule() {
  try {
    scheduleFile ??= openSync(`/proc/self/task/${process.pid}/schedstat`, "r");
    const length = readSync(scheduleFile, scheduleBuffer, 0, scheduleBuffer.length, 0);
    const [onCpu, waiting] = scheduleBuffer.toString("latin1", 0, length).split(" ").map(Number);
    return { onCpu: (onCpu ?? Number.NaN) / 1e6, waiting: (waiting ?? Number.NaN) / 1e6 };
  } catch {
    return { onCpu: Number.NaN, waiting: Number.NaN };
  }
}

/** Kept open: a positioned read of /proc costs a few microseconds, an open + read + close more. */
let scheduleFile;
const scheduleBuffer = Buffer.alloc(128);

/**
 * Runs `work` and reports, besides its result, the share of the wall time in which the main
 * thread was waiting for a CPU.
 * @template T
 * @param {() => Promise<T>} work
 * @returns {Promise<{result: T, schedule: {wallMilliseconds: number, onCpuMilliseconds: number,
 *   waitingMilliseconds: number}}>}
 */
export async function withSchedule(work) {
  const before = mainThreadSchedule();
  const start = monotonicMilliseconds();
  const result = await work();
  const wallMilliseconds = monotonicMilliseconds() - start;
  const after = mainThreadSchedule();
  return {
    result,
    schedule: {
      wallMilliseconds,
      onCpuMilliseconds: after.onCpu - before.onCpu,
      waitingMilliseconds: after.waiting - before.waiting,
    },
  };
}

/** Runs the garbage collector when the process was started with `--expose-gc`. */
export function collectGarbage() {
  const gc = /** @type {undefined | (() => void)} */ (globalThis.gc);
  if (gc !== undefined) {
    gc();
    gc();
  }
}

/**
 * Opens a new session with the settings the CLI would use for `-p`, against the fake model.
 * @param {{dist: string, cwd: string, home: string, baseUrl: string, maxTurns: number}} options
 */
export async function openBenchSession(options) {
  const [{ SessionHost }, { resolveRunConfig }, { parseCommand }] = await Promise.all([
    importDist(options.dist, "session/host.js"),
    importDist(options.dist, "session/run-config.js"),
    importDist(options.dist, "cli/arguments.js"),
  ]);
  const command = parseCommand(
    [
      "-p",
      BENCH_PROMPT,
      "--max-turns",
      String(options.maxTurns),
      ...(options.contextWindow === undefined
        ? []
        : ["--context-window", String(options.contextWindow)]),
    ],
    options.cwd,
  );
  // As `turnloop -p` opens its session (cli/prompt-command.ts), with the model in the environment.
  const env = { TURNLOOP_MODEL: BENCH_MODEL, TURNLOOP_BASE_URL: options.baseUrl };
  const host = new SessionHost({
    home: options.home,
    env,
    config: resolveRunConfig({ ...command.options, cwd: options.cwd }, env),
  });
  const resolved = host.resolveModel();
  if (!resolved.ok) {
    throw new Error(resolved.message);
  }
  const session = await host.create(options.cwd, resolved.configuration.id);
  const settings = host.agentSettings(session, resolved.configuration, {
    autopilot: false,
    noAskReason: "benchmark: no one to ask",
  });
  return { session, settings };
}

/** @param {number[]} values */
export function median(values) {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
}
