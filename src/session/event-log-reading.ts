/**
 * Reading `events.jsonl` (event-log.ts writes it): each line decoded on its own, damage skipped
 * and listed as {@link RepairNote}s, never thrown; events that decode but do not belong to the
 * log ({@link LogChain}: a repeated id, a second `session.start`, a `parentId` naming no event read
 * before, a `null` one past the first event) are skipped and listed the same way.
 */

import { open } from "node:fs/promises";
import type { RepairNote, SessionEvent } from "../events/events.js";
import { decodeEventLine } from "./event-line.js";

export { decodeEventLine, type EventLineResult } from "./event-line.js";

/** What a reader got out of an `events.jsonl`. */
export interface EventLogContents {
  /** The events of every complete, valid line, in file order. */
  events: SessionEvent[];
  /** `seqs[i]` is the 1-based line of `events[i]`: its sequence number. */
  seqs: number[];
  /** Lines skipped (damaged, or not of the log's chain), in file order; a `torn_tail` note, if any, is last. */
  repaired: RepairNote[];
  /** Bytes up to the end of the last complete line (its `\n` included): where appends go. */
  validLength: number;
  /** The line number the next appended line gets (complete lines + 1). */
  nextSeq: number;
  /** Events decoded (from `fromSeq` on), those a {@link KeepEvent} left out of `events` included. */
  eventCount: number;
  /** The id of the last event of the chain read: where a read of the lines after continues. */
  lastId: string | undefined;
  /** A read that began mid-log met a parent it cannot judge ({@link LogChain.undecided}). */
  undecided: boolean;
}

/**
 * Whether a reader keeps `event` (line `seq`) in {@link EventLogContents.events}. Called once per
 * decoded event, in file order, so it may also tally what it sees.
 */
export type KeepEvent = (event: SessionEvent, seq: number) => boolean;

const NEWLINE = 0x0a;

/**
 * Splits `bytes` on `\n` bytes and decodes each line from line `fromSeq` on (default 1: all;
 * earlier lines are read for the chain only, when `start` is the log's start). Splitting bytes rather than decoded text keeps a line cut
 * inside a multi-byte character a damaged line instead of a silently mangled one. Blank lines
 * lose nothing and are skipped without a note. With `keep`, `events` holds only the events it
 * keeps plus the last event (whose id the next appended event chains to); damage is found and
 * listed in every line all the same. `start` (default: the log's first line): where `bytes`
 * begin in the log, for the chain ({@link ChainStart}). Never throws.
 */
export function parseEventLog(
  bytes: Uint8Array,
  fromSeq = 1,
  keep?: KeepEvent,
  start: ChainStart = LOG_START,
): EventLogContents {
  const parser = new EventLogParser(fromSeq, keep, start);
  parser.push(bytes);
  return parser.end();
}

/**
 * {@link parseEventLog} over bytes given in blocks, in order, so that a long log is never held
 * whole: only the block being decoded and the start of a line it cuts (a copy, so the caller may
 * reuse a block's memory once {@link push} returns).
 */
