import { closeSync, openSync, readSync } from "node:fs";

/**
 * Random ids without `node:crypto` (issue 26): loading it, with its internal modules, took
 * 12–15 M instructions of a `-p` run's 390 M before the first request, for ids alone
 * (bench/notes/start21.md). The bytes come from the kernel's generator (`/dev/urandom`, the
 * source `node:crypto` itself draws on), read 4 KiB at a time; where there is no such file
 * (Windows), from `node:crypto`, loaded then. The ids a face derives from a stored event's are
 * derived-id.ts's.
 */

/**
 * Session ids we accept, here below both their checks (the stores make them directory names,
 * session/paths.ts; the SDK wire's schemas, protocol/session-settings.ts): letters, digits, `-`
 * and `_`, starting with a letter or digit, at most 128 characters. Our own ids are UUIDs; the
 * wider pattern lets SDK clients pick their own ids (as the Copilot SDK allows) while ruling out
 * `/`, `\`, `.` (so `..` and hidden names), NUL and empty ids.
 */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

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
  const { buffer, start } = takeRandom(count);
  return buffer.subarray(start, start + count);
}

/**
 * A random (version 4) UUID, `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`, as `crypto.randomUUID` gives.
 * Its 16 bytes are set and read as hex where they lie in the pool (taken bytes are not handed out
 * again): no copy and no view of them is made for each of the dozens of ids a model turn stamps.
 */
export function randomUUID(): string {
  const { buffer, start } = takeRandom(16);
  buffer[start + 6] = ((buffer[start + 6] ?? 0) & 0x0f) | 0x40;
  buffer[start + 8] = ((buffer[start + 8] ?? 0) & 0x3f) | 0x80;
  return uuidText(buffer.toString("hex", start, start + 16));
}

/** 32 hex digits as a UUID's five groups. */
export function uuidText(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** `count` fresh random bytes: `buffer` from `start` on (the pool, or `node:crypto`'s own). */
function takeRandom(count: number): { buffer: Buffer; start: number } {
  if (!kernelFile || count > POOL_BYTES) {
    return { buffer: process.getBuiltinModule("node:crypto").randomBytes(count), start: 0 };
  }
  if (pool === undefined || used + count > POOL_BYTES) {
    const fresh = readKernelRandom();
    if (fresh === undefined) {
      kernelFile = false;
      return { buffer: process.getBuiltinModule("node:crypto").randomBytes(count), start: 0 };
    }
    pool = fresh;
    used = 0;
  }
  const start = used;
  used += count;
  return { buffer: pool, start };
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
