import * as acp from "@agentclientprotocol/sdk";
import { reclaimAfter } from "../llm/huge-messages.js";
import { DEFAULT_MAX_MESSAGE_BYTES, MAX_MESSAGE_BYTES_VARIABLE } from "../session/message-size.js";
import { type MessageEdgeOptions, withMessageEdges } from "./message-edges.js";

/** The request an oversized line is replaced by, so its sender gets an error answer. */
export const MESSAGE_TOO_LARGE_METHOD = "_turnloop/message_too_large";

/** Params of {@link MESSAGE_TOO_LARGE_METHOD}. */
export interface MessageTooLarge {
  bytes: number;
  limit: number;
}

export interface FramingOptions extends Pick<MessageEdgeOptions, "onIdlessError"> {
  /** Longest accepted line, in bytes (default {@link DEFAULT_MAX_MESSAGE_BYTES}, 128 MiB). */
  maxMessageBytes?: number;
  /** Told about every oversized line. */
  log?: (line: string) => void;
}

const NEWLINE = 0x0a;
const NEWLINE_BYTES = Uint8Array.of(NEWLINE);
/** Bytes of an oversized line kept to find its request id. */
const HEAD_BYTES = 1_024;
/** Lines longer than this (1 MiB) are followed by an empty chunk (see `endLine`). */
const RELEASE_AFTER_BYTES = 1_048_576;

/**
 * ACP v1 transports (stdio): newline-delimited JSON-RPC over byte streams, through the SDK's
 * `ndJsonStream`, with lines of any size handled without closing the connection. The SDK fails
 * the whole stream on a line over its limit (`MessageTooLargeError`); here such a line is dropped
 * instead, and when it was a request (its `id` is found near its start) it is replaced by a small
 * {@link MESSAGE_TOO_LARGE_METHOD} request with the same id, which the agent answers with an
 * error. Without a findable id it is replaced by a JSON string saying what was dropped, which
 * the SDK answers with `-32600` and `id: null` (JSON-RPC 2.0 §5: the id of a request that could
 * not be read is null), the string as the error's `data`. Malformed JSON is answered by the SDK
 * with `-32700`, and the connection goes on; the JSON-RPC edges the SDK leaves unanswered are
 * answered by {@link withMessageEdges}. Memory: at most `limit` bytes of one line are held
 * (plus its first {@link HEAD_BYTES}), then the SDK's own copy while it parses.
 */
export function acpByteStream(
  output: WritableStream<Uint8Array>,
  input: ReadableStream<Uint8Array>,
  options: FramingOptions = {},
): acp.Stream {
  const limit = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const bounded = input.pipeThrough(boundedLines(limit, options.log ?? (() => {})));
  // Our filter enforces the limit; the SDK's, a little higher, can then never close the stream.
  const stream = acp.ndJsonStream(output, bounded, { maxMessageBytes: limit + HEAD_BYTES });
  return withMessageEdges(stream, {
    ...(options.log === undefined ? {} : { log: options.log }),
    ...(options.onIdlessError === undefined ? {} : { onIdlessError: options.onIdlessError }),
  });
}

/** Passes lines of at most `limit` bytes through whole; replaces longer ones (see above). */
function boundedLines(
  limit: number,
  log: (line: string) => void,
): TransformStream<Uint8Array, Uint8Array> {
  const lines = new BoundedLines(limit, log);
  return new TransformStream({
    transform: (chunk, controller) => lines.transform(chunk, controller),
    flush: (controller) => lines.flush(controller),
  });
}

type LineController = TransformStreamDefaultController<Uint8Array>;

/** The line being read, and what {@link boundedLines} does at each newline. */
class BoundedLines {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** Set while skipping the rest of an oversized line: its first bytes and its length so far. */
  private oversized: { head: Uint8Array; bytes: number } | undefined;

  constructor(
    private readonly limit: number,
    private readonly log: (line: string) => void,
  ) {}

