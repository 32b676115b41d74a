/**
 * Figure 7d on its own, with the server's CPU time and (optionally) a CPU profile of the server:
 * the same client, measurement and log check as `node bench/run.mjs --only headless`
 * (bench/groups/sessions.mjs), without rewriting bench/RESULTS.md, against any build.
 *
 *   node bench/scale-headless.mjs [--dist DIR] [--sessions N] [--first-token LOW-HIGH]
 *     [--tokens-per-second N] [--profile DIR] [--allocations DIR] [--node-flags "FLAGS"] [--keep]
 *
 * `--first-token` (ms) and `--tokens-per-second` are the fake model's pace (default: 7d's,
 * bench/groups/common.mjs; `--first-token 0-0` answers every request at once, as 7d was measured
 * until round 3 session 12).
 * `--dist` is the build to measure (default: this checkout's `dist/`), so a build from before a
 * change can be run interleaved with the one after it. The server is started through a wrapper
 * script given as the SDK client's `cliPath`, run as an SDK app runs the server (`node <cliPath>
 * --headless --stdio`, bench/sdk-server.mjs): it records the server's `process.cpuUsage()` (user +
 * system) when its input ends and, with `--profile`, a V8 CPU profile of the whole run (the inspector's
 * Profiler, since `--cpu-prof` is refused in `NODE_OPTIONS`), summarised by bench/profile.mjs;
 * with `--allocations`, a sampling heap profile instead (`server.heapprofile`: where the bytes the
 * collector then has to sweep were allocated, by stack; Chrome's DevTools open it).
 * It also records the server's garbage collections by kind (count and milliseconds, from a
 * `PerformanceObserver` of `gc` entries), since collection is the largest single cost at 1,000
 * sessions, and how late its event loop ran a 10 ms timer (`monitorEventLoopDelay`: p50, p99
 * and max in ms, over the whole run): work that holds the loop delays every session's turn.
 * `--node-flags "FLAGS"` gives node these flags before the server's script (e.g. the bin's first
 * line's `--max-semi-space-size=2`, to measure the server as `turnloop --headless` started from a
 * shell runs); `--keep` leaves the run's folder
 * (the server's home with every session's log) in place and prints its path.
 * Prints one JSON object: load before and after, the row of 7d and its floor (bench/
 * headless-floor.mjs: p99 and p50 of the per-turn gap, CPU per request), how the server shut down, server
 * CPU, garbage collection and loop delay, and the profile's busiest functions.
 */

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { MODES } from "./groups/common.mjs";
import { benchHeadless } from "./groups/sessions.mjs";
import { summarizeProfile } from "./profile.mjs";
import { createScenarioRepository } from "./scenario.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** @param {string[]} argv */
function parseArguments(argv) {
  const value = (name) => {
    const index = argv.indexOf(name);
    return index === -1 ? undefined : argv[index + 1];
  };
  return {
    dist: resolve(value("--dist") ?? join(root, "dist")),
    sessions: Number(value("--sessions") ?? MODES.full.headlessSessions),
    tokensPerSecond: Number(value("--tokens-per-second") ?? MODES.full.headlessTokensPerSecond),
    firstToken: /** @type {[number, number]} */ (
      value("--first-token")?.split("-").map(Number) ?? MODES.full.headlessFirstTokenMilliseconds
    ),
    profile: value("--profile") === undefined ? undefined : resolve(String(value("--profile"))),
    allocations:
      value("--allocations") === undefined ? undefined : resolve(String(value("--allocations"))),
    keep: argv.includes("--keep"),
    nodeFlags: value("--node-flags"),
  };
}

/**
 * The wrapper the client starts instead of `dist/cli/main.js`: same arguments, same process.
 * @param {{main: string, cpuFile: string, profileFile: string | undefined, allocationsFile: string | undefined}} options
 */
