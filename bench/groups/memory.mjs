/** Figures 5b/5c: heap and RSS over a long session (bench/notes/mem41.md, mem42.md). */

import { join } from "node:path";
import { shebangNodeFlags } from "../bin.mjs";
import { runInProcess } from "../child.mjs";
import { percentile } from "../statistics.mjs";
import { inProcessCommand, waitShare } from "./common.mjs";

/** @typedef {import("./common.mjs").Context} Context */

/**
 * The least-squares slope of `value` over the points' `turn`.
 * @param {Array<{turn: number}>} points
 * @param {(point: any) => number} value
 */
export function slope(points, value) {
  const count = points.length;
  if (count < 2) {
    return Number.NaN;
  }
  const meanTurn = points.reduce((sum, point) => sum + point.turn, 0) / count;
  const meanValue = points.reduce((sum, point) => sum + value(point), 0) / count;
  let covariance = 0;
  let variance = 0;
  for (const point of points) {
    covariance += (point.turn - meanTurn) * (value(point) - meanValue);
    variance += (point.turn - meanTurn) ** 2;
  }
  return covariance / variance;
}

/**
 * The Theil–Sen slope of `value` over the points' `turn`: the median of the slopes between every
 * two points. One sample off the line (a few MiB that V8 or the allocator holds or returns at that
 * moment) moves it by at most one of those slopes, where it moves the least-squares slope by its
 * whole size over the window; memory kept at every turn moves every pair alike, so a steady growth
 * reads the same by both (bench/notes/mem42.md).
 * @param {Array<{turn: number}>} points
 * @param {(point: any) => number} value
 */
export function medianSlope(points, value) {
  const slopes = [];
  for (let first = 0; first < points.length; first++) {
    for (let second = first + 1; second < points.length; second++) {
      const [from, to] = [points[first], points[second]];
      slopes.push((value(to) - value(from)) / (to.turn - from.turn));
    }
  }
  if (slopes.length === 0) {
    return Number.NaN;
  }
  slopes.sort((left, right) => left - right);
  const middle = Math.floor(slopes.length / 2);
  return slopes.length % 2 === 1 ? slopes[middle] : (slopes[middle - 1] + slopes[middle]) / 2;
}

/** Sessions per figure: 5b and 5c are the medians of their slopes over these many processes. */
const MEMORY_SESSIONS = 3;

/**
 * One memory session in a process of its own ({@link benchMemory}): the samples and the slopes
 * over the second half of its turns (bytes per turn): heap (least squares), RSS (the median slope,
 * and least squares), log.
 * @param {object} options The in-process `memory` benchmark's options.
 * @param {string[]} entryFlags
 */
async function memorySession(options, entryFlags) {
  const result = await runInProcess("memory", options, entryFlags);
  if (result.turns !== options.turns) {
    throw new Error(
      `memory run stopped after ${result.turns} of ${options.turns} turns: ${JSON.stringify(result.outcome)}`,
    );
  }
  // Growth per turn: over the second half of the session, after the start-up and warm-up growth
  // of the first turns.
  const secondHalf = result.points.filter((point) => point.turn >= options.turns / 2);
  return {
    result,
    secondHalf,
    heapPerTurn: slope(secondHalf, (point) => point.heapUsed),
    rssPerTurn: medianSlope(secondHalf, (point) => point.rss),
    rssLeastSquares: slope(secondHalf, (point) => point.rss),
    logPerTurn: slope(secondHalf, (point) => point.logBytes),
  };
}

/**
 * Figures 5b/5c: heap and RSS over a long session (one prompt of many tool turns), in
 * {@link MEMORY_SESSIONS} processes one after the other, each started with the flags turnloop's
 * own entry points start it with (`dist/cli/main.js`'s first line: V8's young generation fixed at
 * 2 MiB a semi-space, src/cli/main.ts), because every process that holds a session does: `-p`,
 * `acp`, the SDK's server. Without them V8 resizes the young generation as it likes (between 4 and
 * 32 MiB in turn34's runs), and that alone moved 5c's slope between 4.3 and 22.0 KiB per turn on
 * nearly the same code (bench/notes/turn34.md). Each sample's RSS is read once the full GC's freed
 * pages are returned, and exactly (bench/in-process/memory-detail.mjs; bench/notes/mem41.md).
 * 5c is the median over the sessions of each one's median slope of RSS ({@link medianSlope}): what
 * moved one session's figure was the allocator's arenas and V8's pages, a few MiB at some samples
 * or from some sample on, not the turns (bench/notes/mem42.md); memory kept at every turn, by V8 or
 * by malloc, counts in every session alike. The processes run with glibc's malloc as a user's
 * does (no tunable: its mmap threshold rises as it likes; bench/notes/mem42.md, "the product's
 * side"). 5b is the median of the heap's least-squares slopes.
 * @param {Context} context
 */
