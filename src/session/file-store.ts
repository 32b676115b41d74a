/**
 * The file store, the default {@link SessionStore}: one folder per session under
 * `$TURNLOOP_HOME/session-state/<sessionId>/` (paths.ts) holding `events.jsonl` (event-log.ts,
 * one event per line, its line number the event's sequence number), `lock`, the writer lease
 * (session-lock.ts: a second opener is refused naming the holder; a dead holder's lock on this
 * machine is taken over; a server holds it idle while its session is idle, see `closeIdle`),
 * `metadata.json` for listings (session-metadata.ts), and the session's own files
 * (`tool-outputs/`, `mcp-results/`, `files/`).
 *
 * Appends are written at once (`writeSync`), so a line is in the file before `append` returns;
 * `commit` makes them durable (`fdatasync`) and then stores the listing metadata. `subscribe`
 * follows the commits of this process's appenders at once and another process's appends through
 * `fs.watch` and a slow poll (log-watch.ts), reading complete lines only, through one file handle
 * per follower (file-store-reader.ts).
 */

import { open, readFile, stat } from "node:fs/promises";
import { errorCode, makeFolders } from "../events/errors.js";
import { isEphemeral, type SessionEvent } from "../events/events.js";
import { EventLog, readEventLog } from "./event-log.js";
import { FollowerLogReader } from "./file-store-reader.js";
import { LogWatches } from "./log-watch.js";
import { eventsPath, sessionDirectory, validateSessionId } from "./paths.js";
import {
  FollowerRegistry,
  type SessionEventListener,
  type SessionSubscription,
} from "./session-follower.js";
import { type IdleLock, SessionLock } from "./session-lock.js";
import {
  type LogScan,
  type LogTail,
  metadataPath,
  openLog,
  scanEvent,
  scanEvents,
  scanLog,
  writeMetadata,
} from "./session-metadata.js";
import type {
  CommitOptions,
  LeaseHolder,
  LeaseOptions,
  OpenedSession,
  SessionAppender,
  SessionStore,
  SessionSummary,
  StoredLog,
} from "./session-store.js";
import { CommitQueue, rejectAs } from "./storage-error.js";
import { deleteSession, listSessions, summarizeSession } from "./store.js";

/**
 * The subscribers of every file store of this process, by `events.jsonl` path: an appender wakes
 * them at each commit; {@link watches} wakes them when another process appends.
 */
const followers = new FollowerRegistry();
/** The logs followed in this process, watched for other processes' appends. */
const watches = new LogWatches((path) => followers.wake(path));

/** Sessions as files under a turnloop home folder. */
export class FileSessionStore implements SessionStore {
  /** `$TURNLOOP_HOME`, absolute. */
  readonly location: string;
  /**
   * Where each log this store's appenders let go idle (`closeIdle`) ended, by path: a lease taken
   * back with `fromSeq` reads from there instead of the whole log (issue 26). Removed when the
   * lease is taken back or given up.
   */
  readonly #idleTails = new Map<string, LogTail>();

  constructor(home: string) {
    this.location = home;
  }

