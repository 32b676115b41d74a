/**
 * Reading `events.jsonl` (event-log.ts writes it): each line decoded on its own, damage skipped
 * and listed as {@link RepairNote}s, never thrown; events that decode but do not belong to the
 * log ({@link LogChain}: a repeated id, a second `session.start`, a `parentId` naming no event read
 * before) are skipped and listed the same way.
 */

import { isUtf8 } from "node:buffer";
import { open } from "node:fs/promises";
import { isEphemeral, type RepairNote, type SessionEvent } from "../events/events.js";
import { isKnownEventType } from "./event-line.js";
import { hasDeclaredData } from "./log-damage.js";

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
}

/**
 * Whether a reader keeps `event` (line `seq`) in {@link EventLogContents.events}. Called once per
 * decoded event, in file order, so it may also tally what it sees.
 */
export type KeepEvent = (event: SessionEvent, seq: number) => boolean;

/** How one line of the log decoded. */
export type EventLineResult =
  | { kind: "event"; event: SessionEvent }
  | { kind: "blank" }
  | { kind: "damaged"; reason: "invalid_json" | "invalid_event" };

const NEWLINE = 0x0a;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Decodes one line (without its `\n`). Valid means: UTF-8, JSON, an object with string `type` (a
 * known, persisted type), `id` and `timestamp`, an object `data`, and `parentId` a string, `null`
 * or absent (read as `null`), and `data` an object whose fields have the types `type` declares
 * (log-damage.ts). Never throws.
 */
export function decodeEventLine(line: Uint8Array): EventLineResult {
  const buffer = Buffer.from(line.buffer, line.byteOffset, line.byteLength);
  if (!isUtf8(buffer)) {
    return { kind: "damaged", reason: "invalid_json" };
  }
  const text = buffer.toString("utf8");
  if (text.trim() === "") {
    return { kind: "blank" };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "damaged", reason: "invalid_json" };
  }
  const event = toSessionEvent(value);
  return event === undefined
    ? { kind: "damaged", reason: "invalid_event" }
    : { kind: "event", event };
}

function toSessionEvent(value: unknown): SessionEvent | undefined {
  if (!isPlainObject(value)) {
    return undefined;
  }
  const { type, data, id, timestamp, parentId } = value;
  // Ephemeral types never belong on disk; one found there was not written by us.
  if (typeof type !== "string" || !isKnownEventType(type) || isEphemeral(type)) {
    return undefined;
  }
  if (typeof id !== "string" || typeof timestamp !== "string" || !isPlainObject(data)) {
    return undefined;
  }
  if (!hasDeclaredData(type, data)) {
    return undefined;
  }
  if (parentId !== undefined && parentId !== null && typeof parentId !== "string") {
    return undefined;
  }
  // The envelope and `data`'s fields are checked (the schemas allow fields added later).
  return { type, data, id, timestamp, parentId: parentId ?? null } as SessionEvent;
}

/**
 * Splits `bytes` on `\n` bytes and decodes each line from line `fromSeq` on (default 1: all;
 * earlier lines are only counted). Splitting bytes rather than decoded text keeps a line cut
 * inside a multi-byte character a damaged line instead of a silently mangled one. Blank lines
 * lose nothing and are skipped without a note. With `keep`, `events` holds only the events it
 * keeps plus the last event (whose id the next appended event chains to); damage is found and
 * listed in every line all the same. `fromLogStart` (default: `fromSeq` is 1): whether `bytes`
 * begin at the log's first line, so that the chain ({@link LogChain}) is checked from its start;
 * otherwise the first event's parent is taken unchecked. Never throws.
 */
export function parseEventLog(
  bytes: Uint8Array,
  fromSeq = 1,
  keep?: KeepEvent,
  fromLogStart = fromSeq === 1,
): EventLogContents {
  const parser = new EventLogParser(fromSeq, keep, fromLogStart);
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

  /** As {@link parseEventLog}'s parameters. */
  constructor(fromSeq = 1, keep?: KeepEvent, fromLogStart = fromSeq === 1) {
    this.#fromSeq = fromSeq;
    this.#keep = keep;
    this.#chain = new LogChain(fromLogStart);
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
    return contents;
  }

  /** Decodes the line `line` (without its `\n`) that starts at {@link #offset}. */
  #decode(line: Buffer): void {
    const contents = this.#contents;
    const seq = this.#line;
    const result = seq < this.#fromSeq ? undefined : decodeEventLine(line);
    const chainBreak = result?.kind === "event" ? this.#chain.admit(result.event) : undefined;
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
 * event read before it (or is `null`, as the `session.start`'s is), its `id` is new, and it is not
 * a second `session.start`. Every reader of a log applies it through one
 * {@link LogChain} per read (this file's reader for `events.jsonl`, postgres/read.ts for rows),
 * so that a line of another session, a repeated line or two
 * logs joined are skipped and reported as damaged lines are, never folded into the session.
 */

/** Why an event that decoded does not belong to the log. */
export type ChainBreak =
  /** Its `id` is that of an event read before it: a repeated line. */
  | "duplicate_id"
  /** A `session.start` after the log's own: another session's log joined to this one. */
  | "second_start"
  /**
   * Its `parentId` names no event read before it: a line of another session, or one chained to
   * a line skipped for one of these reasons (what follows a skipped line is skipped with it).
   */
  | "unknown_parent";

/** The envelope fields the rule looks at. */
export interface ChainLink {
  type: string;
  id: string;
  parentId: string | null;
}

/** The chain of one read of a log, checked an event at a time in file order. */
export class LogChain {
  readonly #ids = new Set<string>();
  /** An event was taken (or the read began past the log's first line). */
  #started: boolean;
  /**
   * The next event's parent is taken unchecked: the read began past the first line (the events
   * before were read earlier), or the line before was damaged (its id, which a following event
   * of the log names, cannot be read).
   */
  #parentUnchecked: boolean;

  /** @param fromLogStart whether the read begins at the log's first line. */
  constructor(fromLogStart = true) {
    this.#started = !fromLogStart;
    this.#parentUnchecked = !fromLogStart;
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
    if (event.type === "session.start" && this.#started) {
      return "second_start";
    }
    // `null` claims no place in the chain (tests, tools writing logs by hand): nothing to check.
    const parentKnown = event.parentId === null || this.#ids.has(event.parentId);
    if (!parentKnown && !this.#parentUnchecked) {
      return "unknown_parent";
    }
    this.#ids.add(event.id);
    this.#started = true;
    this.#parentUnchecked = false;
    return undefined;
  }
}