function wrapperSource({ main, cpuFile, profileFile, allocationsFile }) {
  // Garbage collections by kind (perf_hooks' NODE_PERFORMANCE_GC_* flags: 1 minor, 2 major,
  // 4 incremental, 8 weak callbacks): count and milliseconds.
  const collecting = `const collections = {};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = { 1: "minor", 2: "major", 4: "incremental", 8: "weakCallbacks" }[entry.detail?.kind] ?? "other";
    const sum = (collections[kind] ??= { count: 0, milliseconds: 0 });
    sum.count += 1;
    sum.milliseconds += entry.duration;
  }
}).observe({ entryTypes: ["gc"] });
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
`;
  const cpuStart = `session.post("Profiler.enable");
session.post("Profiler.setSamplingInterval", { interval: 1000 });
session.post("Profiler.start");
`;
  const allocationsStart = `session.post("HeapProfiler.enable");
session.post("HeapProfiler.startSampling", {
  samplingInterval: 16384,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
`;
  const profiling =
    profileFile === undefined && allocationsFile === undefined
      ? ""
      : `const session = new Session();
session.connect();
${profileFile === undefined ? "" : cpuStart}${allocationsFile === undefined ? "" : allocationsStart}`;
  // A session on the main thread answers synchronously.
  const stop = (method, file) =>
    file === undefined
      ? ""
      : `  session.post("${method}", (error, result) => {
    if (!error) writeFileSync(${JSON.stringify(file)}, JSON.stringify(result.profile));
  });
`;
  const stopProfiling =
    stop("Profiler.stop", profileFile) + stop("HeapProfiler.stopSampling", allocationsFile);
  // Recorded when the client ends the server's input (the measured work is over; closing 1,000
  // sessions afterwards can outlast the client's patience, which then kills the server).
  return `import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
${collecting}${profiling}let recorded = false;
function record() {
  if (recorded) return;
  recorded = true;
  const delay = { p50: loopDelay.percentile(50) / 1e6, p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 };
  writeFileSync(${JSON.stringify(cpuFile)}, JSON.stringify({ ...process.cpuUsage(), collections, delay }));
${stopProfiling}}
process.stdin.once("end", record);
process.on("exit", record);
await import(${JSON.stringify(pathToFileURL(main).href)});
`;
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const main = join(options.dist, "cli", "main.js");
  if (!existsSync(main)) {
    throw new Error(`${main} is missing; run npm run build first`);
  }
  const temp = mkdtempSync(join(tmpdir(), "turnloop-scale-"));
  try {
    const cpuFile = join(temp, "server-cpu.json");
    const profileFile =
      options.profile === undefined ? undefined : join(options.profile, "server.cpuprofile");
    const allocationsFile =
      options.allocations === undefined
        ? undefined
        : join(options.allocations, "server.heapprofile");
    for (const folder of [options.profile, options.allocations]) {
      if (folder !== undefined) {
        mkdirSync(folder, { recursive: true });
      }
    }
    const cliPath = join(temp, "server.mjs");
    writeFileSync(cliPath, wrapperSource({ main, cpuFile, profileFile, allocationsFile }));
    const context = {
      mode: "full",
      settings: {
        ...MODES.full,
        headlessSessions: options.sessions,
        headlessTokensPerSecond: options.tokensPerSecond,
        headlessFirstTokenMilliseconds: options.firstToken,
      },
      root,
      dist: options.dist,
      cliPath,
      serverNodeArguments: options.nodeFlags?.split(/\s+/).filter(Boolean) ?? [],
      temp,
      repo: join(temp, "repo"),
      home: join(temp, "turnloop-home"),
      rows: [],
      details: {},
      loads: [],
    };
    createScenarioRepository(context.repo);
    mkdirSync(join(temp, "user-home"), { recursive: true });
    const loadBefore = loadavg()[0];
    await benchHeadless(context);
    const loadAfter = loadavg()[0];
    const cpu = existsSync(cpuFile) ? JSON.parse(readFileSync(cpuFile, "utf8")) : undefined;
    const summary =
      profileFile !== undefined && existsSync(profileFile)
        ? summarizeProfile(profileFile)
        : undefined;
    const row = context.rows[0];
    process.stdout.write(
      `${JSON.stringify(
        {
          dist: options.dist,
          sessions: options.sessions,
          tokensPerSecond: options.tokensPerSecond,
          firstTokenMilliseconds: options.firstToken,
          load: `${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)}`,
          p99: row?.value,
          spread: row?.spread,
          floor: context.details.headless?.floor,
          inServer: context.details.headless?.inServer,
          runs: row?.runs,
          failed: row?.failed ?? row?.pending,
          nodeFlags: options.nodeFlags ?? "",
          shutdown: context.details.headless?.shutdown,
          serverCpuSeconds: cpu === undefined ? undefined : (cpu.user + cpu.system) / 1e6,
          serverGarbageCollection: cpu?.collections,
          serverEventLoopDelayMilliseconds: cpu?.delay,
          turns: context.details.headless?.turns,
          toolsTimedFromRunning: context.details.headless?.toolsTimedFromRunning,
          p99WithToolTimedFromStart: context.details.headless?.p99FromToolStart,
          sendPhaseOnCpuSeconds:
            (context.details.headless?.sendOnCpuMilliseconds ?? Number.NaN) / 1e3,
          profile: summary && {
            busyMilliseconds: summary.busyMilliseconds,
            buckets: summary.buckets.slice(0, 15),
            turnloopFunctions: summary.turnloopFunctions.slice(0, 25),
          },
        },
        null,
        2,
      )}\n`,
    );
    if (row?.failed !== undefined || row?.pending !== undefined) {
      process.exitCode = 1;
    }
  } finally {
    if (options.keep) {
      process.stderr.write(`kept the run's folder (server home, logs, repository): ${temp}\n`);
    } else {
      rmSync(temp, { recursive: true, force: true });
    }
  }
}

await main();
