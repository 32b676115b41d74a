/**
 * The reads of one follower of a session's `events.jsonl` (the file store's `subscribe`): one
 * file handle, opened at the first read and kept until the following ends, and a byte offset.
 * Each read asks the handle for the file's size (`fstat`) and reads only the bytes past the last
 * complete line read before, so a wake-up that finds nothing new (the slow poll of log-watch.ts, a change
 * notice for bytes already read) costs one `fstat`, not an open, an `fstat`, a read and a close
 * (issue 26: 1,000 idle sessions followed in one server), and following a log reads each byte
 * about once. Until there is something to read, the handle is not opened: the size is asked of
 * the path (a synchronous `stat`, cheaper than a round trip through Node's I/O threads), so a
 * server that lets a session's lease go idle and takes it back before anything else was appended
 * (every prompt of the SDK server, idle-lease.ts) opens and closes nothing for its follower.
 */

import { statSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { errorCode } from "../events/errors.js";
import { parseEventLog } from "./event-log.js";
import { type ChainStart, type EventLogContents, LOG_START } from "./event-log-reading.js";
import type { FollowedLog } from "./session-follower.js";

/** One follower's reader of `path` (see the file comment). */
export class FollowerLogReader {
  readonly path: string;
  #handle: FileHandle | undefined;
  /** Bytes read up to the end of the last complete line. */
  #offset: number;
  /** The sequence number of the line starting at {@link #offset}. */
  #offsetSeq: number;
  /** Where the lines past {@link #offset} are in the log's chain: after its last event read. */
  #chainStart: ChainStart;

  /**
   * @param start where to begin: the byte offset of a line start, that line's sequence number
   * and the id of the last event of the log's chain before it (default the start of the file),
   * when the lines before are known (file-store.ts).
   */
  constructor(
    path: string,
    start: { offset: number; seq: number; lastId: string | undefined } = {
      offset: 0,
      seq: 1,
      lastId: undefined,
    },
  ) {
    this.path = path;
    this.#offset = start.offset;
    this.#offsetSeq = start.seq;
    this.#chainStart = start.offset === 0 ? LOG_START : { from: "after_event", id: start.lastId };
  }

  /**
   * The complete lines stored past those read before, as events with sequence number ≥ `fromSeq`.
   * @throws an Error with `code: "ENOENT"` when the log is missing or was deleted (its last link
   * removed: a deleted session); other I/O errors as is (the follower tries again later).
   */
  async read(fromSeq: number): Promise<FollowedLog> {
    if (this.#handle === undefined && this.#sizeOfPath() <= this.#offset) {
      return { events: [], seqs: [], nextSeq: this.#offsetSeq };
    }
    this.#handle ??= await open(this.path, "r");
    const handle = this.#handle;
    const { size, nlink } = await handle.stat();
    if (nlink === 0) {
      await this.close();
      throw Object.assign(new Error(`${this.path} was deleted`), { code: "ENOENT" });
    }
    if (size <= this.#offset) {
      return { events: [], seqs: [], nextSeq: this.#offsetSeq };
    }
    const before = this.#offsetSeq - 1;
    // Each read goes on from the last event of the chain read before; one that meets a parent
    // outside what it read (a line chained to an older event, or after a damaged line) cannot
    // judge it, and the log is read again from its first line, as a whole read judges it.
    let read = await this.#parse(handle, this.#offset, size, fromSeq - before, this.#chainStart);
    let offsetBefore = this.#offset;
    let linesBefore = before;
    if (read.undecided) {
      read = await this.#parse(handle, 0, size, fromSeq, LOG_START);
      [offsetBefore, linesBefore] = [0, 0];
    }
    this.#offset = offsetBefore + read.validLength;
    this.#offsetSeq = linesBefore + read.nextSeq;
    this.#chainStart = { from: "after_event", id: read.lastId };
    return {
      events: read.events,
      seqs: read.seqs.map((seq) => seq + linesBefore),
      nextSeq: this.#offsetSeq,
    };
  }

  /** The lines of `handle`'s bytes from `offset` to `size`, decoded from line `fromSeq` on. */
  async #parse(
    handle: FileHandle,
    offset: number,
    size: number,
    fromSeq: number,
    start: ChainStart,
  ): Promise<EventLogContents> {
    const buffer = Buffer.alloc(size - offset);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
    return parseEventLog(buffer.subarray(0, bytesRead), fromSeq, undefined, start);
  }

  /**
   * The size of the file at {@link path} now.
   * @throws an Error with `code: "ENOENT"` when it is missing (a deleted session); other I/O
   * errors as is.
   */
  #sizeOfPath(): number {
    try {
      return statSync(this.path).size;
    } catch (error) {
      if (errorCode(error) === "ENOENT") {
        throw Object.assign(new Error(`${this.path} was deleted`), { code: "ENOENT" });
      }
      throw error;
    }
  }

  /** Closes the handle; a later {@link read} opens it again. Never throws. */
  async close(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close().catch(() => undefined);
  }
}
