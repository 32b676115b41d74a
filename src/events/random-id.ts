import { closeSync, openSync, readSync } from "node:fs";

/**
 * Random ids without `node:crypto` (issue 26): loading it, with its internal modules, took
 * 12–15 M instructions of a `-p` run's 390 M before the first request, for ids alone
 * (bench/notes/start21.md). The bytes come from the kernel's generator (`/dev/urandom`, the
 * source `node:crypto` itself draws on), read 4 KiB at a time; where there is no such file
 * (Windows), from `node:crypto`, loaded then.
 */

/** Bytes read from the kernel at a time: 256 UUIDs. */
const POOL_BYTES = 4096;

let pool: Buffer | undefined;
let used = POOL_BYTES;
/** `false` once `/dev/urandom` could not be read: `node:crypto` serves from then on. */
let kernelFile = true;

/**
 * `count` (≤ 4096) cryptographically random bytes, as a view of the pool: copy them before the
 * next call if they must be kept.
 */
export function randomBytes(count: number): Uint8Array {
  if (!kernelFile || count > POOL_BYTES) {
    return process.getBuiltinModule("node:crypto").randomBytes(count);
  }
  if (pool === undefined || used + count > POOL_BYTES) {
    const fresh = readKernelRandom();
    if (fresh === undefined) {
      kernelFile = false;
      return process.getBuiltinModule("node:crypto").randomBytes(count);
    }
    pool = fresh;
    used = 0;
  }
  const bytes = pool.subarray(used, used + count);
  used += count;
  return bytes;
}

/** A random (version 4) UUID, `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`, as `crypto.randomUUID` gives. */
export function randomUUID(): string {
  const bytes = Buffer.from(randomBytes(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function readKernelRandom(): Buffer | undefined {
  let descriptor: number;
  try {
    descriptor = openSync("/dev/urandom", "r");
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.allocUnsafe(POOL_BYTES);
    let filled = 0;
    while (filled < POOL_BYTES) {
      const read = readSync(descriptor, buffer, filled, POOL_BYTES - filled, null);
      if (read === 0) {
        return undefined;
      }
      filled += read;
    }
    return buffer;
  } catch {
    return undefined;
  } finally {
    closeSync(descriptor);
  }
}
