#!/usr/bin/env node
/**
 * Paired main-thread CPU of the file store's per-prompt work in a server that lets each session's
 * lease go when idle (issue 26 figure 7d), for two builds in one process, without a model: what
 * 7d's server does around each prompt, with none of the model request's noise.
 *
 *   node bench/store-cycles.mjs lock|store A_DIST B_DIST [BLOCKS]
 *
 * `lock`: 20 sessions' locks (`dist/session/session-lock.js`), each cycle held idle
 * (`markIdle`) and taken back (`acquire` with `leftIdleHere`). `store`: 20 sessions of a
 * `FileSessionStore` (`dist/session/file-store.js`), each cycle a prompt's share: the lease taken
 * back (`open` with `fromSeq`), six events appended, two checkpoint commits and a final one, and
 * the lease let go idle (`closeIdle`). Blocks of 10 (`lock`) or 5 (`store`) cycles of every
 * session run A B, then B A, and so on (`BLOCKS` of each, default 30); per block, the main
 * thread's CPU time from `/proc/thread-self/schedstat` (Linux) and the process's (all threads,
 * `process.cpuUsage()`), per cycle. Prints each build's medians and in how many blocks B was lower.
 * A and B are folders like `dist/` (a copy of an earlier build with `node_modules` and
 * `package.json` beside it). Not part of `npm run bench`; bench/notes/perf.md has its figures.
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const SESSIONS = 20;
const IDLE = { releasesWhenIdle: true };

const [mode, first, second, blocksText] = process.argv.slice(2);
if ((mode !== "lock" && mode !== "store") || first === undefined || second === undefined) {
  console.error("usage: node bench/store-cycles.mjs lock|store A_DIST B_DIST [BLOCKS]");
  process.exit(64);
}
const builds = [resolve(first), resolve(second)];
const blocks = Number(blocksText ?? 30);
const cyclesPerBlock = mode === "lock" ? 10 : 5;
const root = mkdtempSync(join(tmpdir(), "turnloop-store-cycles-"));

/** @param {string} dist @param {string} path */
const load = (dist, path) => import(pathToFileURL(join(dist, path)).href);

/** The main thread's time on a CPU so far, in milliseconds. */
function mainThreadMilliseconds() {
  return Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;
}

/** 20 sessions' locks of `dist`; @returns one block of cycles, and the locks' release. */
async function lockCycles(dist, index) {
  const { SessionLock } = await load(dist, "session/session-lock.js");
  const held = [];
  for (let session = 0; session < SESSIONS; session++) {
    const directory = join(root, `${index}-${session}`);
    mkdirSync(directory);
    held.push({ directory, lock: await SessionLock.acquire(directory, "s", IDLE) });
  }
  const cycle = async (one) => {
    await one.lock.markIdle();
    one.lock = await SessionLock.acquire(one.directory, "s", IDLE, true);
  };
  const end = () => Promise.all(held.map((one) => one.lock.release()));
  return { block: () => Promise.all(held.map(cycle)), end };
}

/** 20 sessions of a file store of `dist`; @returns one block of cycles, and the sessions' end. */
async function storeCycles(dist, index) {
  const { FileSessionStore } = await load(dist, "session/file-store.js");
  const { createEnvelope } = await load(dist, "session/event-log.js");
  const store = new FileSessionStore(join(root, `home-${index}`));
  const sessions = [];
  for (let session = 0; session < SESSIONS; session++) {
    const sessionId = `s${session}`;
    const appender = await store.create(sessionId, IDLE);
    const data = { sessionId, version: 1, producer: "bench", cwd: root, model: "m" };
    const start = createEnvelope(
      { type: "session.start", data: { ...data, startTime: "t" } },
      null,
    );
    appender.append(start);
    await appender.commit();
    sessions.push({ sessionId, last: start.id, nextSeq: 2, giveUp: await appender.closeIdle() });
  }
  const cycle = async (one) => {
    const { appender } = await store.open(one.sessionId, { ...IDLE, fromSeq: one.nextSeq });
    for (let event = 0; event < 6; event++) {
      const content = `prompt ${event} ${"x".repeat(200)}`;
      const envelope = createEnvelope(
        { type: "user.message", data: { content, source: "user" } },
        one.last,
      );
      appender.append(envelope);
      one.last = envelope.id;
      one.nextSeq += 1;
      if (event === 1 || event === 3) {
        await appender.commit({ checkpoint: true });
      }
    }
    await appender.commit();
    one.giveUp = await appender.closeIdle();
  };
  const end = () => Promise.all(sessions.map((one) => one.giveUp()));
  return { block: () => Promise.all(sessions.map(cycle)), end };
}

const make = mode === "lock" ? lockCycles : storeCycles;
const sides = [await make(builds[0], 0), await make(builds[1], 1)];
/** @param {number} side */
async function block(side) {
  for (let cycle = 0; cycle < cyclesPerBlock; cycle++) {
    await sides[side]?.block();
  }
}
await block(0);
await block(1);
const mainThread = [[], []];
const process_ = [[], []];
const loadBefore = loadavg()[0];
for (let round = 0; round < blocks; round++) {
  for (const side of round % 2 === 0 ? [0, 1] : [1, 0]) {
    const [mainBefore, processBefore] = [mainThreadMilliseconds(), process.cpuUsage()];
    await block(side);
    const used = process.cpuUsage(processBefore);
    const cycles = cyclesPerBlock * SESSIONS;
    mainThread[side].push((mainThreadMilliseconds() - mainBefore) / cycles);
    process_[side].push((used.user + used.system) / 1000 / cycles);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const side of [0, 1]) {
  console.log(
    `${builds[side]}: main thread ${median(mainThread[side]).toFixed(3)} ms a cycle (median of ${blocks} blocks), process ${median(process_[side]).toFixed(3)} ms`,
  );
}
const lower = mainThread[1].filter((value, round) => value < (mainThread[0][round] ?? 0)).length;
console.log(
  `B lower in ${lower} of ${blocks} blocks; load ${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)}`,
);
await Promise.all(sides.map((side) => side.end()));
rmSync(root, { recursive: true, force: true });
