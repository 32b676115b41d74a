/**
 * Where a process's resident memory is, for figures 5b/5c (bench/notes/mem41.md): Node's own counts
 * (`process.memoryUsage()`), V8's heap spaces as resident pages (`v8.getHeapSpaceStatistics()`'s
 * `physical_space_size`), and the kernel's exact view (`/proc/self/smaps_rollup`'s `Rss`, and
 * `/proc/self/smaps` summed by kind of mapping; Linux only).
 */

import { readFileSync } from "node:fs";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";

/**
 * A full garbage collection (two, as bench/in-process/support.mjs `collectGarbage` runs them; the
 * process needs `--expose-gc`) whose freed memory is returned before it ends: V8 sweeps and unmaps
 * the pages a collection freed on its helper threads, after the collection, and a read of RSS
 * right after it counted up to 4.4 MiB of them in some samples and not in others (strace showed
 * the helpers' `munmap`s of 256 KiB pages racing the read: bench/notes/mem41.md). With concurrent
 * sweeping off during these two collections, the sweeping and the unmapping are done on the
 * calling thread before `gc()` returns; the flag is restored after, so the turns between samples
 * run as V8 runs them by default.
 */
export function collectGarbageReturned() {
  const gc = /** @type {undefined | (() => void)} */ (globalThis.gc);
  if (gc === undefined) {
    return;
  }
  setFlagsFromString("--no-concurrent-sweeping");
  try {
    gc();
    gc();
  } finally {
    setFlagsFromString("--concurrent-sweeping");
  }
}

/**
 * The kind of one `/proc/self/smaps` mapping, from its header line's path column.
 * @param {string} path The path column (empty for an anonymous mapping).
 * @returns {string}
 */
function mappingKind(path) {
  if (path === "") {
    return "anonymous";
  }
  if (path === "[heap]") {
    return "brk";
  }
  if (path.startsWith("[")) {
    return "special";
  }
  if (path === process.execPath || path.endsWith("/node")) {
    return "nodeBinary";
  }
  return "files";
}

/**
 * Resident KiB by kind of mapping (`anonymous`: V8's heap pages, the allocator's thread arenas and
 * large blocks; `brk`: the allocator's main arena; `nodeBinary`; `files`; `special`), and the count
 * of anonymous mappings; undefined where the kernel has no smaps (not Linux).
 * @returns {Record<string, number> | undefined}
 */
export function smapsByKind() {
  let text;
  try {
    text = readFileSync("/proc/self/smaps", "utf8");
  } catch {
    return undefined;
  }
  /** @type {Record<string, number>} */
  const kinds = { anonymous: 0, brk: 0, nodeBinary: 0, files: 0, special: 0, anonymousMappings: 0 };
  let kind = "special";
  for (const line of text.split("\n")) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header !== null) {
      kind = mappingKind(header[1] ?? "");
      if (kind === "anonymous") {
        kinds.anonymousMappings = (kinds.anonymousMappings ?? 0) + 1;
      }
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB$/.exec(line);
    if (rss !== null) {
      kinds[kind] = (kinds[kind] ?? 0) + Number(rss[1]);
    }
  }
  return kinds;
}

/**
 * The process's resident bytes as the kernel counts them page by page (`/proc/self/smaps_rollup`'s
 * `Rss`); undefined without it (not Linux). `process.memoryUsage().rss` reads `/proc/self/stat`,
 * whose counters the kernel keeps per CPU and sums only roughly: on this machine's kernel it read
 * 1.3-1.5 MiB under the exact figure in an idle `node -e` (bench/notes/mem41.md).
 */
export function exactResidentBytes() {
  try {
    const match = /^Rss:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/smaps_rollup", "utf8"));
    return match === null ? undefined : Number(match[1]) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * One sample: `process.memoryUsage()`'s five counts (bytes; its `rss` as `statRss`), the exact
 * resident bytes (`rss`: {@link exactResidentBytes}, else `statRss`), V8's resident bytes by heap
 * space and in all, and the resident KiB by kind of mapping ({@link smapsByKind}).
 */
export function memoryDetail() {
  const usage = process.memoryUsage();
  const exact = exactResidentBytes();
  /** @type {Record<string, number>} */
  const spaces = {};
  let v8Resident = 0;
  for (const space of getHeapSpaceStatistics()) {
    spaces[space.space_name] = space.physical_space_size;
    v8Resident += space.physical_space_size;
  }
  return {
    rss: exact ?? usage.rss,
    statRss: usage.rss,
    heapTotal: usage.heapTotal,
    heapUsed: usage.heapUsed,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    v8Resident,
    spaces,
    smaps: smapsByKind(),
  };
}
