/**
 * The reading half of MCP's stdio framing (one JSON-RPC message per line, UTF-8) with a size
 * limit that fails fast: a line over the limit is not kept in memory (only its first and last
 * bytes, to find its JSON-RPC `id`), and once its newline arrives it is reported as too large,
 * so the call it answers can fail at once instead of waiting for its timeout (issue 27).
 */

import { deserializeMessage, type JSONRPCMessage } from "@modelcontextprotocol/client";

/** Bytes of one message read at most: the MCP SDK's own `ReadBuffer` limit (10 MiB). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** Characters kept of a line that is no JSON-RPC message, for error reports. */
export const SHOWN_TEXT_LENGTH = 200;
/** Bytes kept of each end of a line over the limit, where its `id` is. */
const KEPT_END_BYTES = 512;
const NEWLINE = 0x0a;

/** What one line of the server's stdout is. */
export type ReadLine =
  | { kind: "message"; message: JSONRPCMessage }
  /** A line that is no JSON-RPC message: why, and its first {@link SHOWN_TEXT_LENGTH} characters. */
  | { kind: "invalid"; error: Error; text: string }
  /** A line over the limit: its size in bytes and, when found, the id of the request it answers. */
  | { kind: "too_large"; bytes: number; id: string | number | undefined };

export class JsonLineReader {
  private parts: Buffer[] = [];
  private length = 0;
  /** Set while dropping a line over the limit: its first bytes, last bytes and size so far. */
  private dropping: { head: Buffer; tail: Buffer; bytes: number } | undefined;

  constructor(private readonly limit = MAX_MESSAGE_BYTES) {}

  /** Takes a chunk of stdout; returns the lines it completed, in order. */
  push(chunk: Buffer): ReadLine[] {
    const lines: ReadLine[] = [];
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end === -1) {
        this.add(chunk.subarray(start));
        return lines;
      }
      this.add(chunk.subarray(start, end));
      lines.push(this.finish());
      start = end + 1;
    }
  }

  private add(piece: Buffer): void {
    if (piece.length === 0) {
      return;
    }
    if (this.dropping === undefined && this.length + piece.length <= this.limit) {
      this.parts.push(piece);
      this.length += piece.length;
      return;
    }
    if (this.dropping === undefined) {
      const kept = Buffer.concat(this.parts, this.length);
      this.dropping = { head: kept.subarray(0, KEPT_END_BYTES), tail: kept, bytes: this.length };
      this.parts = [];
      this.length = 0;
    }
    const dropping = this.dropping;
    if (dropping.head.length < KEPT_END_BYTES) {
      dropping.head = Buffer.concat([dropping.head, piece]).subarray(0, KEPT_END_BYTES);
    }
    const tail = Buffer.concat([dropping.tail.subarray(-KEPT_END_BYTES), piece]);
    dropping.tail = Buffer.from(tail.subarray(-KEPT_END_BYTES));
    dropping.bytes += piece.length;
  }

  private finish(): ReadLine {
    const dropping = this.dropping;
    if (dropping !== undefined) {
      this.dropping = undefined;
      return { kind: "too_large", bytes: dropping.bytes, id: findId(dropping.head, dropping.tail) };
    }
    const line = Buffer.concat(this.parts, this.length).toString("utf8").replace(/\r$/, "");
    this.parts = [];
    this.length = 0;
    try {
      return { kind: "message", message: deserializeMessage(line) };
    } catch (error) {
      return {
        kind: "invalid",
        error: error instanceof Error ? error : new Error(String(error)),
        text: line.slice(0, SHOWN_TEXT_LENGTH),
      };
    }
  }
}

const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** `{"jsonrpc":"2.0","id":7,…` — the envelope's keys before the result. */
const LEADING_ID = new RegExp(
  String.raw`^\s*\{(?:\s*"jsonrpc"\s*:\s*"2\.0"\s*,)?\s*"id"\s*:\s*${ID_VALUE}`,
);
/** `…,"jsonrpc":"2.0","id":7}` — the envelope's keys after the result (the MCP SDK's order). */
const TRAILING_ID = new RegExp(
  String.raw`"id"\s*:\s*${ID_VALUE}\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`,
);

/** The JSON-RPC id of a line known only by its ends, when one of them holds it. */
function findId(head: Buffer, tail: Buffer): string | number | undefined {
  const match = LEADING_ID.exec(head.toString("utf8")) ?? TRAILING_ID.exec(tail.toString("utf8"));
  const value = match?.[1];
  if (value === undefined) {
    return undefined;
  }
  return value.startsWith('"') ? (JSON.parse(value) as string) : Number(value);
}
