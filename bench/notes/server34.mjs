/**
 * Figure 4e's runs one by one, with where each delta's time went (bench/notes/server34.md): the
 * set-up of `node bench/run.mjs --only relay` (bench/groups/turns.mjs `relayThroughAcp`: the fake
 * model at 50 tokens/s, 200 numbered deltas, an ACP client on the agent's stdio), and in the
 * agent a preloaded recorder (`--require`, written to the run's folder) of
 * - each delta's time inside the agent: from the HTTP parser handing the model's bytes to the
 *   response (`IncomingMessage.push`) to the agent's `process.stdout.write` of the chunk that
 *   carries it (wall, ms);
 * - the agent's garbage collections (`PerformanceObserver` of `gc` entries, on the monotonic
 *   clock the client's and the fake model's times use), to tell whether a slow delta sat in one.
 *
 *   node bench/notes/server34.mjs [--dist DIR] [--runs N] [--node-flags "FLAGS"]
 *
 * Prints one JSON line per run: its p50 and p99 at the client (the model's write → the client's
 * read, as 4e), the first and last deltas', the slowest ones (`G`: a collection overlapped it),
 * and the same inside the agent.
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { measureAcp } from "../faces.mjs";
import { startFakeModelWorker } from "../fake-model.mjs";
import { scenarioEnvironment } from "../groups/common.mjs";
import { BENCH_PROMPT, createScenarioRepository } from "../scenario.mjs";
import { percentile } from "../statistics.mjs";

const RECORDER = `const http = require("node:http");
const { writeFileSync } = require("node:fs");
const { PerformanceObserver, performance } = require("node:perf_hooks");
const now = () => Number(process.hrtime.bigint()) / 1e6;
const reads = new Map(), writes = new Map(), collections = [];
new PerformanceObserver((list) => {
  const origin = now() - performance.now();
  for (const entry of list.getEntries()) collections.push([origin + entry.startTime, entry.duration, entry.detail?.kind]);
}).observe({ entryTypes: ["gc"] });
const push = http.IncomingMessage.prototype.push;
http.IncomingMessage.prototype.push = function (chunk, encoding) {
  if (chunk) for (const m of String(chunk).matchAll(/"content":"w(\\d+) /g)) if (!reads.has(+m[1])) reads.set(+m[1], now());
  return push.call(this, chunk, encoding);
};
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (data, ...rest) => {
  for (const m of String(data).matchAll(/w(\\d+) /g)) if (!writes.has(+m[1])) writes.set(+m[1], now());
  return write(data, ...rest);
};
process.on("exit", () => {
  const inside = [...reads].filter(([n]) => writes.has(n)).map(([n, at]) => [n, writes.get(n) - at]);
  writeFileSync(process.env.SERVER34_RECORD, JSON.stringify({ inside, collections }));
});
`;

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const index = argv.indexOf(name);
  return index === -1 ? fallback : argv[index + 1];
};
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const dist = resolve(option("--dist", join(root, "dist")));
const runs = Number(option("--runs", "5"));
const nodeFlags = String(option("--node-flags", "")).split(/\s+/).filter(Boolean);

/** @param {Array<[number, number, string?]>} pairs [delta, ms, mark] @returns {string} */
const slowest = (pairs) =>
  [...pairs]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([n, ms, mark]) => `#${n}:${ms.toFixed(2)}${mark ?? ""}`)
    .join(" ");

/** @param {number[]} values */
const figures = (values) =>
  `p50 ${percentile(values, 0.5).toFixed(2)} p99 ${percentile(values, 0.99).toFixed(2)}`;

/**
 * One 4e run with the recorder in the agent.
 * @param {{temp: string, repo: string, home: string}} context
 * @param {number} run
 */
async function measureRun(context, run) {
  const record = join(context.temp, `record-${run}.json`);
  const model = await startFakeModelWorker({
    toolTurns: 0,
    answerDeltas: 200,
    tokensPerSecond: 50,
    numberedDeltas: true,
    recordDeltaTimes: true,
  });
  try {
    const result = await measureAcp({
      cliPath: join(dist, "cli", "main.js"),
      cwd: context.repo,
      env: { ...scenarioEnvironment(context, model.baseUrl), SERVER34_RECORD: record },
      prompt: BENCH_PROMPT,
      timeoutMilliseconds: 120_000,
      nodeArguments: [...nodeFlags, "--require", join(context.temp, "recorder.cjs")],
    });
    if (!result.available) {
      throw new Error(result.reason);
    }
    const written = (await model.requests())[0]?.deltaWrittenAt ?? [];
    const { inside, collections } = JSON.parse(readFileSync(record, "utf8"));
    const during = (from, to) => collections.some(([at, ms]) => at + ms >= from && at <= to);
    /** @type {Array<[number, number, string]>} */
    const atClient = result.chunks.map(({ number, at }) => {
      const from = written[number] ?? Number.NaN;
      return [number, at - from, during(from, at) ? "G" : ""];
    });
    const ends = (pairs) =>
      pairs
        .filter(([n]) => n === 0 || n === 199)
        .map(([n, ms]) => `#${n}:${ms.toFixed(2)}`)
        .join(" ");
    return {
      run,
      load: Number(loadavg()[0].toFixed(1)),
      deltas: atClient.length,
      // The agent's main thread on a CPU from the first chunk read to the prompt's answer, per delta.
      onCpuPerDeltaMs: Number((result.relayOnCpuMilliseconds / atClient.length).toFixed(4)),
      atClient: `${figures(atClient.map(([, ms]) => ms))}; ${ends(atClient)}; slowest ${slowest(atClient)}`,
      insideAgent: `${figures(inside.map(([, ms]) => ms))}; ${ends(inside)}; slowest ${slowest(inside)}`,
      // During the answer: [the delta written last before it, ms, kind (1 minor, 2 major,
      // 4 incremental, 8 weak callbacks: perf_hooks' NODE_PERFORMANCE_GC_*)].
      collections: collections
        .filter(([at]) => at >= (written[0] ?? Number.POSITIVE_INFINITY))
        .map(([at, ms, kind]) => [
          written.findLastIndex((time) => time <= at),
          Number(ms.toFixed(2)),
          kind,
        ]),
    };
  } finally {
    await model.close();
  }
}

const temp = mkdtempSync(join(tmpdir(), "turnloop-server34-"));
try {
  const context = { temp, repo: join(temp, "repo"), home: join(temp, "turnloop-home") };
  createScenarioRepository(context.repo);
  mkdirSync(join(temp, "user-home"), { recursive: true });
  writeFileSync(join(temp, "recorder.cjs"), RECORDER);
  for (let run = 0; run < runs; run++) {
    process.stdout.write(`${JSON.stringify(await measureRun(context, run))}\n`);
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
