/**
 * `events.jsonl`: the append-only log of one session, one {@link SessionEvent} per line.
 *
 * Writing: one `write` per line, synchronous, in call order, so an event is in the file (the page
 * cache) before `append` returns and before anything else is said about it; `flush` makes it
 * durable. Reading: damage never throws. A last line without its `\n` (a torn tail, from a crash
 * mid-write) and middle lines that do not decode are skipped and listed as {@link RepairNote}s.
 * Opening for append first cuts a torn tail, so a new line can never fuse with a broken one.
 */

import { isUtf8 } from "node:buffer";
import { constants, ftruncateSync, writeSync } from "node:fs";
import { type FileHandle, mkdir, open, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import {
  isEphemeral,
  type RepairNote,
  type SessionEvent,
  type SessionEventType,
} from "../events/events.js";
import { collectScheduledGarbage, reclaimAfter } from "../llm/huge-messages.js";

import { eventLinePieces } from "./event-line.js";

export { createEnvelope } from "./envelope.js";
export { serializeEvent } from "./event-line.js";

/** What a reader got out of an `events.jsonl`. */
export interface EventLogContents {
  /** The events of every complete, valid line, in file order. */
  events: SessionEvent[];
  /** `seqs[i]` is the 1-based line of `events[i]`: its sequence number. */
  seqs: number[];
  /** Lines skipped, in file order; a `torn_tail` note, if any, is last. */
  repaired: RepairNote[];
  /** Bytes up to the end of the last complete line (its `\n` included): where appends go. */
  validLength: number;
  /** The line number the next appended line gets (complete lines + 1). */
  nextSeq: number;
}

/** How one line of the log decoded. */
export type EventLineResult =
  | { kind: "event"; event: SessionEvent }
  | { kind: "blank" }
  | { kind: "damaged"; reason: "invalid_json" | "invalid_event" };

const NEWLINE = 0x0a;

/**
 * Every event type, checked against the union at compile time (`satisfies` rejects a missing or an
 * extra key), so the reader can refuse types it does not know.
 */
const KNOWN_EVENT_TYPES = {
  "session.start": true,
  "session.resume": true,
  "user.message": true,
  "assistant.turn_start": true,
  "assistant.message_delta": true,
  "assistant.reasoning_delta": true,
  "assistant.tool_call_start": true,
  "assistant.message": true,
  "assistant.usage": true,
  "assistant.retry": true,
  "assistant.turn_end": true,
  "tool.execution_start": true,
  "tool.execution_running": true,
  "tool.execution_partial_result": true,
  "tool.execution_complete": true,
  "permission.requested": true,
  "permission.completed": true,
  "session.plan_updated": true,
  "session.instructions_loaded": true,
  "session.task_complete": true,
  "session.autopilot_stopped": true,
  "session.error": true,
  abort: true,
  "session.compaction_start": true,
  "session.compaction_complete": true,
  "session.idle": true,
  "external_tool.requested": true,
  "external_tool.completed": true,
  "hook.start": true,
  "hook.end": true,
  "session.mcp_server_status_changed": true,
  "session.model_change": true,
  "session.mode_changed": true,
  "session.usage_info": true,
  "pending_messages.modified": true,
  "session.info": true,
  "session.warning": true,
  "session.snapshot_rewind": true,
  "session.title_changed": true,
  "session.grants_changed": true,
  "session.shutdown": true,
} satisfies Record<SessionEventType, true>;

function isKnownEventType(type: string): type is SessionEventType {
  return Object.hasOwn(KNOWN_EVENT_TYPES, type);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Decodes one line (without its `\n`). Valid means: UTF-8, JSON, an object with string `type` (a
 * known, persisted type), `id` and `timestamp`, an object `data`, and `parentId` a string, `null`
 * or absent (read as `null`). `data` is not checked field by field. Never throws.
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
  if (parentId !== undefined && parentId !== null && typeof parentId !== "string") {
    return undefined;
  }
  // The envelope is checked; `data` is trusted to match `type`, as we wrote it.
  return { type, data, id, timestamp, parentId: parentId ?? null } as SessionEvent;
}

/**
 * Splits `bytes` on `\n` bytes and decodes each line from line `fromSeq` on (default 1: all;
 * earlier lines are only counted). Splitting bytes rather than decoded text keeps a line cut
 * inside a multi-byte character a damaged line instead of a silently mangled one. Blank lines
 * lose nothing and are skipped without a note. Never throws.
 */
export function parseEventLog(bytes: Uint8Array, fromSeq = 1): EventLogContents {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const contents: EventLogContents = {
    events: [],
    seqs: [],
    repaired: [],
    validLength: buffer.length,
    nextSeq: 1,
  };
  let offset = 0;
  let line = 1;
  while (offset < buffer.length) {
    const end = buffer.indexOf(NEWLINE, offset);
    if (end === -1) {
      contents.repaired.push({ line, offset, length: buffer.length - offset, reason: "torn_tail" });
      contents.validLength = offset;
      break;
    }
    const result = line < fromSeq ? undefined : decodeEventLine(buffer.subarray(offset, end));
    if (result?.kind === "event") {
      contents.events.push(result.event);
      contents.seqs.push(line);
    } else if (result?.kind === "damaged") {
      contents.repaired.push({ line, offset, length: end - offset, reason: result.reason });
    }
    offset = end + 1;
    line += 1;
  }
  contents.nextSeq = line;
  return contents;
}

/**
 * Reads and decodes a whole `events.jsonl` (see {@link parseEventLog}). Damaged content never
 * throws.
 * @throws the I/O error as is: `ENOENT` when the file does not exist, `EACCES`, `EISDIR`, …
 */
export async function readEventLog(path: string, fromSeq = 1): Promise<EventLogContents> {
  return parseEventLog(await readFile(path), fromSeq);
}

/**
 * The bytes of `handle`'s file from `offset` on.
 * @throws Error when the file is shorter than `offset` (it is not the file the caller read).
 */
async function readPast(handle: FileHandle, offset: number): Promise<Buffer> {
  const { size } = await handle.stat();
  if (size < offset) {
    throw new Error(`the log has ${size} bytes, fewer than the ${offset} read before`);
  }
  const bytes = Buffer.alloc(size - offset);
  const { bytesRead } = await handle.read(bytes, 0, bytes.length, offset);
  return bytes.subarray(0, bytesRead);
}

/** `contents` parsed from `from.offset` on, with the whole file's line numbers and offsets. */
function wholeFileContents(
  contents: EventLogContents,
  from: { offset: number; seq: number },
): EventLogContents {
  if (from.offset === 0) {
    return contents;
  }
  const lines = from.seq - 1;
  return {
    events: contents.events,
    seqs: contents.seqs.map((seq) => seq + lines),
    repaired: contents.repaired.map((note) => ({
      ...note,
      line: note.line + lines,
      offset: note.offset + from.offset,
    })),
    validLength: contents.validLength + from.offset,
    nextSeq: contents.nextSeq + lines,
  };
}

/** Options of {@link EventLog.open}. */
export interface OpenEventLogOptions {
  /**
   * `true`: create the file (and its folders) when missing, as for a new session. `false`: the
   * file must exist, as for a resumed one.
   */
  create: boolean;
  /**
   * Read from `offset` on, the start of the line whose sequence number is `seq`, instead of from
   * the start: the caller read the lines before (file-store.ts: a lease taken back). Sequence
   * numbers, `validLength` and repair notes stay those of the whole file.
   */
  from?: { offset: number; seq: number };
}

/** An opened log plus what was in it when it was opened. */
export interface OpenedEventLog extends EventLogContents {
  log: EventLog;
  /** The torn tail cut from the file before any append (also the last entry of `repaired`). */
  cutTail: RepairNote | null;
}

/**
 * The writer of one `events.jsonl`. Only one writer per file (one process holds a session); two
 * writers would interleave whole lines, never bytes, but their parent chains would fork.
 */
export class EventLog {
  /** Absolute or relative path, as given to {@link EventLog.open}. */
  readonly path: string;
  readonly #handle: FileHandle;
  /** Bytes in the file, tracked to undo a partly written line. */
  #size: number;
  #closed = false;
  /** Set when a failed write could not be undone: further appends would fuse with it. */
  #broken: Error | undefined;

  private constructor(path: string, handle: FileHandle, size: number) {
    this.path = path;
    this.#handle = handle;
    this.#size = size;
  }

  /**
   * Opens `path` for appending, reads what is there, and cuts a torn tail (then syncs the cut)
   * so the next line starts on a line of its own. New files get mode 0600 and new folders 0700:
   * logs hold tool output, which may hold secrets.
   * @throws `ENOENT` when the file is missing and `create` is false; other I/O errors as is.
   */
  static async open(path: string, options: OpenEventLogOptions): Promise<OpenedEventLog> {
    if (options.create) {
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    }
    const flags = constants.O_RDWR | constants.O_APPEND | (options.create ? constants.O_CREAT : 0);
    const handle = await open(path, flags, 0o600);
    try {
      const from = options.from ?? { offset: 0, seq: 1 };
      const bytes =
        from.offset === 0 ? await handle.readFile() : await readPast(handle, from.offset);
      const contents = wholeFileContents(parseEventLog(bytes), from);
      let cutTail: RepairNote | null = null;
      if (contents.validLength < from.offset + bytes.length) {
        await handle.truncate(contents.validLength);
        await handle.datasync();
        cutTail = contents.repaired.at(-1) ?? null;
      }
      return {
        ...contents,
        cutTail,
        log: new EventLog(path, handle, contents.validLength),
      };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** Bytes in the file as far as this writer knows. */
  get size(): number {
    return this.#size;
  }

  /**
   * Writes `event` as one line (see {@link serializeEvent}) with a synchronous write: when this
   * returns, the line is in the file, after every line appended before it. A failed write is cut
   * back out, so the file never keeps half a line.
   * @returns the bytes written (the line with its `\n`).
   * @throws Error when `event` is ephemeral (a programming error: ephemeral events never reach
   * disk), when the log is closed or broken, or the write's I/O error (e.g. `ENOSPC`).
   */
  append(event: SessionEvent): number {
    if (event.ephemeral === true || isEphemeral(event.type)) {
      throw new Error(
        `Programming error: ephemeral event ${event.type} (${event.id}) must not be written to ${this.path}.`,
      );
    }
    this.#assertWritable();
    collectScheduledGarbage();
    const sizeBefore = this.#size;
    let written = 0;
    try {
      // In pieces: a huge line is never held whole, as text or bytes (event-line.ts).
      for (const piece of eventLinePieces(event)) {
        const bytes = Buffer.from(piece, "utf8");
        for (let offset = 0; offset < bytes.length; ) {
          offset += writeSync(this.#handle.fd, bytes, offset, bytes.length - offset);
        }
        written += bytes.length;
      }
    } catch (error) {
      this.#undoPartialWrite(sizeBefore, error);
      throw error;
    }
    this.#size = sizeBefore + written;
    // The pieces are garbage from here on: a huge line's are reclaimed before the model request
    // copies the same text again (huge-messages.ts).
    reclaimAfter(written);
    return written;
  }

  /**
   * Makes every line appended so far durable (`fdatasync`). Called at `assistant.turn_end`,
   * `session.idle` and before a prompt is answered.
   * @throws Error when the log is closed; the I/O error of the sync.
   */
  async flush(): Promise<void> {
    if (this.#closed) {
      throw new Error(`Event log ${this.path} is closed.`);
    }
    await this.#handle.datasync();
  }

  /**
   * Syncs and closes the file; waits for pending flushes. Later appends and flushes throw. Closing
   * twice is a no-op.
   */
  async close(): Promise<void> {
    if (this.#closed) {
      return;
    }
    this.#closed = true;
    try {
      await this.#handle.datasync();
    } finally {
      await this.#handle.close();
    }
  }

  #assertWritable(): void {
    if (this.#closed) {
      throw new Error(`Event log ${this.path} is closed.`);
    }
    if (this.#broken !== undefined) {
      throw new Error(`Event log ${this.path} is unusable after a failed write.`, {
        cause: this.#broken,
      });
    }
  }

  #undoPartialWrite(sizeBefore: number, writeError: unknown): void {
    try {
      ftruncateSync(this.#handle.fd, sizeBefore);
    } catch {
      this.#broken = writeError instanceof Error ? writeError : new Error(String(writeError));
    }
  }
}
