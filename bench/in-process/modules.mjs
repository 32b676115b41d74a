/** `rss-breakdown`, `module-count` and `import`: what loading turnloop costs, module by module. */

import { pathToFileURL } from "node:url";
import { collectGarbage, importDist, monotonicMilliseconds } from "./support.mjs";

/**
 * RSS and heap (after a full GC) at each step of loading turnloop for `-p`, in order: Node alone,
 * the argument parser, the prompt command (session, loop, tools, event log), the OpenAI-compatible
 * provider package, and fetch (undici) after its first use.
 * @param {{dist: string}} options
 */
export async function rssBreakdown(options) {
  const steps = [];
  const record = (step) => {
    collectGarbage();
    const usage = process.memoryUsage();
    steps.push({
      step,
      rssBytes: usage.rss,
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
  await import("@ai-sdk/openai-compatible");
  record("+ @ai-sdk/openai-compatible");
  await fetch("data:text/plain,x").then((response) => response.text());
  record("+ fetch used once (undici)");
  return { steps };
}

/**
 * Counts the ES modules loaded by importing `specifiers` (in order), with a resolve hook
 * (module-hook.mjs). CommonJS modules loaded through `require` are not seen by the hook.
 * @param {{specifiers: string[]}} options
 */
export async function moduleCount(options) {
  const [{ register }, { bucketOf }] = await Promise.all([
    import("node:module"),
    import("../profile.mjs"),
  ]);
  const { port1, port2 } = new MessageChannel();
  const urls = new Set();
  port1.on("message", (url) => urls.add(url));
  register(new URL("../module-hook.mjs", import.meta.url), {
    data: { port: port2 },
    transferList: [port2],
  });
  const before = new Set(urls);
  for (const specifier of options.specifiers) {
    await import(specifier.startsWith("/") ? pathToFileURL(specifier).href : specifier);
  }
  await new Promise((resolveLater) => setTimeout(resolveLater, 100));
  port1.close();
  /** @type {Record<string, number>} */
  const perBucket = {};
  let total = 0;
  for (const url of urls) {
    if (before.has(url) || url.startsWith("node:")) {
      continue;
    }
    const bucket = bucketOf({ url, functionName: "" });
    const key = bucket.startsWith("turnloop dist/") ? "turnloop dist/" : bucket;
    perBucket[key] = (perBucket[key] ?? 0) + 1;
    total++;
  }
  return { total, perBucket };
}

/**
 * Time and memory of importing one module (a package name or a path) into a fresh process.
 * @param {{specifier: string}} options
 */
export async function importCost(options) {
  const specifier = options.specifier.startsWith("/")
    ? pathToFileURL(options.specifier).href
    : options.specifier;
  collectGarbage();
  const before = process.memoryUsage();
  const start = monotonicMilliseconds();
  await import(specifier);
  const milliseconds = monotonicMilliseconds() - start;
  collectGarbage();
  const after = process.memoryUsage();
  return {
    specifier: options.specifier,
    milliseconds,
    rssBeforeBytes: before.rss,
    rssAfterBytes: after.rss,
    heapAddedBytes: after.heapUsed - before.heapUsed,
  };
}