export async function benchMemory(context) {
  const turns = context.settings.memoryTurns;
  const options = { dist: context.dist, cwd: context.repo, home: context.home, turns, samples: 10 };
  const entryFlags = shebangNodeFlags(join(context.dist, "cli", "main.js"));
  const sessions = [];
  for (let index = 0; index < MEMORY_SESSIONS; index++) {
    sessions.push(await memorySession(options, entryFlags));
  }
  const median = (/** @type {(session: any) => number} */ value) =>
    percentile(sessions.map(value), 0.5);
  const rssPerTurn = median((session) => session.rssPerTurn);
  // The session whose 5c is the median's: its samples go to the report.
  const shown = sessions.find((session) => session.rssPerTurn === rssPerTurn) ?? sessions[0];
  const heapPerTurn = median((session) => session.heapPerTurn);
  const logPerTurn = median((session) => session.logPerTurn);
  const { result, secondHalf } = shown;
  const points = result.points;
  const tenth = Math.max(1, Math.floor(result.overheads.length / 10));
  context.details.memory = {
    points,
    wall: result.wallMilliseconds,
    lastRequestBytes: result.lastRequestBytes,
    heapPerTurn,
    rssPerTurn,
    logPerTurn,
    overheadFirst: percentile(result.overheads.slice(0, tenth), 0.5),
    overheadLast: percentile(result.overheads.slice(-tenth), 0.5),
  };
  memoryRows(context, { sessions, shown, secondHalf, heapPerTurn, rssPerTurn, logPerTurn });
}

/**
 * The rows 5b and 5c of {@link benchMemory}'s sessions.
 * @param {Context} context
 * @param {{sessions: any[], shown: any, secondHalf: any[], heapPerTurn: number,
 *   rssPerTurn: number, logPerTurn: number}} figures
 */
function memoryRows(context, figures) {
  const { sessions, shown, secondHalf, heapPerTurn, rssPerTurn, logPerTurn } = figures;
  const turns = context.settings.memoryTurns;
  const [from, to] = [secondHalf[0] ?? shown.result.points[0], shown.result.points.at(-1)];
  const options = { dist: "dist", cwd: "$REPO", home: "$TL_HOME", turns, samples: 10 };
  const entryFlags = shebangNodeFlags(join(context.dist, "cli", "main.js"));
  const command = `${inProcessCommand("memory", options, entryFlags)}   # ${MEMORY_SESSIONS} times`;
  const perTurn = (/** @type {number} */ bytes) => (bytes / 1024).toFixed(1);
  const list = (/** @type {(session: any) => number} */ value) =>
    sessions.map((session) => perTurn(value(session))).join(", ");
  const runs = `${MEMORY_SESSIONS} sessions of ${turns.toLocaleString("en-US")} model turns, a process each; sampled after a full GC every ${turns / 10} turns (its freed pages returned; RSS from /proc/self/smaps_rollup); slopes over turns ${from.turn}–${to.turn}${waitShare(sessions.map((session) => session.result))}`;
  const mebibytes = (/** @type {number} */ bytes) => (bytes / 1048576).toFixed(0);
  const subject = `memory over a ${turns.toLocaleString("en-US")}-turn session`;
  /** @returns {import("./common.mjs").Row} */
  const row = (
    /** @type {string} */ id,
    /** @type {string} */ figure,
    /** @type {number} */ value,
    /** @type {string} */ target,
  ) => ({
    id,
    figure: `${subject}: ${figure}`,
    unit: "bytes-per-turn",
    value,
    target: { text: target, met: (measured) => measured <= 2 * logPerTurn },
    floor: { value: logPerTurn, label: "events.jsonl growth per turn" },
    runs,
    command,
  });
  context.rows.push(
    row(
      "5b",
      `heap growth per turn, the median of ${MEMORY_SESSIONS} sessions' (${list((session) => session.heapPerTurn)} KiB/turn; log grows ${perTurn(logPerTurn)} KiB/turn)`,
      heapPerTurn,
      "flat: ≤ 2 × the log's growth (the history itself)",
    ),
    row(
      "5c",
      `RSS growth per turn, the median of ${MEMORY_SESSIONS} sessions' median slopes between samples (${list((session) => session.rssPerTurn)} KiB/turn; least squares ${list((session) => session.rssLeastSquares)}; RSS ${mebibytes(from.rss)} → ${mebibytes(to.rss)} MiB over turns ${from.turn}–${to.turn} in the median's session; ${mebibytes(shown.result.points[0].rss)} MiB before the first turn)`,
      rssPerTurn,
      "flat: ≤ 2 × the log's growth",
    ),
  );
}
