/**
 * The file store, the default {@link SessionStore}: one folder per session under
 * `$TURNLOOP_HOME/session-state/<sessionId>/` (paths.ts) holding `events.jsonl` (event-log.ts,
 * one event per line, its line number the event's sequence number), `lock`, the writer lease
 * (session-lock.ts: a second opener is refused naming the holder; a dead holder's lock on this
 * machine is taken over; a server holds it idle while its session is idle, see `closeIdle`), `metadata.json` for listings (session-metadata.ts), and the session's
 * own files (`tool-outputs/`, `mcp-results/`, `files/`).
 *
 * Appends are written at once (`writeSync`), so a line is in the file before `append` returns;
 * `commit` makes them durable (`fdatasync`) and then stores the listing metadata. `subscribe`
 * follows the commits of this process's appenders at once and another process's appends through
 * `fs.watch` and a slow poll (log-watch.ts), reading complete lines only.
 */

import { mkdir, open, readFile, stat } from "node:fs/promises";
import { errorCode } from "../events/errors.js";
import { isEphemeral, type SessionEvent } from "../events/events.js";
import { EventLog, parseEventLog, readEventLog } from "./event-log.js";
import { LogWatches } from "./log-watch.js";
import { eventsPath, sessionDirectory, validateSessionId } from "./paths.js";
import {
  FollowerRegistry,
  type ReadFrom,
  type SessionEventListener,
  type SessionSubscription,
} from "./session-follower.js";
import { SessionLock } from "./session-lock.js";
import {
  emptyScan,
  type LogScan,
  scanBytes,
  scanEvent,
  scanEvents,
  writeMetadata,
} from "./session-metadata.js";
import {
  CommitQueue,
  type LeaseHolder,
  type LeaseOptions,
  type OpenedSession,
  type SessionAppender,
  type SessionStore,
  type SessionSummary,
  type StoredLog,
} from "./session-store.js";
import { deleteSession, listSessions } from "./store.js";

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

  constructor(home: string) {
    this.location = home;
  }

  async create(sessionId: string, options: LeaseOptions = {}): Promise<SessionAppender> {
    const directory = sessionDirectory(this.location, sessionId);
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const lock = await SessionLock.acquire(directory, sessionId, options);
    const opened = await withLock(lock, () =>
      EventLog.open(eventsPath(this.location, sessionId), { create: true }),
    );
    if (opened.events.length > 0 || opened.repaired.length > 0) {
      await opened.log.close();
      await lock.release();
      throw new Error(`a session ${sessionId} already exists; resume it instead`);
    }
    return new FileAppender(sessionId, directory, opened.log, lock, scanEvents([], 0));
  }

  async open(sessionId: string, options: LeaseOptions = {}): Promise<OpenedSession> {
    const directory = sessionDirectory(this.location, sessionId);
    const lock = await SessionLock.acquire(directory, sessionId, options);
    const opened = await withLock(lock, () =>
      EventLog.open(eventsPath(this.location, sessionId), { create: false }),
    );
    const { events, seqs, repaired, nextSeq, validLength } = opened;
    const scan = scanEvents(events, validLength);
    return {
      appender: new FileAppender(sessionId, directory, opened.log, lock, scan),
      log: { events, seqs, repaired, nextSeq },
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
    try {
      const following = await followers.follow(path, sessionId, fromSeq, readsFrom(path), onEvent);
      return {
        readNow: () => following.readNow(),
        close: () => {
          stopWatching();
          return following.close();
        },
      };
    } catch (error) {
      stopWatching();
      throw error;
    }
  }

  list(filter: { cwd?: string | undefined } = {}): Promise<SessionSummary[]> {
    return listSessions(this.location, filter);
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
    await mkdir(directory, { recursive: true, mode: 0o700 });
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
      await writeMetadata(directory, scanBytes(emptyScan(), log));
    } finally {
      await lock.release();
    }
  }

  filesFolder(sessionId: string): string {
    return sessionDirectory(this.location, validateSessionId(sessionId));
  }
}

