/**
 * `rss-breakdown` and `import`: what loading turnloop's unbundled modules (the `tsc` output the
 * in-process benchmarks import) costs, layer by layer. What the `bin` itself loads is counted by
 * bench/groups/loaded-files.mjs.
 */

import { pathToFileURL } from "node:url";
import { importPackage } from "./bundled-packages.mjs";
import { collectGarbageReturned, exactResidentBytes } from "./memory-detail.mjs";
import { importDist, monotonicMilliseconds } from "./support.mjs";

/**
 * RSS (exact, after a full GC whose freed pages are returned: memory-detail.mjs) and heap at each step of loading turnloop for `-p`, in order: Node alone,
 * the argument parser, the prompt command (session, loop, tools, event log), and the
 * OpenAI-compatible provider package.
 * @param {{dist: string}} options
 */
export async function rssBreakdown(options) {
  const steps = [];
  const record = (step) => {
    collectGarbageReturned();
    const usage = process.memoryUsage();
    steps.push({
      step,
      rssBytes: exactResidentBytes() ?? usage.rss,
      heapUsedBytes: usage.heapUsed,
      heapTotalBytes: usage.heapTotal,
      externalBytes: usage.external,
    });
  };
  record("node + this script");
  await importDist(options.dist, "cli/arguments.js");
  record("+ cli/arguments.js");
  await importDist(options.dist, "cli/prompt-command.js");
  record("+ cli/prompt-command.js (session, loop, tools, zod)");
  await importPackage(options.dist, "@ai-sdk/openai-compatible");
  record("+ @ai-sdk/openai-compatible");
  return { steps };
}

/**
 * Time and memory of importing one module (a package name or a path) into a fresh process.
 * @param {{specifier: string}} options
 */
export async function importCost(options) {
  const specifier = options.specifier.startsWith("/")
    ? pathToFileURL(options.specifier).href
    : options.specifier;
  collectGarbageReturned();
  const before = process.memoryUsage();
  const rssBeforeBytes = exactResidentBytes() ?? before.rss;
  const start = monotonicMilliseconds();
  await import(specifier);
  const milliseconds = monotonicMilliseconds() - start;
  collectGarbageReturned();
  const after = process.memoryUsage();
  return {
    specifier: options.specifier,
    milliseconds,
    rssBeforeBytes,
    rssAfterBytes: exactResidentBytes() ?? after.rss,
    heapAddedBytes: after.heapUsed - before.heapUsed,
  };
}
