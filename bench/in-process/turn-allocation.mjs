/**
 * `turn-allocation`: heap bytes allocated per tool turn, the load-robust companion of figure 3c.
 * On the shared machine a CPU time moves with the other lanes' load: 3c's p50 of one build ranged
 * 1.1–1.9 ms run to run within one interleaved set (bench/notes/turn.md, session 13); what a turn
 * allocates does not (two runs agreed within 0.5 %), and each byte of it is work for the
 * young-generation collector.
 */

import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { BENCH_PROMPT } from "../scenario.mjs";
import { openBenchSession, startFakeModelElsewhere } from "./support.mjs";
import { turnOverheadFloor } from "./turns.mjs";

/**
 * One prompt of `turns` view-tool turns, as `turn-overhead`; from the start of turn `warmup + 1`
 * to the prompt's end, V8's sampling heap profiler records allocations, those the collector
 * already freed included (`includeObjectsCollectedByMajorGC`/`MinorGC`), one sample about every
 * `samplingInterval` bytes (default 512: over 100 turns of ≈ 0.7 MB, the total is within ≈ 1 %).
 * Reports KiB per turn in all and by where the allocating function lives: a package under
 * `node_modules`, a Node internal (`node:…`), turnloop's `dist/<file>`, or `(native)` for V8's
 * builtins (`JSON.stringify`, `Array.prototype.push`, …, attributed to no script). What the
 * profiler's own `node:inspector` calls allocate is left out of both and reported alone as
 * `profilerKibPerTurn` ({@link isProfilerOwn}).
 * With `functions: N`, also the N functions that allocate most (self), as `name place:line`;
 * with `saveProfile: <path>`, the sampled heap profile is written there (for DevTools or a script).
 * @param {{dist: string, cwd: string, home: string, turns: number, warmup?: number,
 *   samplingInterval?: number, functions?: number, saveProfile?: string}} options
 */
export async function turnAllocation(options) {
  const warmup = options.warmup ?? 10;
  const model = await startFakeModelElsewhere({ toolTurns: options.turns, answerDeltas: 8 });
  const inspector = new Session();
  inspector.connect();
  try {
    const { session, settings } = await openBenchSession({
      ...options,
      baseUrl: model.baseUrl,
      maxTurns: options.turns + 5,
    });
    await post(inspector, "HeapProfiler.enable");
    let turnStarts = 0;
    /** @type {Promise<unknown> | undefined} */
    let started;
    session.subscribe((event) => {
      if (event.type === "assistant.turn_start" && ++turnStarts === warmup + 1) {
        started = startSampling(inspector, options.samplingInterval);
      }
    });
    const outcome = await session.prompt(settings, BENCH_PROMPT);
    await started;
    const { profile } = /** @type {{profile: HeapProfile}} */ (
      await post(inspector, "HeapProfiler.stopSampling")
    );
    await session.close();
    if (typeof options.saveProfile === "string") {
      writeFileSync(options.saveProfile, JSON.stringify(profile));
    }
    const sampledTurns = turnStarts - warmup;
    return {
      outcome,
      sampledTurns,
      ...perTurn(profile, sampledTurns),
      ...(options.functions
        ? { byFunction: byFunction(profile, sampledTurns, options.functions) }
        : {}),
    };
  } finally {
    inspector.disconnect();
    await model.close();
  }
}

/**
 * The floor of `turn-allocation`: the same chain of requests made by `turn-overhead-floor`'s tiny
 * loop (node:http's global agent, each response read as text), sampled the same way from request
 * `warmup + 1` to the end.
 * @param {{turns: number, warmup?: number, samplingInterval?: number}} options
 */
export async function turnAllocationFloor(options) {
  const warmup = options.warmup ?? 10;
  const inspector = new Session();
  inspector.connect();
  try {
    await post(inspector, "HeapProfiler.enable");
    await turnOverheadFloor(options, (turn) =>
      turn === warmup ? startSampling(inspector, options.samplingInterval) : undefined,
    );
    const { profile } = /** @type {{profile: HeapProfile}} */ (
      await post(inspector, "HeapProfiler.stopSampling")
    );
    const sampledTurns = options.turns + 1 - warmup;
    return { sampledTurns, ...perTurn(profile, sampledTurns) };
  } finally {
    inspector.disconnect();
  }
}

