import { collectGarbage, HUGE_MESSAGE_BYTES } from "../llm/huge-messages.js";

/** One line read by {@link LineReader}, without its `\n`. */
export type ReadLine =
  /** A line within the limit, decoded as UTF-8 (invalid bytes become U+FFFD, a leading BOM is dropped). */
  | { kind: "text"; text: string; bytes: number }
  /** A line over the limit: only its first {@link HEAD_BYTES} bytes were kept, decoded. */
  | { kind: "oversized"; head: string; bytes: number };

/** Bytes of an oversized line kept, to find its request id. */
export const HEAD_BYTES = 1_024;

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into `\n`-terminated lines (ACP v1 transports, stdio: newline-delimited
 * JSON-RPC), for lines of any size. The pieces of a line are kept as the chunks they arrived in
 * (views, not copies: a chunk read from a ReadableStream belongs to its reader) until its newline;
 * then they are joined and decoded once. A line that passes `limit` bytes is dropped as it is
 * read: from then on only its length is counted, so memory stays within `limit` bytes plus the
 * chunk being read, however long the line.
 *
 * Memory for a huge line (issue 27 item 3; {@link HUGE_MESSAGE_BYTES} or more): the pieces, their
 * joined bytes and the decoded text would each be a whole copy; a full collection after joining and
 * after decoding leaves only one of them alive at a time before the caller parses the text.
 */
export class LineReader {
  #pieces: Uint8Array[] = [];
  #bytes = 0;
  /** Set while skipping the rest of an oversized line: its first bytes. */
  #oversizedHead: Uint8Array | undefined;

  /** @param limit longest line taken whole, in bytes (its `\n` not counted). */
  constructor(private readonly limit: number) {}

  /** The lines `chunk` completes, in order; its unfinished tail is kept for the next call. */
  *push(chunk: Uint8Array): Generator<ReadLine> {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE, start);
    while (newline !== -1) {
      this.#add(chunk.subarray(start, newline));
      yield this.#take();
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      this.#add(chunk.subarray(start));
    }
  }

  /** The last line when the stream ended without its `\n`, if it holds any byte. */
  flush(): ReadLine | undefined {
    if (this.#oversizedHead === undefined && this.#bytes === 0) {
      return undefined;
    }
    return this.#take();
  }

  #add(piece: Uint8Array): void {
    this.#bytes += piece.length;
    if (this.#oversizedHead !== undefined) {
      return;
    }
    if (this.#bytes > this.limit) {
      // Only the head is kept: no copy of the line read so far.
      this.#oversizedHead = joined(firstBytes([...this.#pieces, piece], HEAD_BYTES));
      this.#pieces = [];
      return;
    }
    if (piece.length > 0) {
      this.#pieces.push(piece);
    }
  }

  #take(): ReadLine {
    const bytes = this.#bytes;
    const head = this.#oversizedHead;
    const pieces = this.#pieces;
    this.#pieces = [];
    this.#bytes = 0;
    this.#oversizedHead = undefined;
    if (head !== undefined) {
      return { kind: "oversized", head: new TextDecoder().decode(head), bytes };
    }
    return { kind: "text", text: decodeOnce(pieces, bytes), bytes };
  }
}

/** `pieces` (together `bytes` long) decoded as one UTF-8 text. */
function decodeOnce(pieces: Uint8Array[], bytes: number): string {
  const huge = bytes >= HUGE_MESSAGE_BYTES;
  const line = pieces.length === 1 ? (pieces[0] as Uint8Array) : joined(pieces);
  pieces.length = 0;
  if (huge) {
    // The pieces are garbage now: gone before the text is made beside the joined bytes.
    collectGarbage();
  }
  return new TextDecoder().decode(line);
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
function joined(pieces: readonly Uint8Array[]): Uint8Array {
  const result = new Uint8Array(pieces.reduce((total, piece) => total + piece.length, 0));
  let offset = 0;
  for (const piece of pieces) {
    result.set(piece, offset);
    offset += piece.length;
  }
  return result;
}
