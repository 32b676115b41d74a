import { collectGarbage, HUGE_MESSAGE_BYTES } from "../llm/huge-messages.js";

/** One line read by {@link LineReader}, without its `\n`. */
export type ReadLine =
  /** A line within the limit, decoded as UTF-8 (invalid bytes become U+FFFD, a leading BOM is dropped). */
  | { kind: "text"; text: string; bytes: number }
  /** A line over the limit: only its first {@link HEAD_LENGTH} characters were kept. */
  | { kind: "oversized"; head: string; bytes: number };

/** Characters of an oversized line kept, to find its request id. */
export const HEAD_LENGTH = 1_024;

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into `\n`-terminated lines (ACP v1 transports, stdio: newline-delimited
 * JSON-RPC), for lines of any size. Each chunk is decoded as it arrives (one streaming UTF-8
 * decoder, reset at every line's end, so each line is decoded as a whole would be) and the line's
 * text pieces are joined at its newline. A line that passes `limit` bytes is dropped as it is
 * read: from then on only its length is counted, so memory stays within `limit` bytes of text
 * plus the chunk being read, however long the line.
 *
 * Memory for a huge line (issue 27 item 3; {@link HUGE_MESSAGE_BYTES} or more): decoding as the
 * chunks come lets each chunk go at once, so the process's allocator reuses their memory for the
 * next ones (kept until the newline, the chunks of a 50 MB line were freed together and stayed
 * in the resident set: measured ×4.4 the line over idle for the whole prompt against ×4.0); a
 * full collection after joining leaves the joined text as the only copy before the caller parses.
 */
export class LineReader {
  readonly #decoder = new TextDecoder();
  #pieces: string[] = [];
  #bytes = 0;
  /** Set while skipping the rest of an oversized line: its first characters. */
  #oversizedHead: string | undefined;

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
    if (this.#bytes <= this.limit) {
      if (piece.length > 0) {
        this.#pieces.push(this.#decoder.decode(piece, { stream: true }));
      }
      return;
    }
    // Over the limit: only the head is kept, and the decoder starts afresh (no stream option).
    const pieces = this.#pieces;
    this.#pieces = [];
    pieces.push(this.#decoder.decode(piece.subarray(0, HEAD_LENGTH)));
    this.#oversizedHead = headOf(pieces);
  }

  #take(): ReadLine {
    const bytes = this.#bytes;
    const head = this.#oversizedHead;
    const pieces = this.#pieces;
    this.#pieces = [];
    this.#bytes = 0;
    this.#oversizedHead = undefined;
    if (head !== undefined) {
      return { kind: "oversized", head, bytes };
    }
    pieces.push(this.#decoder.decode());
    const text = pieces.length === 1 ? (pieces[0] as string) : pieces.join("");
    pieces.length = 0;
    if (bytes >= HUGE_MESSAGE_BYTES) {
      // The pieces are garbage now: gone before the caller parses the text.
      collectGarbage();
    }
    return { kind: "text", text, bytes };
  }
}

/** The first {@link HEAD_LENGTH} characters of `pieces` joined, joining no more than that. */
function headOf(pieces: readonly string[]): string {
  let head = "";
  for (const piece of pieces) {
    if (head.length >= HEAD_LENGTH) {
      break;
    }
    head += piece.slice(0, HEAD_LENGTH - head.length);
  }
  return head;
}
