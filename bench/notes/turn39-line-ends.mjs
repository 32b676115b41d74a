/**
 * What `HeapProfiler.stopSampling` itself allocates, sampled (bench/notes/turn39.md): a module of
 * 100,000 lines is loaded and called under the sampling heap profiler; no stack trace has asked
 * for its line ends, so the profile's building computes them, with sampling still on, under the
 * harness's own `node:inspector` `post`. Prints the largest sampled places as `caller > callee`.
 *
 *   node bench/notes/turn39-line-ends.mjs
 */

import { unlinkSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { tmpdir } from "node:os";
import { join } from "node:path";

const inspector = new Session();
inspector.connect();
/** @param {string} method @param {object} [params] @returns {Promise<any>} */
const post = (method, params) =>
  new Promise((resolve, reject) =>
    inspector.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
  );
await post("HeapProfiler.enable");
const lines = [];
for (let line = 0; line < 100_000; line++) {
  lines.push(`globalThis.x${line % 10} = ${line};`);
}
const file = join(tmpdir(), `turn39-line-ends-${process.pid}.mjs`);
writeFileSync(file, `${lines.join("\n")}\nexport function f() { return new Array(4); }\n`);
await post("HeapProfiler.startSampling", {
  samplingInterval: 512,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
const module = await import(file);
for (let call = 0; call < 1000; call++) {
  module.f();
}
const { profile } = await post("HeapProfiler.stopSampling");
unlinkSync(file);
/** @type {Map<string, number>} */
const byPlace = new Map();
/** @param {any} node @param {string} caller */
const walk = (node, caller) => {
  const place = `${node.callFrame.url || "(native)"} ${node.callFrame.functionName}`;
  const key = `${caller} > ${place}`;
  byPlace.set(key, (byPlace.get(key) ?? 0) + node.selfSize);
  for (const child of node.children) {
    walk(child, place);
  }
};
walk(profile.head, "");
const largest = [...byPlace].filter(([, bytes]) => bytes > 0).sort((a, b) => b[1] - a[1]);
for (const [place, bytes] of largest.slice(0, 6)) {
  process.stdout.write(`${bytes} ${place}\n`);
}
inspector.disconnect();