/**
 * Reads of one follower of `path`: each starts at the byte after the last complete line read
 * before, so following a log reads each byte about once.
 */
function readsFrom(path: string): ReadFrom {
  let offset = 0;
  /** The sequence number of the line starting at `offset`. */
  let offsetSeq = 1;
  return async (fromSeq) => {
    const handle = await open(path, "r");
    let bytes: Buffer;
    try {
      const { size } = await handle.stat();
      bytes = Buffer.alloc(Math.max(0, size - offset));
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, offset);
      bytes = bytes.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
    const before = offsetSeq - 1;
    const contents = parseEventLog(bytes, fromSeq - before);
    offset += contents.validLength;
    offsetSeq = before + contents.nextSeq;
    return {
      events: contents.events,
      seqs: contents.seqs.map((seq) => seq + before),
      nextSeq: offsetSeq,
    };
  };
}

/** Runs `open` holding `lock`; releases the lock when `open` throws. */
async function withLock<T>(lock: SessionLock, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/**
 * The events after which a commit stores the listing metadata: a session's start (a new session
 * lists from its metadata), each model turn's end, and (in `close`) the session's close. Other
 * commits (e.g. the one before each tool starts) only flush the log: a listing scans the bytes
 * past what the metadata describes (see `session-metadata.ts`), so it stays correct, and a
 * turn costs one metadata rewrite instead of one per commit (issue 26).
 */
const METADATA_POINTS: ReadonlySet<SessionEvent["type"]> = new Set([
  "session.start",
  "assistant.turn_end",
]);

/** The writer of one `events.jsonl`, holding its lock. */
class FileAppender implements SessionAppender {
  readonly sessionId: string;
  readonly #directory: string;
  readonly #log: EventLog;
  readonly #lock: SessionLock;
  /** The listing metadata of every event appended, stored at some commits (see {@link METADATA_POINTS}). */
  readonly #scan: LogScan;
  #storedSize = -1;
  /** An event of {@link METADATA_POINTS} was appended since the metadata was last stored. */
  #metadataDue = true;
  /** Commits (and their metadata writes) run in call order. */
  readonly #commits = new CommitQueue();
  #closed = false;

  constructor(
    sessionId: string,
    directory: string,
    log: EventLog,
    lock: SessionLock,
    scan: LogScan,
  ) {
    this.sessionId = sessionId;
    this.#directory = directory;
    this.#log = log;
    this.#lock = lock;
    this.#scan = scan;
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
    scanEvent(this.#scan, event, this.#log.append(event));
    if (METADATA_POINTS.has(event.type)) {
      this.#metadataDue = true;
    }
  }

  commit(): Promise<void> {
    return this.#commits.run(() => this.#commitNow());
  }

  async close(): Promise<void> {
    if (this.#closed) {
      return;
    }
    this.#closed = true;
    try {
      this.#metadataDue = true;
      await this.commit().catch(() => undefined);
      await this.#log.close();
    } finally {
      await this.#lock.release();
    }
  }

  async closeIdle(): Promise<() => Promise<void>> {
    if (this.#closed) {
      throw new Error(`session ${this.sessionId} is closed`);
    }
    this.#closed = true;
    try {
      await this.commit();
      await this.#log.close();
      await this.#lock.markIdle();
    } catch (error) {
      await this.#lock.release();
      throw error;
    }
    return () => this.#lock.release();
  }

  async #commitNow(): Promise<void> {
    await this.#log.flush();
    followers.wake(this.#log.path);
    const scan = { ...this.#scan };
    if (this.#metadataDue && scan.size !== this.#storedSize) {
      this.#metadataDue = false;
      await writeMetadata(this.#directory, scan);
      this.#storedSize = scan.size;
    }
  }
}
