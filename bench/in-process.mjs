/**
 * In-process benchmarks over the compiled `dist/` modules. Each one runs in a fresh process so
 * that runs do not warm each other up:
 *
 *   node --expose-gc bench/in-process.mjs <benchmark> '<options as JSON>'
 *
 * With a `dist` option, turnloop loads from a copy of it beside `@ai-sdk/provider-utils` and the
 * provider packages as turnloop's bundle has them (bench/in-process/bundled-packages.mjs), so the
 * request path measured is the command's.
 * It prints one JSON line with its measurements on stdout. `bench/run.mjs` drives it; it can also
 * be run by hand while working on one figure. Spans are measured with the machine's monotonic clock
 * (see `monotonicMilliseconds` in fake-model.mjs), the same clock the fake model server stamps its
 * requests with, so client-side and server-side moments can be subtracted.
 *
 * Benchmarks (options in brackets):
 * - `turn-overhead` [dist, cwd, home, turns]: one prompt of `turns` tool turns and an answer; per turn,
 *   the gap between the end of a model response and the next request (both stamped in this process:
 *   in-process/client-stamps.mjs), and the tool's own time inside that gap.
 * - `turn-overhead-floor` [turns]: the same requests made by a tiny node:http loop, stamped alike.
 * - `turn-gap-cpu` [dist, cwd, home, turns]: the same prompt; per turn, the main thread's CPU time
 *   inside that gap (a worker samples /proc), which leaves out work done while a request waits.
 * - `turn-allocation` [dist, cwd, home, turns, warmup?, samplingInterval?]: the same prompt; heap
 *   KiB allocated per turn after `warmup` turns (collected objects included), in all and by place.
 * - `turn-allocation-floor` [turns, warmup?, samplingInterval?]: the same for the tiny node:http loop.
 * - `relay` [dist, cwd, home, deltas, tokensPerSecond]: a streamed answer of `deltas` text deltas,
 *   timed at a session subscriber.
 * - `relay-floor` [deltas, tokensPerSecond]: the same stream read by a tiny fetch + SSE parser.
 * - `relay-layers` [dist, cwd, home, deltas]: deltas/s through each layer in turn (fetch + SSE
 *   parse, AI SDK `doStream`, AI SDK with our fetch wrapper, our Provider, a Session), to show
 *   which layer costs what.
 * - `request-layers` [dist, cwd, home, requests, rounds]: CPU and wall time of one short model
 *   request through each of those layers.
 * - `generate-session` [dist, home, events, compactEvery?]: writes a realistic `events.jsonl` of
 *   `events` events (with `compactEvery`, a compaction of the whole view every that many turns).
 * - `resume` [dist, home, sessionId]: times `Session.resume` on it, after a floor (read + parse).
 * - `memory` [dist, cwd, home, turns, samples, contextWindow?]: heap and RSS over a session of
 *   `turns` model turns (with `contextWindow`, in tokens, the session compacts as it fills it).
 * - `import` [specifier]: time and memory of importing one module in a fresh process.
 * - `rss-breakdown` [dist]: RSS and heap after each layer of turnloop is imported, in order.
 */

import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { distWithBundledPackages } from "./in-process/bundled-packages.mjs";

/**
 * Each benchmark's module (bench/in-process/), imported when that benchmark runs, so that `import`
 * and `rss-breakdown` measure a process that loaded no other benchmark.
 */
const BENCHMARKS = {
  "turn-overhead": async () => (await import("./in-process/turns.mjs")).turnOverhead,
  "turn-overhead-floor": async () => (await import("./in-process/turns.mjs")).turnOverheadFloor,
  "turn-gap-cpu": async () => (await import("./in-process/turn-gaps.mjs")).turnGapCpu,
  "turn-allocation": async () => (await import("./in-process/turn-allocation.mjs")).turnAllocation,
  "turn-allocation-floor": async () =>
    (await import("./in-process/turn-allocation.mjs")).turnAllocationFloor,
  relay: async () => (await import("./in-process/relay.mjs")).relay,
  "relay-floor": async () => (await import("./in-process/relay.mjs")).relayFloor,
  "relay-layers": async () => (await import("./in-process/layers.mjs")).relayLayers,
  "request-layers": async () => (await import("./in-process/layers.mjs")).requestLayers,
  "rss-breakdown": async () => (await import("./in-process/modules.mjs")).rssBreakdown,
  "generate-session": async () => (await import("./in-process/sessions.mjs")).generateSession,
  resume: async () => (await import("./in-process/sessions.mjs")).resumeSession,
  memory: async () => (await import("./in-process/sessions.mjs")).memory,
  import: async () => (await import("./in-process/modules.mjs")).importCost,
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main(process.argv.slice(2));
}

/** @param {string[]} argv */
async function main(argv) {
  const [name, optionsText] = argv;
  const load = BENCHMARKS[/** @type {keyof typeof BENCHMARKS} */ (name)];
  if (load === undefined) {
    process.stderr.write(
      `usage: node --expose-gc bench/in-process.mjs <${Object.keys(BENCHMARKS).join("|")}> '<json>'\n`,
    );
    process.exit(64);
  }
  const options = JSON.parse(optionsText ?? "{}");
  if (typeof options.dist === "string") {
    // The packages as the bundle runs them (bench/in-process/bundled-packages.mjs).
    options.dist = await distWithBundledPackages(resolve(options.dist));
  }
  const benchmark = await load();
  const result = await benchmark(options);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
