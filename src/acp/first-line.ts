/**
 * The first line `turnloop acp` reads, taken before the ACP SDK loads, and whether it is an
 * `initialize` request that can be answered at once (src/acp/start.ts). Imports nothing of the
 * SDK, zod or the line reader.
 */

import type { Readable } from "node:stream";

/** Bytes read at most while looking for the first line (an `initialize` is well under 1 KiB). */
export const FIRST_LINE_BYTES = 64 * 1024;

/** What was read of the input before the SDK loaded. */
export interface FirstRead {
  /**
   * Every byte taken from the input, in order: the first line, its `\n` and whatever came in the
   * same reads. The connection's line reader is given these first (framing.ts `prefix`).
   */
  bytes: Uint8Array;
  /** Whether the input ended (or failed) while it was read: nothing more comes from it. */
  ended: boolean;
  /** The first line's bytes, without its `\n`, when it came whole within {@link FIRST_LINE_BYTES}. */
  line: Uint8Array | undefined;
}

/** A first line being read: `read` never rejects; `stop()` settles it with what came so far. */
export interface FirstLineReading {
  read: Promise<FirstRead>;
  stop(): void;
}

/**
 * Reads `input` until its first `\n`, until more than `cap` bytes came without one, until it
 * ends or fails, or until `stop()`; then pauses it and takes its listeners off, so what comes
 * next stays in the stream for the connection.
 */
export function readFirstLine(input: Readable, cap = FIRST_LINE_BYTES): FirstLineReading {
  let stop = (): void => undefined;
  const read = new Promise<FirstRead>((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (ended: boolean, newline: number | undefined) => {
      if (settled) {
        return;
      }
      settled = true;
      input.off("data", onData);
      input.off("end", onEnd);
      input.off("error", onEnd);
      input.pause();
      const bytes = Buffer.concat(chunks, size);
      resolve({
        bytes,
        ended,
        line: newline === undefined ? undefined : bytes.subarray(0, newline),
      });
    };
    const onData = (chunk: Buffer) => {
      const newline = chunk.indexOf(NEWLINE);
      const at = newline === -1 ? undefined : size + newline;
      chunks.push(chunk);
      size += chunk.length;
      if (at !== undefined) {
        finish(false, at <= cap ? at : undefined);
      } else if (size > cap) {
        finish(false, undefined);
      }
    };
    const onEnd = () => finish(true, undefined);
    input.on("data", onData);
    input.on("end", onEnd);
    input.on("error", onEnd);
    stop = () => finish(false, undefined);
  });
  return { read, stop: () => stop() };
}

const NEWLINE = 0x0a;

/**
 * The id of `line` when it is an `initialize` request that the SDK's connection would answer with
 * success; `undefined` for anything else, which is left to the SDK. Accepted: a line within
 * `limit` bytes (framing.ts answers longer ones), decoded and trimmed as line-reader.ts and
 * framing.ts do, whose JSON is an object with `"jsonrpc": "2.0"`, `"method": "initialize"`, a
 * string or safe whole number `id` (framing.ts refuses any other before the SDK sees it, by
 * session/message-head.ts `usableRequestId`; `null` is left to the SDK), neither
 * `result` nor `error`, and `params` an object whose `protocolVersion` is an integer 0–65535.
 * That is all SDK 2.4.0's `zInitializeRequest` (dist/v1/schema/zod.gen.js) can reject: its other
 * fields fall back to defaults (`defaultOnError`), and unknown keys are dropped.
 */
export function initializeRequestId(line: Uint8Array, limit: number): string | number | undefined {
  if (line.length > limit) {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(line).trim());
  } catch {
    return undefined;
  }
  if (!isObject(value) || value.jsonrpc !== "2.0" || value.method !== "initialize") {
    return undefined;
  }
  if ("result" in value || "error" in value || !isObject(value.params)) {
    return undefined;
  }
  const { id } = value;
  // message-head.ts `usableRequestId`, inline: that module is not loaded before the answer.
  const validId = typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id));
  return validId && isProtocolVersion(value.params.protocolVersion) ? id : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** SDK 2.4.0 `zProtocolVersion`: `z.int().gte(0).lte(65535)`. */
function isProtocolVersion(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 65535;
}
