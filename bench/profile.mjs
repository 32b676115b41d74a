/**
 * Summaries of V8 CPU profiles (`node --cpu-prof`): self time grouped by where the code lives
 * (a package in node_modules, a file of turnloop's dist/, a part of Node's internals, the garbage
 * collector), and the busiest functions of turnloop itself.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The bucket a function's self time is counted in.
 * @param {{url: string, functionName: string}} callFrame
 * @returns {string}
 */
export function bucketOf(callFrame) {
  const { url, functionName } = callFrame;
  if (url === "") {
    return functionName.startsWith("(") ? functionName : "(native code)";
  }
  if (url.startsWith("node:")) {
    const parts = url.slice("node:".length).split("/");
    if (parts[0] === "internal" && parts[1] === "deps") {
      return `node:internal/deps/${parts[2] ?? ""} (bundled dependency)`;
    }
    return `node:${parts.slice(0, parts[0] === "internal" ? 2 : 1).join("/")}`;
  }
  const path = url.startsWith("file:") ? fileURLToPath(url) : url;
  const modulesAt = path.lastIndexOf("/node_modules/");
  if (modulesAt !== -1) {
    const rest = path.slice(modulesAt + "/node_modules/".length).split("/");
    return `package ${rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const distAt = path.lastIndexOf("/dist/");
  if (distAt !== -1) {
    return `turnloop dist/${path.slice(distAt + "/dist/".length)}`;
  }
  if (path.includes("/bench/")) {
    return "benchmark harness (bench/)";
  }
  return path;
}

/**
 * @typedef {object} ProfileSummary
 * @property {number} totalMilliseconds Sampled time, idle included.
 * @property {number} busyMilliseconds Sampled time without `(idle)`.
 * @property {Array<{bucket: string, milliseconds: number}>} buckets Self time per bucket, largest first.
 * @property {Array<{name: string, milliseconds: number}>} turnloopFunctions Busiest functions of
 *   turnloop's dist/ by self time.
 */

/**
 * Self time per bucket of one `.cpuprofile`.
 * @param {string} path
 * @returns {ProfileSummary}
 */
export function summarizeProfile(path) {
  const profile = JSON.parse(readFileSync(path, "utf8"));
  /** @type {Map<number, any>} */
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  /** @type {Map<string, number>} */
  const buckets = new Map();
  /** @type {Map<string, number>} */
  const functions = new Map();
  let total = 0;
  profile.samples.forEach((nodeId, index) => {
    const microseconds = profile.timeDeltas[index] ?? 0;
    const node = nodes.get(nodeId);
    if (node === undefined || microseconds <= 0) {
      return;
    }
    total += microseconds;
    const bucket = bucketOf(node.callFrame);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + microseconds);
    if (bucket.startsWith("turnloop dist/")) {
      const name = `${node.callFrame.functionName || "(anonymous)"} (${bucket.slice("turnloop ".length)}:${node.callFrame.lineNumber + 1})`;
      functions.set(name, (functions.get(name) ?? 0) + microseconds);
    }
  });
  const idle = buckets.get("(idle)") ?? 0;
  const sortedEntries = (map) =>
    [...map.entries()].sort((a, b) => b[1] - a[1]).map(([name, value]) => [name, value / 1000]);
  return {
    totalMilliseconds: total / 1000,
    busyMilliseconds: (total - idle) / 1000,
    buckets: sortedEntries(buckets).map(([bucket, milliseconds]) => ({ bucket, milliseconds })),
    turnloopFunctions: sortedEntries(functions)
      .slice(0, 8)
      .map(([name, milliseconds]) => ({ name, milliseconds })),
  };
}

/**
 * The main thread's profile in a `--cpu-prof-dir` (worker threads write their own files, with a
 * thread id other than 0 in the name).
 * @param {string} directory
 * @returns {string | undefined}
 */
export function mainThreadProfile(directory) {
  const files = readdirSync(directory).filter((name) => name.endsWith(".cpuprofile"));
  const main = files.find((name) => /\.\d+\.0\.\d+\.cpuprofile$/.test(name)) ?? files[0];
  return main === undefined ? undefined : join(directory, main);
}
