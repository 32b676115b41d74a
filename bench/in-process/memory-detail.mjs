/**
 * Where a process's resident memory is, for figures 5b/5c (bench/notes/mem41.md): Node's own counts
 * (`process.memoryUsage()`), V8's heap spaces as resident pages (`v8.getHeapSpaceStatistics()`'s
 * `physical_space_size`), and the kernel's exact view (`/proc/self/smaps_rollup`'s `Rss`, and
 * `/proc/self/smaps` summed by kind of mapping; Linux only).
 */

import { readFileSync } from "node:fs";
import {
  getHeapCodeStatistics,
  getHeapSpaceStatistics,
  getHeapStatistics,
  setFlagsFromString,
} from "node:v8";

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

/** 64 MiB: glibc's `HEAP_MAX_SIZE` on 64-bit Linux, the size and alignment of each heap of a thread arena. */
const ARENA_HEAP_BYTES = 64 * 1024 * 1024;

/**
 * V8 places its heap pages at random addresses under this bound on x64 (its
 * `kAllocationRandomAddressMask`, 0x3ffffffff000), where the kernel's own top-down `mmap`s (glibc's
 * arenas and large blocks, thread stacks, libraries) are not.
 */
const V8_RANDOM_ADDRESS_LIMIT = 0x400000000000;

/**
 * One `/proc/self/smaps` mapping: start and end addresses (numbers: exact below 2^53), its
 * permissions (`rw-p`), path column (empty for an anonymous mapping) and resident KiB.
 * @typedef {{start: number, end: number, permissions: string, path: string, rss: number}} Mapping
 */

/**
 * The mappings of `/proc/self/smaps`, in address order; undefined where there is none (not Linux).
 * @returns {Mapping[] | undefined}
 */
export function readMappings() {
  let text;
  try {
    text = readFileSync("/proc/self/smaps", "utf8");
  } catch {
    return undefined;
  }
  /** @type {Mapping[]} */
  const mappings = [];
  for (const line of text.split("\n")) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header !== null) {
      mappings.push({
        start: Number.parseInt(header[1] ?? "", 16),
        end: Number.parseInt(header[2] ?? "", 16),
        permissions: header[3] ?? "",
        path: header[4] ?? "",
        rss: 0,
      });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB$/.exec(line);
    const last = mappings.at(-1);
    if (rss !== null && last !== undefined) {
      last.rss = Number(rss[1]);
    }
  }
  return mappings;
}

/**
 * The kind of an anonymous mapping, from its neighbours and address (heuristics, checked against
 * this machine's Node 20 in bench/notes/mem42.md):
 * - `v8Code`: executable (V8's code space and its other code pages: Node 20 maps them `rwx`);
 * - `mallocArenas`: a glibc thread arena's heap, a 64 MiB-aligned read-write part followed by the
 *   rest of its 64 MiB reserved `---p`;
 * - `threadStacks`: read-write right above a one-page `---p` guard (pthread stacks);
 * - `v8Pages`: under V8's random-address bound (its heap's pages, 256 KiB each, and its large
 *   objects' own mappings);
 * - `otherAnonymous`: the rest (glibc's `mmap`ed large blocks, libuv's and Node's own mappings);
 * - `reserved`: not accessible (`---p`: reservations, guards; no resident pages).
 * @param {Mapping[]} mappings
 * @param {number} index
 */
function anonymousKind(mappings, index) {
  const mapping = /** @type {Mapping} */ (mappings[index]);
  if (mapping.permissions.startsWith("---")) {
    return "reserved";
  }
  if (mapping.permissions.includes("x")) {
    return "v8Code";
  }
  const next = mappings[index + 1];
  if (
    mapping.start % ARENA_HEAP_BYTES === 0 &&
    (mapping.end - mapping.start === ARENA_HEAP_BYTES ||
      (next !== undefined &&
        next.path === "" &&
        next.start === mapping.end &&
        next.permissions.startsWith("---") &&
        next.end === mapping.start + ARENA_HEAP_BYTES))
  ) {
    return "mallocArenas";
  }
  const previous = mappings[index - 1];
  if (
    previous !== undefined &&
    previous.path === "" &&
    previous.end === mapping.start &&
    previous.permissions.startsWith("---") &&
    previous.end - previous.start === 4096
  ) {
    return "threadStacks";
  }
  return mapping.start < V8_RANDOM_ADDRESS_LIMIT ? "v8Pages" : "otherAnonymous";
}

/**
 * The kind of mapping `index`: {@link anonymousKind} for an anonymous one; `mallocBrk` (`[heap]`:
 * glibc's main arena); `nodeBinary` (the executable's file mappings and the anonymous rest of its
 * data right after them); `files`; `special` (`[stack]`, `[vdso]`, ...).
 * @param {Mapping[]} mappings
 * @param {number} index
 */