export class EventLogParser {
  readonly #fromSeq: number;
  readonly #keep: KeepEvent | undefined;
  readonly #contents: EventLogContents = {
    events: [],
    seqs: [],
    repaired: [],
    validLength: 0,
    nextSeq: 1,
    eventCount: 0,
    lastId: undefined,
    undecided: false,
  };
  /** The pieces of a line not ended yet, copied. */
  #partial: Buffer[] = [];
  /** Byte offset of the next line's start. */
  #offset = 0;
  /** Bytes pushed. */
  #length = 0;
  #line = 1;
  /** The last event read when `keep` left it out. */
  #leftOut: { event: SessionEvent; seq: number } | undefined;
  readonly #chain: LogChain;
  /** Lines before `fromSeq` are decoded for the chain (a read from the log's start). */
  readonly #chainOnly: boolean;

  /** As {@link parseEventLog}'s parameters. */
  constructor(fromSeq = 1, keep?: KeepEvent, start: ChainStart = LOG_START) {
    this.#fromSeq = fromSeq;
    this.#keep = keep;
    this.#chain = new LogChain(start);
    this.#chainOnly = start.from === "log_start";
  }

  /** Decodes every line `bytes` ends; keeps a copy of the line it starts and does not end. */
  push(bytes: Uint8Array): void {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#length += buffer.length;
    let start = 0;
    for (let end = buffer.indexOf(NEWLINE); end !== -1; end = buffer.indexOf(NEWLINE, start)) {
      const piece = buffer.subarray(start, end);
      if (this.#partial.length === 0) {
        this.#decode(piece);
      } else {
        this.#partial.push(piece);
        this.#decode(Buffer.concat(this.#partial));
        this.#partial = [];
      }
      start = end + 1;
    }
    if (start < buffer.length) {
      this.#partial.push(Buffer.from(buffer.subarray(start)));
    }
  }

  /** What was read: a line without its `\n` at the end is a torn tail. */
  end(): EventLogContents {
    const contents = this.#contents;
    contents.validLength = this.#offset;
    if (this.#offset < this.#length) {
      const torn = { line: this.#line, offset: this.#offset, length: this.#length - this.#offset };
      contents.repaired.push({ ...torn, reason: "torn_tail" });
    }
    if (this.#leftOut !== undefined) {
      contents.events.push(this.#leftOut.event);
      contents.seqs.push(this.#leftOut.seq);
      this.#leftOut = undefined;
    }
    contents.nextSeq = this.#line;
    contents.lastId = this.#chain.lastId;
    contents.undecided = this.#chain.undecided;
    return contents;
  }

  /** Decodes the line `line` (without its `\n`) that starts at {@link #offset}. */
  #decode(line: Buffer): void {
    const contents = this.#contents;
    const seq = this.#line;
    const before = seq < this.#fromSeq;
    const result = before && !this.#chainOnly ? undefined : decodeEventLine(line);
    const chainBreak = result?.kind === "event" ? this.#chain.admit(result.event) : undefined;
    if (before) {
      if (result?.kind === "damaged") {
        this.#chain.damaged();
      }
      this.#offset += line.length + 1;
      this.#line += 1;
      return;
    }
    const note = { line: seq, offset: this.#offset, length: line.length };
    if (chainBreak !== undefined) {
      contents.repaired.push({ ...note, reason: chainBreak });
    } else if (result?.kind === "event") {
      contents.eventCount += 1;
      this.#leftOut = undefined;
      if (this.#keep === undefined || this.#keep(result.event, seq)) {
        contents.events.push(result.event);
        contents.seqs.push(seq);
      } else {
        this.#leftOut = { event: result.event, seq };
      }
    } else if (result?.kind === "damaged") {
      this.#chain.damaged();
      contents.repaired.push({ ...note, reason: result.reason });
    }
    this.#offset += line.length + 1;
    this.#line += 1;
  }
}

/** Bytes read from the file at a time, at most. */
const BLOCK_BYTES = 1 << 20;
/** Bytes read at a time however few are expected. */
const SMALLEST_BLOCK_BYTES = 1 << 12;

/** Reads into `buffer` from the file at `position`, as `FileHandle.read` does. */
export interface PositionalReader {
  read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
  ): Promise<{ bytesRead: number }>;
}

/**
 * Decodes `handle`'s file from byte `position` on, a block at a time (each block read while the
 * one before is decoded), through `parser`, to its end. `expectedBytes` (what a `stat` just said
 * is left) sizes the two blocks when fewer than {@link BLOCK_BYTES}: a server taking back the
 * leases of many sessions reads a few lines of each, and two 1 MiB buffers per open were most of
 * that read's cost (issue 26, figure 7d).
 * @returns the bytes read.
 * @throws the I/O error as is.
 */
export async function readBlocks(
  handle: PositionalReader,
  position: number,
  parser: EventLogParser,
  expectedBytes = BLOCK_BYTES,
): Promise<number> {
  const blockBytes = Math.min(BLOCK_BYTES, Math.max(SMALLEST_BLOCK_BYTES, expectedBytes));
  let current = Buffer.allocUnsafe(blockBytes);
  let spare = Buffer.allocUnsafe(blockBytes);
  let read = 0;
  let next = handle.read(current, 0, blockBytes, position);
  for (;;) {
    const { bytesRead } = await next;
    if (bytesRead === 0) {
      return read;
    }
    read += bytesRead;
    next = handle.read(spare, 0, blockBytes, position + read);
    try {
      parser.push(current.subarray(0, bytesRead));
    } catch (error) {
      // A `keep` that throws: the read under way is waited for, not left unobserved.
      await next.catch(() => undefined);
      throw error;
    }
    [current, spare] = [spare, current];
  }
}

/**
 * Reads and decodes a whole `events.jsonl` (see {@link parseEventLog}). Damaged content never
 * throws.
 * @throws the I/O error as is: `ENOENT` when the file does not exist, `EACCES`, `EISDIR`, …
 */
export async function readEventLog(path: string, fromSeq = 1): Promise<EventLogContents> {
  const handle = await open(path, "r");
  try {
    const parser = new EventLogParser(fromSeq);
    await readBlocks(handle, 0, parser);
    return parser.end();
  } finally {
    await handle.close();
  }
}

/*
 * The chain rule of a session's log (README, "Where sessions are kept"): each event is chained to
 * the one before it by `parentId`, so an event belongs to the log when its `parentId` names an
 * event read before it, its `id` is new, and it is not a second `session.start`. A `null` parent
 * belongs only to the log's first event (a `session.start`, or the first line of a log written by
 * hand); elsewhere it is a parent that names nothing. After a damaged line the next parent is not
 * checked: it may name that line, whose id cannot be read. Every reader of a log applies it
 * through one {@link LogChain} per read (this file's reader for `events.jsonl`, postgres/read.ts
 * for rows, the listing's scan in session-metadata.ts), so that a line of another session, a
 * repeated line or two logs joined are skipped and reported as damaged lines are, never folded
 * into the session.
 */

/** Why an event that decoded does not belong to the log. */
export type ChainBreak =
  /** Its `id` is that of an event read before it: a repeated line. */
  | "duplicate_id"
  /** A `session.start` after the log's own: another session's log joined to this one. */
  | "second_start"
  /**
   * Its `parentId` names no event read before it (or is `null` past the first event): a line of
   * another session, or one chained to a line skipped for one of these reasons (what follows a
   * skipped line is skipped with it).
   */
  | "unknown_parent";

/** The envelope fields the rule looks at. */
export interface ChainLink {
  type: string;
  id: string;
  parentId: string | null;
}

/**
 * Where a read of a log begins, for its {@link LogChain}:
 * - `log_start`: at the first line; every event is judged.
 * - `after_event`: right after the event `id`, the last event of the log's chain before the read
 *   (`undefined`: the line before is damaged); an event naming it, or an event of the read, is
 *   judged here, one naming anything else leaves the read {@link LogChain.undecided}.
 * - `judged_event`: at an event judged before (an appender's own last line, which its store
 *   checks by id); it is taken as is, and the events after it are judged as after `after_event`.
 */
export type ChainStart =
  | { from: "log_start" }
  | { from: "after_event"; id: string | undefined }
  | { from: "judged_event" };

/** A read from the log's first line. */
export const LOG_START: ChainStart = { from: "log_start" };

/** The chain of one read of a log, checked an event at a time in file order. */
export class LogChain {
  readonly #ids = new Set<string>();
  /** An event was taken, or the read began past the log's first event. */
  #started: boolean;
  /** The next parent is taken unchecked: the line before it was damaged. */
  #parentUnchecked = false;
  /** The read began past the first line: a parent outside it cannot be judged here. */
  readonly #midLog: boolean;
  /** The next event is the judged one a `judged_event` read begins at. */
  #judgedNext: boolean;
  #undecided = false;
  #lastId: string | undefined;

  constructor(start: ChainStart = LOG_START) {
    this.#started = start.from !== "log_start";
    this.#midLog = start.from !== "log_start";
    this.#judgedNext = start.from === "judged_event";
    if (start.from === "after_event" && start.id !== undefined) {
      this.#ids.add(start.id);
      this.#lastId = start.id;
    }
  }

  /**
   * Whether a read that began mid-log met an event whose parent is outside the read (and not the
   * event it began after), or follows a damaged line there: only a read from the log's first
   * line knows every id before it, so such a read's result stands only for a reader that reads
   * again from the start (it is then taken as `unknown_parent`, or kept after a damaged line).
   */
  get undecided(): boolean {
    return this.#undecided;
  }

  /** The id of the last event taken (or the one an `after_event` read began after). */
  get lastId(): string | undefined {
    return this.#lastId;
  }

  /** A line that did not decode: the next event may name it as its parent. */
  damaged(): void {
    this.#parentUnchecked = true;
  }

  /**
   * Checks `event`, the next event read, and takes it into the chain when it belongs.
   * @returns why it does not belong, or `undefined` when it does.
   */
  admit(event: ChainLink): ChainBreak | undefined {
    if (this.#ids.has(event.id)) {
      return "duplicate_id";
    }
    if (event.type === "session.start" && this.#started && !this.#judgedNext) {
      return "second_start";
    }
    const parent = event.parentId;
    const known = parent === null ? !this.#started : this.#ids.has(parent);
    if (!known && !this.#judgedNext && this.#midLog && parent !== null) {
      this.#undecided = true;
    }
    if (!known && !this.#parentUnchecked && !this.#judgedNext) {
      return "unknown_parent";
    }
    this.#ids.add(event.id);
    this.#lastId = event.id;
    this.#started = true;
    this.#parentUnchecked = false;
    this.#judgedNext = false;
    return undefined;
  }
}
