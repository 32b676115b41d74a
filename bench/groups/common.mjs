/**
 * What the benchmark groups share: the modes' run counts, the Row and Context shapes, the
 * scenario's environment, the command lines printed in RESULTS.md, spreads and targets.
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BENCH_MODEL } from "../scenario.mjs";
import { percentile, summarize } from "../statistics.mjs";

/** Runs and sizes per mode. */
export const MODES = {
  quick: {
    onePromptRuns: 5,
    realisticRuns: 1,
    versionRuns: 10,
    turnOverheadRuns: 2,
    turns: 20,
    relayDeltas: 3_000,
    relayRuns: 1,
    latencyDeltas: 60,
    latencyRuns: 1,
    acpLatencyRuns: 1,
    resumeEvents: 100_000,
    resumeRuns: 1,
    memoryTurns: 150,
    acpRuns: 3,
    headlessSessions: 100,
    headlessToolTurns: 2,
    headlessFirstTokenMilliseconds: [250, 1250],
    headlessTokensPerSecond: 0,
    importRuns: 1,
    layerDeltas: 3_000,
    layerRounds: 1,
    profiles: false,
  },
  full: {
    onePromptRuns: 15,
    realisticRuns: 3,
    versionRuns: 30,
    turnOverheadRuns: 5,
    turns: 20,
    relayDeltas: 20_000,
    relayRuns: 3,
    latencyDeltas: 200,
    latencyRuns: 2,
    // 4e's runs through `turnloop acp` (a fresh agent each): its p99 over one run of 200 deltas
    // was the third-slowest delta, and the first and the last of a run are slow by their nature
    // (the relay path's first use; the last token read with the stream's end), so one run's p99
    // was whichever other delta the machine delayed most (bench/notes/server34.md).
    acpLatencyRuns: 5,
    resumeEvents: 100_000,
    resumeRuns: 5,
    memoryTurns: 1_000,
    acpRuns: 10,
    headlessSessions: 1_000,
    headlessToolTurns: 2,
    // 7d's fake model starts each answer after a time to first token spread over this range
    // (ms; fake-model.mjs `firstTokenMilliseconds`), so 1,000 sessions' answers arrive spread out
    // as from a real model, not all at once from its one thread, which then was the queue; paced
    // tokens (`tokensPerSecond`) made its thread the queue again (bench/notes/server.md).
    headlessFirstTokenMilliseconds: [250, 1250],
    headlessTokensPerSecond: 0,
    importRuns: 3,
    layerDeltas: 10_000,
    layerRounds: 3,
    profiles: true,
  },
};

/**
 * @typedef {object} Row One figure of RESULTS.md.
 * @property {string} id
 * @property {string} figure
 * @property {"ms" | "bytes" | "rate" | "bytes-per-turn"} unit
 * @property {number} [value] Median (or the percentile the figure names).
 * @property {{low: number, high: number, kind: string}} [spread]
 * @property {{text: string, met: (value: number, floor: number) => boolean}} [target]
 * @property {{value: number, label: string}} [floor]
 * @property {string} runs
 * @property {string} load 1-minute load average before → after the group.
 * @property {string} command
 * @property {string} [pending] Why the figure could not be measured.
 * @property {string} [failed] Why the run's results are wrong (e.g. a session log lost an event):
 *   the row shows FAILED and `bench/run.mjs` exits non-zero.
 */

/**
 * @typedef {object} Context
 * @property {"quick" | "full"} mode
 * @property {typeof MODES.full} settings
 * @property {string} root The repository.
 * @property {string} dist
 * @property {string} cliPath
 * @property {string[]} [serverNodeArguments] Node flags for the `--headless` server of 7d (none
 *   unless bench/scale-headless.mjs is given `--node-flags`).
 * @property {string} temp Scratch folder, removed at the end.
 * @property {string} repo The scenario repository.
 * @property {string} home TURNLOOP_HOME for the runs.
 * @property {Row[]} rows
 * @property {Record<string, any>} details Measurements behind the notes.
 * @property {Array<{group: string, before: string, after: string}>} loads
 * @property {Array<{group: string, title: string, command: string, text: string,
 *   seconds?: string}>} sections What the scripts of bench/groups/scripts.mjs printed.
 */

