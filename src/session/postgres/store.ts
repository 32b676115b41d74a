/**
 * The PostgreSQL {@link SessionStore} (issue 22): sessions in one database, served by any number
 * of workers. Tables and migrations: schema.ts. One writer per session: a fenced lease
 * (lease.ts). Appends are queued and sent in one fenced statement per commit (appender.ts), so
 * they are durable at the port's commit points. Reads decode the rows' lines with the file
 * store's reader (read.ts). The session's local files (saved tool outputs, uploads) stay on the
 * worker, under `$TURNLOOP_HOME/session-files/<sessionId>`.
 */

import { rm } from "node:fs/promises";
import { randomUUID } from "../../events/random-id.js";
import type { LiveEvents } from "../live-events.js";
import { sessionFilesFolder, validateSessionId } from "../paths.js";
import {
  FollowerRegistry,
  type SessionEventListener,
  type SessionSubscription,
} from "../session-follower.js";
import { scanEvents } from "../session-metadata.js";
import type {
  LeaseHolder,
  OpenedSession,
  SessionAppender,
  SessionInbox,
  SessionStore,
  SessionSummary,
  StoredLog,
} from "../session-store.js";
import { PostgresAppender } from "./appender.js";
import { Database, retryDelaysMs } from "./database.js";
import { InboxReceiver } from "./inbox.js";
import {
  claimExisting,
  claimNew,
  isHeld,
  type Lease,
  LeaseKeeper,
  leaseTimings,
  liveLeaseSql,
  lockedError,
  toHolder,
  type Worker,
} from "./lease.js";
import { notifyDeleted, PostgresLiveEvents } from "./live.js";
import { CommitListener, CommitNotifier } from "./notify.js";
import { listRows, readRows, summaryRow } from "./read.js";
import { exportRows, importRows } from "./transfer.js";