/**
 * @param {Session} inspector
 * @param {number} [samplingInterval] Bytes between samples, on average; default 512.
 */
function startSampling(inspector, samplingInterval) {
  return post(inspector, "HeapProfiler.startSampling", {
    samplingInterval: samplingInterval ?? 512,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
}

/**
 * @typedef {{callFrame: {functionName: string, url: string}, selfSize: number,
 *   children: HeapNode[]}} HeapNode
 * @typedef {{head: HeapNode}} HeapProfile
 */

/**
 * KiB per turn in all and by place, the 12 largest places first.
 * @param {HeapProfile} profile
 * @param {number} turns
 */
function perTurn(profile, turns) {
  /** @type {Map<string, number>} */
  const byPlace = new Map();
  let total = 0;
  let profiler = 0;
  /** @param {HeapNode} node */
  const walk = (node) => {
    if (isProfilerOwn(node)) {
      profiler += bytesUnder(node);
      return;
    }
    total += node.selfSize;
    const place = placeOf(node.callFrame.url);
    byPlace.set(place, (byPlace.get(place) ?? 0) + node.selfSize);
    for (const child of node.children) {
      walk(child);
    }
  };
  walk(profile.head);
  const kib = (/** @type {number} */ bytes) => Math.round((bytes / 1024 / turns) * 10) / 10;
  return {
    kibPerTurn: kib(total),
    profilerKibPerTurn: kib(profiler),
    byPlace: Object.fromEntries(
      [...byPlace]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 12)
        .map(([place, bytes]) => [place, kib(bytes)]),
    ),
  };
}

/**
 * KiB per turn allocated by each function itself (not its callees), the `count` largest first.
 * @param {HeapProfile} profile
 * @param {number} turns
 * @param {number} count
 */
function byFunction(profile, turns, count) {
  /** @type {Map<string, number>} */
  const sizes = new Map();
  /** @param {HeapNode} node */
  const walk = (node) => {
    if (isProfilerOwn(node)) {
      return;
    }
    const frame = /** @type {{functionName: string, url: string, lineNumber?: number}} */ (
      node.callFrame
    );
    const name = `${frame.functionName || "(anonymous)"} ${placeOf(frame.url)}:${(frame.lineNumber ?? -1) + 1}`;
    sizes.set(name, (sizes.get(name) ?? 0) + node.selfSize);
    for (const child of node.children) {
      walk(child);
    }
  };
  walk(profile.head);
  return Object.fromEntries(
    [...sizes]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, bytes]) => [name, Math.round((bytes / 1024 / turns) * 10) / 10]),
  );
}

/**
 * Whether a profile node is the measurement's own `node:inspector` call (turnloop never loads
 * `node:inspector`): the `HeapProfiler.stopSampling` that ends the sampled turns builds its
 * profile while sampling is still on, and the line ends it computes for each script that had none
 * yet are heap arrays sampled under that call's `post`. In one of session 38's two 3d runs they
 * came to 22 KiB per turn, and the median of the two read +13 KiB (bench/notes/turn39.md).
 * @param {HeapNode} node
 */
function isProfilerOwn(node) {
  return node.callFrame.url === "node:inspector";
}

/** @param {HeapNode} node @returns {number} bytes sampled in the node and under it */
function bytesUnder(node) {
  let bytes = node.selfSize;
  for (const child of node.children) {
    bytes += bytesUnder(child);
  }
  return bytes;
}

/** @param {string} url */
function placeOf(url) {
  if (url === "") {
    return "(native)";
  }
  const inPackages = url.split("node_modules/")[1];
  if (inPackages !== undefined) {
    const parts = inPackages.split("/");
    return parts[0]?.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] ?? url);
  }
  const inDist = url.split("/dist/")[1];
  if (inDist !== undefined) {
    return `dist/${inDist}`;
  }
  return url.startsWith("node:") ? url.replace("node:internal/", "node:") : url;
}

/**
 * @param {Session} inspector
 * @param {string} method
 * @param {object} [params]
 * @returns {Promise<unknown>}
 */
function post(inspector, method, params) {
  return new Promise((resolve, reject) => {
    inspector.post(method, params, (error, result) => (error ? reject(error) : resolve(result)));
  });
}
