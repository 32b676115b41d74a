/** `turn-gap-cpu`: the main thread's CPU time inside each gap of figure 3 (bench/notes/turn.md). */

import { Worker } from "node:worker_threads";
import { BENCH_PROMPT } from "../scenario.mjs";
import { clientRequests, watchClientSockets } from "./client-stamps.mjs";
import { openBenchSession, startFakeModelElsewhere } from "./support.mjs";

/**
 * A worker that reads the main thread's `schedstat` (time on a CPU) about every 0.1 ms with the
 * monotonic clock's time, until `stop[0]` is set; it then posts `[time ms, on-CPU ms, …]`. It runs
 * on its own thread, so the main thread's figures hold none of its work; it does load the
 * machine by about a tenth of a core.
 */
const SAMPLER = `
const { workerData, parentPort } = require("node:worker_threads");
const { openSync, readSync } = require("node:fs");
const file = openSync("/proc/self/task/" + workerData.pid + "/schedstat", "r");
const buffer = Buffer.alloc(128);
const pause = new Int32Array(new SharedArrayBuffer(4));
const samples = [];
while (Atomics.load(workerData.stop, 0) === 0) {
  const length = readSync(file, buffer, 0, 128, 0);
  samples.push(Number(process.hrtime.bigint()) / 1e6, Number(buffer.toString("latin1", 0, length).split(" ")[0]) / 1e6);
  Atomics.wait(pause, 0, 0, 0.1);
}
parentPort.postMessage(samples);`;

/**
 * For each tool turn k, the gap of figure 3 (response k's last bytes read → request k+1's first
 * bytes handed to the OS, both stamped in this process as 3a's are: client-stamps.mjs) in wall
 * time and in main-thread CPU time, the latter from the sampler above (the last sample at or
 * before each end, on the same monotonic clock; so within about 0.1 ms plus the sampler's own
 * waits). `wireWall` is the gap by the fake model's stamps, as this figure read before. Unlike
 * 3c (CPU from one `assistant.turn_start` to the next), it leaves out what the process does while
 * a request waits for its answer, so it shows work moved into that wait (the first turn's JIT and
 * one-time work, src/llm/first-response.ts). Linux only (`/proc`).
 * @param {{dist: string, cwd: string, home: string, turns: number}} options
 */
export async function turnGapCpu(options) {
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(SAMPLER, { eval: true, workerData: { pid: process.pid, stop } });
  const sampled = new Promise((resolve) => worker.once("message", resolve));
  const model = await startFakeModelElsewhere({ toolTurns: options.turns, answerDeltas: 8 });
  const sockets = watchClientSockets();
  try {
    const { session, settings } = await openBenchSession({
      ...options,
      baseUrl: model.baseUrl,
      maxTurns: options.turns + 5,
    });
    const outcome = await session.prompt(settings, BENCH_PROMPT);
    await session.close();
    const requests = await model.requests();
    const client = clientRequests(sockets, model.url, requests.length);
    Atomics.store(stop, 0, 1);
    const samples = /** @type {number[]} */ (await sampled);
    const gaps = [];
    for (let turn = 0; turn + 1 < requests.length; turn++) {
      const start = client[turn].lastRead;
      const end = client[turn + 1].firstWrite;
      const wireWall = requests[turn + 1].receivedAt - requests[turn].finishedAt;
      gaps.push({
        wall: end - start,
        wireWall,
        cpu: onCpuAt(samples, end) - onCpuAt(samples, start),
      });
    }
    return { outcome, requests: requests.length, clientRequests: client.length, gaps };
  } finally {
    sockets.stop();
    Atomics.store(stop, 0, 1);
    await worker.terminate();
    await model.close();
  }
}

/** The on-CPU time of the last sample at or before `time` (pairs of time, on-CPU ms). */
function onCpuAt(samples, time) {
  let low = 0;
  let high = samples.length / 2 - 1;
  if (high < 0 || time < samples[0]) {
    return samples[1] ?? Number.NaN;
  }
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (samples[2 * middle] <= time) {
      low = middle;
    } else {
      high = middle - 1;
    }
  }
  return samples[2 * low + 1];
}