  transform(chunk: Uint8Array, controller: LineController): void {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE, start);
    while (newline !== -1) {
      const tail = chunk.subarray(start, newline);
      if (this.oversized === undefined && this.pendingBytes + tail.length > this.limit) {
        this.addToLine(tail);
        this.endLine(controller, new Uint8Array(0));
      } else {
        this.endLine(controller, tail);
      }
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      // A view, not a copy (issue 27: a 50 MB line was held twice): a chunk read from a
      // ReadableStream belongs to its reader, and Node's stdin hands each read a new buffer.
      this.addToLine(chunk.subarray(start));
    }
  }

  flush(controller: LineController): void {
    if (this.oversized !== undefined || this.pendingBytes > 0) {
      this.endLine(controller, new Uint8Array(0));
    }
  }

  private endLine(controller: LineController, tail: Uint8Array): void {
    const oversized = this.oversized;
    if (oversized !== undefined) {
      const bytes = oversized.bytes + tail.length;
      controller.enqueue(replacementLine(oversized.head, bytes, this.limit, this.log));
      this.oversized = undefined;
      return;
    }
    this.pending.push(tail, NEWLINE_BYTES);
    // The line and its newline in one chunk: the SDK's line reader then hands the line on as a
    // view of this chunk, where a line without its newline would be copied into its own buffer.
    const line = concat(this.pending);
    controller.enqueue(line);
    if (line.length > RELEASE_AFTER_BYTES) {
      // The SDK's read loop keeps the last chunk and the last line it read (as views) until it
      // reads another line: an empty line after a long one, which the SDK skips, lets the long
      // line's bytes go once it is parsed (issue 27 item 3); a huge one is then reclaimed.
      controller.enqueue(NEWLINE_BYTES);
      reclaimAfter(line.length);
    }
    this.pending = [];
    this.pendingBytes = 0;
  }

  private addToLine(piece: Uint8Array): void {
    if (this.oversized !== undefined) {
      this.oversized.bytes += piece.length;
      return;
    }
    if (this.pendingBytes + piece.length > this.limit) {
      // Only the head is kept: no copy of the line read so far.
      const head = concat(firstBytes([...this.pending, piece], HEAD_BYTES));
      this.oversized = { head, bytes: this.pendingBytes + piece.length };
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    this.pending.push(piece);
    this.pendingBytes += piece.length;
  }
}

function replacementLine(
  head: Uint8Array,
  bytes: number,
  limit: number,
  log: (line: string) => void,
): Uint8Array {
  const id = requestId(new TextDecoder().decode(head));
  const dropped = `dropped a ${bytes}-byte message (the limit is ${limit} bytes, ${MAX_MESSAGE_BYTES_VARIABLE})`;
  const answer = id === undefined ? "; answered with id null" : `; request ${id} gets an error`;
  log(`turnloop acp: ${dropped}${answer}`);
  if (id === undefined) {
    return new TextEncoder().encode(`${JSON.stringify(`turnloop: ${dropped}`)}\n`);
  }
  const params: MessageTooLarge = { bytes, limit };
  // `id` is JSON text taken from the message itself, so it is copied as is.
  const request = `{"jsonrpc":"2.0","id":${id},"method":"${MESSAGE_TOO_LARGE_METHOD}"`;
  const line = `${request},"params":${JSON.stringify(params)}}\n`;
  return new TextEncoder().encode(line);
}

/**
 * The JSON text of a top-level `"id"` member found before any nested object or array opens
 * (clients write `{"jsonrpc":"2.0","id":…,"method":…,"params":{…}}`); `undefined` otherwise.
 */
function requestId(head: string): string | undefined {
  const match = /^\s*\{[^{}[\]]*?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/.exec(head);
  return match?.[1];
}

/** The first `count` bytes of `pieces`, as views of them. */
function firstBytes(pieces: readonly Uint8Array[], count: number): Uint8Array[] {
  const first: Uint8Array[] = [];
  let left = count;
  for (const piece of pieces) {
    if (left <= 0) {
      break;
    }
    first.push(piece.subarray(0, left));
    left -= Math.min(left, piece.length);
  }
  return first;
}

/** `pieces` in one new array. */
function concat(pieces: readonly Uint8Array[]): Uint8Array {
  const result = new Uint8Array(pieces.reduce((total, piece) => total + piece.length, 0));
  let offset = 0;
  for (const piece of pieces) {
    result.set(piece, offset);
    offset += piece.length;
  }
  return result;
}