function mappingKind(mappings, index) {
  const mapping = /** @type {Mapping} */ (mappings[index]);
  if (mapping.path === "[heap]") {
    return "mallocBrk";
  }
  if (mapping.path.startsWith("[")) {
    return "special";
  }
  if (mapping.path === process.execPath || mapping.path.endsWith("/node")) {
    return "nodeBinary";
  }
  if (mapping.path !== "") {
    return "files";
  }
  const previous = mappings[index - 1];
  if (previous?.end === mapping.start && mappingKind(mappings, index - 1) === "nodeBinary") {
    return "nodeBinary";
  }
  return anonymousKind(mappings, index);
}

/**
 * Resident KiB by kind of mapping ({@link mappingKind}), and `anonymousMappings`, the count of
 * accessible anonymous mappings; undefined where the kernel has no smaps (not Linux).
 * @param {Mapping[] | undefined} mappings {@link readMappings}'s, read now by default.
 * @returns {Record<string, number> | undefined}
 */
export function smapsByKind(mappings = readMappings()) {
  if (mappings === undefined) {
    return undefined;
  }
  /** @type {Record<string, number>} */
  const kinds = {
    v8Pages: 0,
    v8Code: 0,
    mallocBrk: 0,
    mallocArenas: 0,
    threadStacks: 0,
    otherAnonymous: 0,
    nodeBinary: 0,
    files: 0,
    special: 0,
    anonymousMappings: 0,
  };
  for (let index = 0; index < mappings.length; index++) {
    const kind = mappingKind(mappings, index);
    if (kind === "reserved") {
      continue;
    }
    kinds[kind] = (kinds[kind] ?? 0) + (mappings[index]?.rss ?? 0);
    if ((mappings[index]?.path ?? "x") === "" && kind !== "nodeBinary") {
      kinds.anonymousMappings = (kinds.anonymousMappings ?? 0) + 1;
    }
  }
  return kinds;
}

/**
 * Every accessible anonymous mapping as `[start address in hex, kind, size KiB, resident KiB]`.
 * @param {Mapping[]} mappings
 * @returns {Array<[string, string, number, number]>}
 */
function anonymousMappings(mappings) {
  /** @type {Array<[string, string, number, number]>} */
  const rows = [];
  for (let index = 0; index < mappings.length; index++) {
    const mapping = /** @type {Mapping} */ (mappings[index]);
    const kind = mappingKind(mappings, index);
    if (mapping.path === "" && kind !== "reserved") {
      rows.push([
        mapping.start.toString(16),
        kind,
        (mapping.end - mapping.start) / 1024,
        mapping.rss,
      ]);
    }
  }
  return rows;
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
 * resident bytes (`rss`: {@link exactResidentBytes}, else `statRss`); V8's heap spaces, each as
 * `[committed, used, resident]` bytes (`v8.getHeapSpaceStatistics()`'s `space_size`,
 * `space_used_size`, `physical_space_size`), their resident sum (`v8Resident`); V8's own counts
 * (`v8`: `malloced` bytes of its zones, `external` bytes it was told of, `nativeContexts`, and
 * `v8.getHeapCodeStatistics()`'s code, bytecode and external script source bytes); and the
 * resident KiB by kind of mapping ({@link smapsByKind}); with `mappings`, also every accessible
 * anonymous mapping as `[start address in hex, kind, size KiB, resident KiB]`.
 * @param {{mappings?: boolean}} [options]
 */
export function memoryDetail(options = {}) {
  const usage = process.memoryUsage();
  const exact = exactResidentBytes();
  /** @type {Record<string, [number, number, number]>} */
  const spaces = {};
  let v8Resident = 0;
  for (const space of getHeapSpaceStatistics()) {
    spaces[space.space_name] = [space.space_size, space.space_used_size, space.physical_space_size];
    v8Resident += space.physical_space_size;
  }
  const heap = getHeapStatistics();
  const code = getHeapCodeStatistics();
  const mappings = readMappings();
  return {
    rss: exact ?? usage.rss,
    statRss: usage.rss,
    heapTotal: usage.heapTotal,
    heapUsed: usage.heapUsed,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    v8Resident,
    spaces,
    v8: {
      malloced: heap.malloced_memory,
      external: heap.external_memory,
      nativeContexts: heap.number_of_native_contexts,
      code: code.code_and_metadata_size,
      bytecode: code.bytecode_and_metadata_size,
      scriptSource: code.external_script_source_size,
    },
    smaps: smapsByKind(mappings),
    ...(options.mappings === true && mappings !== undefined
      ? { mappings: anonymousMappings(mappings) }
      : {}),
  };
}