/** The bench/ folder. */
export const benchDirectory = fileURLToPath(new URL("..", import.meta.url));

/**
 * The environment of every measured process and of its floor: the same few variables for both.
 * Nothing is inherited from the shell that started the bench: `NODE_EXTRA_CA_CERTS`, which some
 * machines set, makes every Node process read the certificates as it starts (about 40 ms of CPU
 * here), and `NODE_OPTIONS` would change what is measured.
 * @param {Context} context @returns {NodeJS.ProcessEnv}
 */
export function startEnvironment(context) {
  return { PATH: process.env.PATH, HOME: join(context.temp, "user-home") };
}

/** @param {Context} context @param {string} baseUrl @returns {NodeJS.ProcessEnv} */
export function scenarioEnvironment(context, baseUrl) {
  return {
    ...startEnvironment(context),
    TURNLOOP_HOME: context.home,
    TURNLOOP_MODEL: BENCH_MODEL,
    TURNLOOP_BASE_URL: baseUrl,
  };
}

/**
 * The CLI command line as a person would type it, for the Commands section: the `bin` itself,
 * whose shebang runs `node --max-semi-space-size=2` (bench/bin.mjs starts it that way).
 */
export function cliCommand(args, extraEnvironment = "") {
  return `cd "$REPO" && TURNLOOP_HOME="$TL_HOME" TURNLOOP_MODEL=${BENCH_MODEL} TURNLOOP_BASE_URL="$FAKE_MODEL"/v1 ${extraEnvironment}/usr/bin/time -v "$TURNLOOP"/dist/cli/main.js ${args}`;
}

/** @param {string} name @param {object} options */
export function inProcessCommand(name, options) {
  return `node --expose-gc bench/in-process.mjs ${name} '${JSON.stringify(options)}'`;
}

/**
 * "main thread waited for a CPU 23 % of the time", from the schedules of in-process runs.
 * @param {Array<{schedule?: {wallMilliseconds: number, waitingMilliseconds: number}}>} results
 */
export function waitShare(results) {
  const wall = results.reduce((sum, result) => sum + (result.schedule?.wallMilliseconds ?? 0), 0);
  const waiting = results.reduce(
    (sum, result) => sum + (result.schedule?.waitingMilliseconds ?? 0),
    0,
  );
  if (!(wall > 0) || !Number.isFinite(waiting)) {
    return "";
  }
  return `; main thread runnable but waiting for a CPU ${((100 * waiting) / wall).toFixed(0)} % of the time`;
}

/** @param {number[]} values @returns {{low: number, high: number, kind: string}} */
export function minToMax(values) {
  const summary = summarize(values);
  return { low: summary.min, high: summary.max, kind: "min–max" };
}

/** @param {number[]} values @returns {{low: number, high: number, kind: string}} */
export function p10ToP90(values) {
  const summary = summarize(values);
  return { low: summary.p10, high: summary.p90, kind: "p10–p90" };
}

/** @param {number} limit @returns {Row["target"]} */
export function atMost(limit, text) {
  return { text, met: (value) => value <= limit };
}

/** A target of at most `times` × the row's floor (issue 26 states start-up targets as ratios). */
export function atMostTimesFloor(times, text) {
  return { text, met: (value, floor) => value <= times * floor };
}

/**
 * Checks that a CLI run did the scenario: exit 0, two requests (a view call, then the answer).
 * @param {import("../child.mjs").ChildResult} result
 * @param {import("../fake-model.mjs").RecordedRequest[]} requests
 */
export function checkScenarioRun(result, requests) {
  const replies = requests.map((request) => request.reply).join(",");
  if (result.code !== 0 || replies !== "tool_call,text") {
    throw new Error(
      `the CLI did not run the scenario (exit ${result.code}, replies ${replies || "none"}): ${result.stderr.trim().slice(0, 400)}`,
    );
  }
}

/**
 * The median of each key over a list of records with the same keys.
 * @param {Array<Record<string, number>>} records
 * @returns {Record<string, number>}
 */
export function medianOfEach(records) {
  const keys = Object.keys(records[0] ?? {});
  return Object.fromEntries(
    keys.map((key) => [
      key,
      percentile(
        records.map((record) => record[key] ?? Number.NaN),
        0.5,
      ),
    ]),
  );
}
