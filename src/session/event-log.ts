/**
 * `events.jsonl`: the append-only log of one session, one {@link SessionEvent} per line.
 *
 * Writing: one `write` per line, synchronous, in call order, so an event is in the file (the page
 * cache) before `append` returns and before anything else is said about it; `flush` makes it
 * durable. Reading: damage never throws. A last line without its `\n` (a torn tail, from a crash
 * mid-write) and middle lines that do not decode are skipped and listed as {@link RepairNote}s.
 * Opening for append first cuts a torn tail, so a new line can never fuse with a broken one.
 */

import {
  closeSync,
  constants,
  fdatasync,
  fstatSync,
  ftruncateSync,
  openSync,
  read,
  readSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { isEphemeral, type RepairNote, type SessionEvent } from "../events/events.js";
import { collectScheduledGarbage, reclaimAfter } from "../llm/huge-messages.js";
import { eventLinePieces } from "./event-line.js";
import {
  type ChainStart,
  type EventLogContents,
  EventLogParser,
  type KeepEvent,
  LOG_START,
  type PositionalReader,
  readBlocks,
} from "./event-log-reading.js";
import { closeQuietly, createFile } from "./small-file.js";

export { createEnvelope } from "./envelope.js";
export { serializeEvent } from "./event-line.js";
export {
  decodeEventLine,
  type EventLineResult,
  type EventLogContents,
  EventLogParser,
  type KeepEvent,
  parseEventLog,
  readEventLog,
} from "./event-log-reading.js";

import { makeFolders } from "../events/errors.js";

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
    eventCount: contents.eventCount,
    lastId: contents.lastId,
    undecided: contents.undecided,
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
  /**
   * Which events the caller needs in `events` (see {@link parseEventLog}: the last event is kept
   * whatever it says); called with whole-file sequence numbers. Default: all.
   */
  keep?: KeepEvent;
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
  /** The file, open for appending (a descriptor: no `FileHandle`, see {@link EventLog.open}). */
  readonly #fd: number;
  /** Bytes in the file, tracked to undo a partly written line. */
  #size: number;
  /**
   * {@link #size} when a sync of this writer last completed, so a flush with nothing appended
   * since skips its `fdatasync` (a server commits and then closes a log it lets go idle, and
   * checkpoints can follow one another); -1 until the first sync, as the file may hold lines
   * another writer wrote but never synced.
   */
  #syncedSize = -1;
  /** The `fdatasync`s started and not yet completed: {@link close} waits for them. */
  readonly #syncsUnderWay = new Set<Promise<void>>();
  #closed = false;
  /** Set when a failed write could not be undone: further appends would fuse with it. */
  #broken: Error | undefined;

  private constructor(path: string, fd: number, size: number) {
    this.path = path;
    this.#fd = fd;
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
      await makeFolders(dirname(path), 0o700);
    }
    const flags = constants.O_RDWR | constants.O_APPEND | (options.create ? constants.O_CREAT : 0);
    // A create goes through the thread pool (on ext4 it may take hundreds of microseconds in the
    // kernel); opening an existing file is a path lookup, done here: a server takes a session's
    // lease back, and reopens its log, at every prompt (issue 26 figure 7d).
    const fd = options.create ? await createFile(path, flags, 0o600) : openSync(path, flags);
    try {
      const from = options.from ?? { offset: 0, seq: 1 };
      const { size } = fstatSync(fd);
      if (size < from.offset) {
        throw new Error(`the log has ${size} bytes, fewer than the ${from.offset} read before`);
      }
      const lines = from.seq - 1;
      const keep = options.keep;
      // A read from `from` begins at the appender's own last line (file-store.ts checks its id),
      // judged when it was read or written; what another process appended after it is judged here.
      const start: ChainStart = from.seq === 1 ? LOG_START : { from: "judged_event" };
      const parser = new EventLogParser(
        1,
        keep && ((event, seq) => keep(event, seq + lines)),
        start,
      );
      const bytesRead = await readRest(fd, from.offset, parser, size - from.offset);
      const contents = wholeFileContents(parser.end(), from);
      let cutTail: RepairNote | null = null;
      if (contents.validLength < from.offset + bytesRead) {
        ftruncateSync(fd, contents.validLength);
        await datasync(fd);
        cutTail = contents.repaired.at(-1) ?? null;
      }
      return {
        ...contents,
        cutTail,
        log: new EventLog(path, fd, contents.validLength),
      };
    } catch (error) {
      closeQuietly(fd);
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
          offset += writeSync(this.#fd, bytes, offset, bytes.length - offset);
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
   * Makes every line appended so far durable (`fdatasync`; none when a sync already completed
   * with nothing appended since). Called at `assistant.turn_end`, `session.idle` and before a
   * prompt is answered.
   * @throws Error when the log is closed; the I/O error of the sync.
   */
  async flush(): Promise<void> {
    if (this.#closed) {
      throw new Error(`Event log ${this.path} is closed.`);
    }
    await this.#sync();
  }

  async #sync(): Promise<void> {
    const size = this.#size;
    if (size === this.#syncedSize) {
      return;
    }
    const syncing = datasync(this.#fd);
    this.#syncsUnderWay.add(syncing);
    try {
      await syncing;
    } finally {
      this.#syncsUnderWay.delete(syncing);
    }
    // A sync that started after this one may have completed first, covering more.
    this.#syncedSize = Math.max(this.#syncedSize, size);
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
      await this.#sync();
    } finally {
      // Not while a sync of this descriptor is under way in the thread pool (a flush not awaited
      // by its caller); then on this thread: the syncs did the waiting, a close has nothing to write.
      await Promise.allSettled(this.#syncsUnderWay);
      closeSync(this.#fd);
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
    // The cut changes the file: the next flush syncs whatever was synced before.
    this.#syncedSize = -1;
    try {
      ftruncateSync(this.#fd, sizeBefore);
    } catch {
      this.#broken = writeError instanceof Error ? writeError : new Error(String(writeError));
    }
  }
}

/**
 * Bytes of a log left to read at most which are read on this thread (from the page cache: a few
 * microseconds), not through the thread pool a block at a time: a lease taken back reads the
 * log's last line and whatever another process appended meanwhile.
 */
const READ_HERE_BYTES = 64 * 1024;

/**
 * Decodes the file `fd` from `position` to its end through `parser` (`expectedBytes`: what a
 * `stat` said is left; up to {@link READ_HERE_BYTES}, read synchronously).
 * @returns the bytes read. @throws the I/O error as is.
 */
async function readRest(
  fd: number,
  position: number,
  parser: EventLogParser,
  expectedBytes: number,
): Promise<number> {
  if (expectedBytes > READ_HERE_BYTES) {
    return readBlocks(positionalReader(fd), position, parser, expectedBytes);
  }
  const buffer = Buffer.allocUnsafe(Math.max(expectedBytes, 1));
  let total = 0;
  for (;;) {
    const bytesRead = readSync(fd, buffer, 0, buffer.length, position + total);
    if (bytesRead === 0) {
      return total;
    }
    total += bytesRead;
    parser.push(buffer.subarray(0, bytesRead));
  }
}

/** Reads of `fd` through the thread pool, for {@link readBlocks}. */
function positionalReader(fd: number): PositionalReader {
  return {
    read: (buffer, offset, length, position) =>
      new Promise((resolve, reject) => {
        read(fd, buffer, offset, length, position, (error, bytesRead) => {
          if (error === null) {
            resolve({ bytesRead });
          } else {
            reject(error);
          }
        });
      }),
  };
}

/** `fdatasync(fd)` through the thread pool (it waits for the disk). */
function datasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => {
    fdatasync(fd, (error) => {
      if (error === null) {
        resolve();
      } else {
        reject(error);
      }
    });
  });
}