  /** Creates the session's folder, lock and empty `events.jsonl` (a failed write: `StorageError`). */
  async create(sessionId: string, options: LeaseOptions = {}): Promise<SessionAppender> {
    const directory = sessionDirectory(this.location, sessionId);
    const lock = await SessionLock.acquireInNewFolder(directory, sessionId, options);
    const path = eventsPath(this.location, sessionId);
    const opened = await lock.whileOpening(
      () => EventLog.open(path, { create: true }).catch((error) => rejectAs(path, error)),
      directory,
    );
    if (opened.events.length > 0 || opened.repaired.length > 0) {
      await opened.log.close();
      await lock.release();
      throw new Error(`a session ${sessionId} already exists; resume it instead`);
    }
    const state = { scan: scanEvents([], 0), nextSeq: 1, lastLine: undefined };
    return new FileAppender(sessionId, directory, opened.log, lock, state, this.#idleTails);
  }

  async open(sessionId: string, options: LeaseOptions = {}): Promise<OpenedSession> {
    const directory = sessionDirectory(this.location, sessionId);
    const path = eventsPath(this.location, sessionId);
    const left = this.#idleTails.get(path);
    const leftIdleHere = left === undefined ? false : (left.idleLock ?? true);
    const lock = await SessionLock.acquire(directory, sessionId, options, leftIdleHere);
    const tail = this.#idleTails.get(path);
    this.#idleTails.delete(path);
    const usable = tail !== undefined && (options.fromSeq ?? 1) >= tail.nextSeq ? tail : undefined;
    const { opened, state } = await lock.whileOpening(() => openLog(path, usable, options.keep));
    const { events, seqs, repaired, nextSeq, eventCount } = opened;
    return {
      appender: new FileAppender(sessionId, directory, opened.log, lock, state, this.#idleTails),
      log: {
        events,
        seqs,
        repaired,
        nextSeq,
        ...(options.keep === undefined ? {} : { eventCount }),
      },
    };
  }

  async read(sessionId: string, options: { fromSeq?: number } = {}): Promise<StoredLog> {
    const { events, seqs, repaired, nextSeq } = await readEventLog(
      eventsPath(this.location, sessionId),
      options.fromSeq ?? 1,
    );
    return { events, seqs, repaired, nextSeq };
  }

  /**
   * Follows the commits of this process's appenders, and another process's appends as
   * `fs.watch` or the poll notices them (see {@link SessionStore.subscribe}).
   */
  async subscribe(
    sessionId: string,
    fromSeq: number,
    onEvent: SessionEventListener,
  ): Promise<SessionSubscription> {
    const path = eventsPath(this.location, sessionId);
    const stopWatching = watches.watch(path);
    // A log this store let go idle is followed from where its appender left it.
    const tail = this.#idleTails.get(path);
    const start =
      tail !== undefined && fromSeq >= tail.nextSeq
        ? { offset: tail.scan.size, seq: tail.nextSeq, lastId: tail.scan.lastId ?? undefined }
        : undefined;
    const reader = new FollowerLogReader(path, start);
    try {
      const read = (from: number) => reader.read(from);
      const following = await followers.follow(path, sessionId, fromSeq, read, onEvent);
      return {
        readNow: () => following.readNow(),
        close: async () => {
          stopWatching();
          await following.close();
          await reader.close();
        },
      };
    } catch (error) {
      stopWatching();
      await reader.close();
      throw error;
    }
  }

  list(filter: { cwd?: string | undefined } = {}): Promise<SessionSummary[]> {
    return listSessions(this.location, filter);
  }

  summary(sessionId: string): Promise<SessionSummary | undefined> {
    return summarizeSession(this.location, sessionId);
  }

  delete(sessionId: string): Promise<boolean> {
    return deleteSession(this.location, sessionId);
  }

  async holder(sessionId: string): Promise<LeaseHolder | "unreadable" | undefined> {
    const directory = sessionDirectory(this.location, sessionId);
    try {
      await stat(directory);
    } catch {
      return undefined;
    }
    return SessionLock.holder(directory);
  }

  exportLog(sessionId: string): Promise<Buffer> {
    return readFile(eventsPath(this.location, sessionId));
  }

  async importLog(sessionId: string, log: Buffer): Promise<void> {
    const directory = sessionDirectory(this.location, sessionId);
    await makeFolders(directory, 0o700);
    const lock = await SessionLock.acquire(directory, sessionId);
    try {
      const handle = await open(eventsPath(this.location, sessionId), "wx", 0o600).catch(
        (error: unknown) => {
          throw errorCode(error) === "EEXIST"
            ? new Error(`a session ${sessionId} already exists in ${this.location}`)
            : error;
        },
      );
      try {
        await handle.writeFile(log);
        await handle.datasync();
      } finally {
        await handle.close();
      }
      await writeMetadata(directory, scanLog(log));
    } finally {
      await lock.release();
    }
  }

  filesFolder(sessionId: string): string {
    return sessionDirectory(this.location, validateSessionId(sessionId));
  }
}

/**
 * A commit stores the listing metadata when the log grew since it was last stored, except a
 * checkpoint inside a prompt (`commit({ checkpoint: true })`: a turn's end, a tool's start), which
 * stores it only when none was stored (nor carried in a {@link LogTail}), when `session.start`
 * appeared, or {@link LISTING_TAIL_BYTES} past it. A listing scans the bytes past what the
 * metadata describes (session-metadata.ts; the title too), so it stays correct after a kill
 * mid-prompt, and a prompt rewrites it once per {@link LISTING_TAIL_BYTES} and at its end, not
 * at every turn or first tool (issue 26, figures 3 and 7d: a file written and renamed).
 */
/** Most log bytes a listing of a live session scans past its stored metadata (about one read). */
export const LISTING_TAIL_BYTES = 64 * 1024;

/** The writer of one `events.jsonl`, holding its lock. */
class FileAppender implements SessionAppender {
  readonly sessionId: string;
  readonly #directory: string;
  readonly #log: EventLog;
  readonly #lock: SessionLock;
  /** The listing metadata of every event appended, stored at some commits (see {@link LISTING_TAIL_BYTES}). */
  readonly #scan: LogScan;
  #nextSeq: number;
  #lastLine: LogTail["lastLine"];
  /** The store's {@link LogTail}s of logs let go idle. */
  readonly #idleTails: Map<string, LogTail>;
  /** The listing metadata last stored by this writer. */
  #stored: LogScan | undefined;
  /** Commits (and their metadata writes) run in call order. */
  readonly #commits = new CommitQueue();
  #closed = false;

  constructor(
    sessionId: string,
    directory: string,
    log: EventLog,
    lock: SessionLock,
    state: LogTail,
    idleTails: Map<string, LogTail>,
  ) {
    this.sessionId = sessionId;
    this.#directory = directory;
    this.#log = log;
    this.#lock = lock;
    this.#scan = state.scan;
    this.#nextSeq = state.nextSeq;
    this.#lastLine = state.lastLine;
    this.#stored = state.stored;
    this.#idleTails = idleTails;
  }

  get location(): string {
    return this.#log.path;
  }

  append(event: SessionEvent): void {
    if (event.ephemeral === true || isEphemeral(event.type)) {
      throw new Error(
        `Programming error: ephemeral event ${event.type} (${event.id}) must not be stored.`,
      );
    }
    const offset = this.#scan.size;
    scanEvent(this.#scan, event, this.#log.append(event));
    this.#lastLine = { offset, id: event.id };
    this.#nextSeq += 1;
  }

  commit(options: CommitOptions = {}): Promise<void> {
    if (options.recorded === true) {
      // `append` wrote every event or threw (event-log.ts): nothing to sync or wait for.
      followers.wake(this.#log.path);
      return Promise.resolve();
    }
    const checkpoint = options.checkpoint === true;
    // One try per commit, no budget to spare: a prompt's end tries again (`endOfPrompt` ignored).
    return this.#commits.run(() => this.#commitNow(checkpoint), { checkpoint });
  }

  async close(): Promise<void> {
    if (this.#closed) {
      return;
    }
    this.#closed = true;
    try {
      await this.commit().catch(() => undefined);
      await this.#log.close();
    } finally {
      // A lock left (an unwritable folder) names this process: once it ends, the next opener takes it.
      await this.#lock.release().catch(() => undefined);
    }
  }

  async closeIdle(): Promise<() => Promise<void>> {
    if (this.#closed) {
      throw new Error(`session ${this.sessionId} is closed`);
    }
    this.#closed = true;
    let idleLock: IdleLock | undefined;
    try {
      await this.commit();
      await this.#log.close();
      idleLock = await this.#lock.markIdle();
    } catch (error) {
      await this.#lock.release();
      throw error;
    }
    const path = this.#log.path;
    const [scan, stored] = [{ ...this.#scan }, this.#stored];
    const tail = { scan, nextSeq: this.#nextSeq, lastLine: this.#lastLine, stored, idleLock };
    this.#idleTails.set(path, tail);
    return () => {
      if (this.#idleTails.get(path) === tail) {
        this.#idleTails.delete(path);
      }
      return this.#lock.release();
    };
  }

  async #commitNow(checkpoint: boolean): Promise<void> {
    await this.#log.flush();
    followers.wake(this.#log.path);
    const scan = { ...this.#scan };
    if (this.#metadataWanted(scan, checkpoint)) {
      const directory = this.#directory;
      await writeMetadata(directory, scan).catch((e) => rejectAs(metadataPath(directory), e));
      this.#stored = scan;
    }
  }

  /** Whether this commit stores `scan` as the listing metadata (see {@link LISTING_TAIL_BYTES}). */
  #metadataWanted(scan: LogScan, checkpoint: boolean): boolean {
    const stored = this.#stored;
    if (stored === undefined) {
      return true;
    }
    if (scan.size === stored.size) {
      return false;
    }
    return (
      !checkpoint ||
      (stored.start === null) !== (scan.start === null) ||
      scan.size - stored.size >= LISTING_TAIL_BYTES
    );
  }
}