/** Options of {@link PostgresSessionStore}. */
export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database`. */
  url: string;
  /** `$TURNLOOP_HOME`: where the sessions' local files go. */
  home: string;
  /**
   * Lease length in ms (default lease.ts `leaseTimings` of `process.env`: 10 s, the issue's
   * minimum, unless the test-only `TURNLOOP_TEST_LEASE_MS` is set).
   */
  leaseMs?: number;
  /** Heartbeat period in ms (default lease.ts `leaseTimings` of `process.env`: 2.5 s). */
  heartbeatMs?: number;
  /**
   * How often subscribers re-read without a notification, in ms (default 2 s; notify.ts). A
   * notification wakes them at once; the poll covers a lost one.
   */
  pollMs?: number;
  /**
   * The waits in ms before each new try of a write the database could not take because it could
   * not be reached (default database.ts `retryDelaysMs` of `process.env`: `DEFAULT_RETRY_DELAYS_MS`,
   * 5.1 s in all, unless the test-only `TURNLOOP_TEST_STORE_RETRY_DELAY_MS` is set).
   */
  retryDelaysMs?: readonly number[];
  /**
   * Gets one line when the heartbeat finds the database unreachable (its reason, password
   * redacted) and one when it is reachable again, never one per failed beat (lease.ts).
   */
  notice?: (line: string) => void;
}

/** Sessions in PostgreSQL. Each instance is one worker, with an id of its own. */
export class PostgresSessionStore implements SessionStore {
  /** The database URL, password redacted. */
  readonly location: string;
  readonly #database: Database;
  readonly #home: string;
  readonly #worker: Worker;
  readonly #keeper: LeaseKeeper;
  readonly #notifier: CommitNotifier;
  readonly #followers = new FollowerRegistry();
  readonly #listener: CommitListener;
  readonly #inbox: InboxReceiver;
  readonly #live: PostgresLiveEvents;

  constructor(options: PostgresStoreOptions) {
    this.#database = new Database(options.url, options.retryDelaysMs ?? retryDelaysMs(process.env));
    this.location = this.#database.displayUrl;
    this.#home = options.home;
    const timings = leaseTimings(process.env);
    this.#worker = {
      id: randomUUID(),
      leaseMs: options.leaseMs ?? timings.leaseMs,
      takesInbox: false,
    };
    this.#keeper = new LeaseKeeper(
      this.#database,
      this.#worker,
      options.heartbeatMs ?? timings.heartbeatMs,
      options.notice,
    );
    this.#notifier = new CommitNotifier(this.#database);
    this.#listener = new CommitListener(
      this.#database,
      {
        commits: (sessions) => {
          if (sessions === "all") {
            this.#followers.wakeAll();
            return;
          }
          for (const sessionId of sessions) {
            this.#followers.wake(sessionId);
          }
        },
        inbox: () => this.#inbox.wake(),
        live: (payload) => this.#live.received(payload),
        listening: () => this.#live.listening(),
      },
      options.pollMs,
    );
    this.#inbox = new InboxReceiver(this.#database, this.#worker, this.#listener);
    this.#live = new PostgresLiveEvents(this.#database, this.#worker.id, this.#listener);
  }

  /** See {@link LiveEvents}: a holder's ephemeral events to the workers following (live.ts). */
  get live(): LiveEvents {
    return this.#live;
  }

  /** See {@link SessionInbox}: messages for sessions this worker holds (inbox.ts). */
  get inbox(): SessionInbox {
    return this.#inbox;
  }

  async create(sessionId: string): Promise<SessionAppender> {
    validateSessionId(sessionId);
    await this.#inbox.marked();
    const lease = await claimNew(this.#database, sessionId, this.#worker);
    if (lease === undefined) {
      const holder = await this.holder(sessionId);
      if (holder !== undefined) {
        throw lockedError(sessionId, holder, this.location);
      }
      throw new Error(`a session ${sessionId} already exists; resume it instead`);
    }
    return this.#appender(lease, scanEvents([], 0));
  }

  async open(sessionId: string): Promise<OpenedSession> {
    validateSessionId(sessionId);
    await this.#inbox.marked();
    const lease = await claimExisting(this.#database, sessionId, this.#worker);
    try {
      const { events, seqs, repaired, nextSeq, validLength, tornSeq } = await readRows(
        this.#database,
        sessionId,
        1,
      );
      if (tornSeq !== undefined) {
        await this.#cutTornTail(lease, tornSeq);
      }
      lease.nextSeq = nextSeq;
      const appender = this.#appender(lease, scanEvents(events, validLength));
      return { appender, log: { events, seqs, repaired, nextSeq } };
    } catch (error) {
      await this.#database
        .run(async () =>
          (await this.#database.pool()).query(
            "UPDATE sessions SET owner_id = NULL, owner = NULL, lease_until = NULL WHERE id = $1 AND owner_id = $2 AND epoch = $3",
            [sessionId, this.#worker.id, lease.epoch],
          ),
        )
        .catch(() => undefined);
      throw error;
    }
  }

  async read(sessionId: string, options: { fromSeq?: number } = {}): Promise<StoredLog> {
    validateSessionId(sessionId);
    const { events, seqs, repaired, nextSeq } = await readRows(
      this.#database,
      sessionId,
      options.fromSeq ?? 1,
    );
    return { events, seqs, repaired, nextSeq };
  }

  /**
   * Follows the session's commits by any worker: catch-up by sequence number, then `LISTEN`
   * (notify.ts), re-reading from the next sequence number at every notification and poll.
   */
  async subscribe(
    sessionId: string,
    fromSeq: number,
    onEvent: SessionEventListener,
  ): Promise<SessionSubscription> {
    validateSessionId(sessionId);
    this.#listener.start("followers");
    return await this.#followers.follow(
      sessionId,
      sessionId,
      fromSeq,
      (from) => readRows(this.#database, sessionId, from),
      onEvent,
      () => void this.#listener.stop("followers"),
    );
  }

  list(filter: { cwd?: string | undefined } = {}): Promise<SessionSummary[]> {
    return listRows(this.#database, filter, this.#worker.leaseMs);
  }

  summary(sessionId: string): Promise<SessionSummary | undefined> {
    return summaryRow(this.#database, sessionId, this.#worker.leaseMs);
  }

  /** See {@link SessionStore.delete}: the followers on other workers are told at its commit (live.ts). */
  async delete(sessionId: string): Promise<boolean> {
    validateSessionId(sessionId);
    const deleted = await this.#database.transaction(async (client) => {
      const { rows } = await client.query<{
        owner_id: string | null;
        owner: unknown;
        live: boolean;
      }>(
        `SELECT owner_id, owner, ${liveLeaseSql(this.#worker.leaseMs)} AS live
         FROM sessions WHERE id = $1 FOR UPDATE`,
        [sessionId],
      );
      const [row] = rows;
      if (row === undefined) {
        return false;
      }
      if (isHeld(row)) {
        throw lockedError(sessionId, row.owner, this.location);
      }
      await client.query("DELETE FROM sessions WHERE id = $1", [sessionId]);
      await notifyDeleted(client, this.#worker.id, sessionId);
      return true;
    });
    if (deleted) {
      await rm(this.filesFolder(sessionId), { recursive: true, force: true });
    }
    return deleted;
  }

  async holder(sessionId: string): Promise<LeaseHolder | "unreadable" | undefined> {
    validateSessionId(sessionId);
    const pool = await this.#database.pool();
    const { rows } = await this.#database.run(() =>
      pool.query<{ owner_id: string | null; owner: unknown; live: boolean; epoch: string }>(
        `SELECT owner_id, owner, ${liveLeaseSql(this.#worker.leaseMs)} AS live, epoch
         FROM sessions WHERE id = $1`,
        [sessionId],
      ),
    );
    const [row] = rows;
    if (row === undefined || !isHeld(row)) {
      return undefined;
    }
    const holder = toHolder(row.owner);
    return holder === undefined ? "unreadable" : { ...holder, epoch: Number(row.epoch) };
  }

  async exportLog(sessionId: string): Promise<Buffer> {
    validateSessionId(sessionId);
    return exportRows(this.#database, sessionId);
  }

  async importLog(sessionId: string, log: Buffer): Promise<void> {
    validateSessionId(sessionId);
    await importRows(this.#database, sessionId, log);
  }

  filesFolder(sessionId: string): string {
    return sessionFilesFolder(this.#home, sessionId);
  }

  /** See `SessionStore.watch`: the heartbeat beats with no lease held too. */
  watch(): void {
    this.#keeper.watch();
  }

  /** Ends the heartbeat and closes the connections (open appenders should be closed first). */
  async close(): Promise<void> {
    await this.#keeper.stop();
    await this.#notifier.flush();
    await this.#listener.stop();
    await this.#inbox.close();
    await this.#database.close();
  }

  #appender(lease: Lease, scan: ReturnType<typeof scanEvents>): PostgresAppender {
    const appender: PostgresAppender = new PostgresAppender(
      this.#database,
      lease,
      this.#worker,
      scan,
      {
        onClose: () => this.#keeper.drop(lease.sessionId),
        notifier: this.#notifier,
      },
    );
    this.#keeper.keep(lease, () => appender.leaseLost());
    return appender;
  }

  /** Deletes a last row without its `\n`, under the lease, so appends start on a line of their own. */
  async #cutTornTail(lease: Lease, tornSeq: number): Promise<void> {
    const pool = await this.#database.pool();
    await this.#database.run(() =>
      pool.query(
        `WITH lease AS (
           UPDATE sessions SET next_seq = $4 WHERE id = $1 AND owner_id = $2 AND epoch = $3
           RETURNING id
         )
         DELETE FROM events USING lease WHERE events.session_id = lease.id AND events.seq >= $4`,
        [lease.sessionId, this.#worker.id, lease.epoch, tornSeq],
      ),
    );
  }
}
