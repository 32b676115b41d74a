import { closeSync, openSync, readSync } from "node:fs";

/**
 * Random ids without `node:crypto` (issue 26): loading it, with its internal modules, took
 * 12–15 M instructions of a `-p` run's 390 M before the first request, for ids alone
 * (bench/notes/start21.md). The bytes come from the kernel's generator (`/dev/urandom`, the
 * source `node:crypto` itself draws on), read 4 KiB at a time; where there is no such file
 * (Windows), from `node:crypto`, loaded then. Also the ids a face derives from a stored event's
 * ({@link derivedId}), which must not be drawn anew each time they are sent.
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
function uuidText(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The masks of {@link derivedId}, one per event a face derives from another: 16 bytes whose
 * version nibble (byte 6's high half) and variant bits (byte 8's two high bits) are zero.
 */
const DERIVED_ID_MASKS = {
  "assistant.reasoning": "5f1c2b7e9a4d0e3b1c6a8f2d4e7b9c01",
  "assistant.idle": "a3e97d15c2f80b6e2d94e1a7f03c5b68",
} as const;

/** What an id is derived for: the type of the event a face sends beside the source event. */
export type DerivedIdPurpose = keyof typeof DERIVED_ID_MASKS;

const UUID_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The id of an event a face derives from the event `sourceId` (Copilot's `assistant.reasoning`
 * from a stored `assistant.message`), the same each time it is derived, in every process and on
 * every read of the log: `sourceId`'s bytes XOR the purpose's mask, so a version 4 UUID stays
 * one (the Copilot SDK's event `id`, "UUID v4"), one purpose's ids never meet another's and a
 * derived id meets a random one only by chance (2^-122). An id not in UUID form (a log of another
 * producer) gets `-<purpose>` appended.
 */
export function derivedId(sourceId: string, purpose: DerivedIdPurpose): string {
  if (!UUID_FORM.test(sourceId)) {
    return `${sourceId}-${purpose}`;
  }
  const bytes = Buffer.from(sourceId.replaceAll("-", ""), "hex");
  const mask = Buffer.from(DERIVED_ID_MASKS[purpose], "hex");
  for (let index = 0; index < bytes.length; index++) {
    bytes[index] = (bytes[index] ?? 0) ^ (mask[index] ?? 0);
  }
  return uuidText(bytes.toString("hex"));
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
