/**
 * The PostgreSQL store's writer of one session. `append` queues the event's line (exactly what
 * the file store writes, `serializeEvent`); `commit` sends every queued line as one statement
 * that also checks the lease (owner and epoch) and stores the listing metadata, so a batch is
 * written whole under the lease or not at all. An `assistant.turn_start` starts a commit itself
 * (a model request is counted even when its worker dies during it). Zero rows means the lease is lost: the appender
 * refuses everything after that, and the session stops (session-journal.ts). A batch the database
 * refuses for good (database.ts `isRefusal`: a constraint, a trigger, a value it cannot hold) stops
 * the session the same way, its events named as lost ({@link BatchRefusedError}); a batch that
 * failed otherwise (the database unreachable, a full disk) is sent again at the next commit.
 */

import type { Pool } from "pg";
import { errorMessage } from "../../events/errors.js";
import { isEphemeral, type SessionEvent } from "../../events/events.js";
import { serializeEvent } from "../event-log.js";
import { promptOpen } from "../listed-prompt.js";
import { type LogScan, scanEvent } from "../session-metadata.js";
import { type CommitOptions, LeaseLostError, type SessionAppender } from "../session-store.js";
import { CommitQueue, eventCount, HeldBackLostError, listedTypes } from "../storage-error.js";
import { type Database, isRefusal } from "./database.js";
import { type Lease, releaseLease, type Worker } from "./lease.js";
import { COMMITS_CHANNEL, type CommitNotifier } from "./notify.js";
import { storedOptionalText, storedText } from "./stored-text.js";

/**
 * The database refused a batch of a session's events for good: those events are lost, and the
 * session takes no more (each later event would be chained to one the store never held, which
 * every reader skips: event-log-reading.ts `LogChain`); what was stored before is whole, and a
 * resume goes on from there. The message names the events and the database's reason.
 */
export class BatchRefusedError extends Error {
  override readonly name = "BatchRefusedError";

  constructor(types: readonly string[], reason: string) {
    super(
      `the database refuses ${eventCount(types)} of this session for good (${listedTypes(types)}: ${reason}); they are lost, and the session takes no more events here: resume it to go on after its last stored event`,
    );
  }
}

/** One queued row of `events`. */
export interface PendingRow {
  /** The event's id (not stored apart: it is in `data`). */
  id: string;
  seq: number;
  type: string;
  /** ISO-8601, or `null` when the line has none that parses. */
  timestamp: string | null;
  /** The line, `\n` included. */
  data: string;
}

/**
 * Inserts `rows` for the session under `lease` and stores `scan` as its listing metadata, in one
 * statement that checks owner and epoch; with `notify`, the statement also sends that commit
 * notification (notify.ts `COMMITS_CHANNEL`) when the lease held, delivered as it commits.
 * @returns whether the lease held (`false`: nothing was written).
 */
export async function writeRows(
  database: Database,
  lease: Lease,
  worker: Worker,
  batch: { rows: readonly PendingRow[]; scan: LogScan; notify: string | undefined },
  once = false,
): Promise<boolean> {
  const { rows, scan, notify } = batch;
  const nextSeq = (rows.at(-1)?.seq ?? lease.nextSeq - 1) + 1;
  const result = await database.retried(async (again) => {
    const pool = await database.pool();
    if (again && (await written(pool, lease, worker, nextSeq))) {
      return { rows: [{ id: lease.sessionId }] };
    }
    return pool.query<{ id: string }>(
      `WITH lease AS (
         UPDATE sessions SET next_seq = $4, event_count = $5, turns = $6, size = $7,
           cwd = $8, model = $9, start_time = $10, title = $11, name = $12,
           last_activity = coalesce($13, last_activity), prompt_open = $20, updated_at = now()
         WHERE id = $1 AND owner_id = $2 AND epoch = $3
         RETURNING id
       ), written AS (
         INSERT INTO events (session_id, seq, epoch, type, ts, data)
         SELECT lease.id, row.seq, $3, row.type, row.ts, row.data
         FROM lease, unnest($14::bigint[], $15::text[], $16::timestamptz[], $17::text[])
           AS row(seq, type, ts, data)
       )
       SELECT id, CASE WHEN $18::text IS NOT NULL THEN pg_notify($19, $18) END FROM lease`,
      [
        lease.sessionId,
        worker.id,
        lease.epoch,
        nextSeq,
        scan.eventCount,
        scan.turns,
        scan.size,
        ...storedMetadata(scan),
        rows.map((row) => row.seq),
        rows.map((row) => storedText(row.type)),
        rows.map((row) => row.timestamp),
        rows.map((row) => storedText(row.data)),
        notify ?? null,
        COMMITS_CHANNEL,
        promptOpen(scan.prompt),
      ],
    );
  }, once);
  if (result.rows.length === 0) {
    return false;
  }
  lease.nextSeq = nextSeq;
  return true;
}

/**
 * The listing metadata of `scan` as the `sessions` columns `cwd`, `model`, `start_time`, `title`,
 * `name` and `last_activity` hold them (stored-text.ts).
 */
export function storedMetadata(scan: LogScan): (string | null)[] {
  return [
    scan.start?.cwd ?? null,
    scan.model ?? scan.start?.model ?? null,
    scan.start?.startTime ?? null,
    scan.firstPrompt,
    scan.name,
    scan.lastTimestamp,
  ].map(storedOptionalText);
}

/**
 * Whether a batch ending before `nextSeq` is already stored under `lease`: a try whose connection
 * was cut after the server committed it (the answer lost) must not be sent again.
 */
async function written(
  pool: Pool,
  lease: Lease,
  worker: Worker,
  nextSeq: number,
): Promise<boolean> {
  const { rows } = await pool.query<{ next_seq: string }>(
    "SELECT next_seq FROM sessions WHERE id = $1 AND owner_id = $2 AND epoch = $3",
    [lease.sessionId, worker.id, lease.epoch],
  );
  return rows[0] !== undefined && Number(rows[0].next_seq) === nextSeq;
}

/** `timestamp` when PostgreSQL can store it as a `timestamptz`, else `null`. */
export function storableTimestamp(timestamp: unknown): string | null {
  return typeof timestamp === "string" && Number.isFinite(Date.parse(timestamp)) ? timestamp : null;
}

/** The writer of one session under its lease. */
export class PostgresAppender implements SessionAppender {
  readonly sessionId: string;
  readonly location: string;
  readonly #database: Database;
  readonly #lease: Lease;
  readonly #worker: Worker;
  readonly #scan: LogScan;
  readonly #onClose: () => Promise<void>;
  readonly #notifier: Pick<CommitNotifier, "statementStarting" | "statementSettled" | "around">;
  #pending: PendingRow[] = [];
  #nextSeq: number;
  /** Why every later call throws: the lease lost, or a batch refused for good (lease still held). */
  #lost: LeaseLostError | BatchRefusedError | undefined;
  readonly #lostController = new AbortController();
  readonly #commits = new CommitQueue();
  #closed = false;
  #lastStoredId: string | null = null;

  /**
   * @param onClose called once when closed (the store stops renewing the lease).
   * @param notifier tells the store's subscribers of each batch written (notify.ts).
   */
  constructor(
    database: Database,
    lease: Lease,
    worker: Worker,
    scan: LogScan,
    callbacks: {
      onClose: () => Promise<void>;
      notifier: Pick<CommitNotifier, "statementStarting" | "statementSettled" | "around">;
    },
  ) {
    this.sessionId = lease.sessionId;
    this.location = `${database.displayUrl} (session ${lease.sessionId})`;
    this.#database = database;
    this.#lease = lease;
    this.#worker = worker;
    this.#scan = scan;
    this.#onClose = callbacks.onClose;
    this.#notifier = callbacks.notifier;
    this.#nextSeq = lease.nextSeq;
  }

  get lost(): AbortSignal {
    return this.#lostController.signal;
  }

  /** Appended events wait for {@link commit} (see the file comment). */
  readonly holdsBack = true;

  /** The id of the last event a commit stored (`null` before any). */
  get lastStoredId(): string | null {
    return this.#lastStoredId;
  }

  /**
   * Marks the lease lost (the heartbeat found another owner, or an append was refused): every
   * later call throws, and {@link lost} is aborted.
   */
  leaseLost(): void {
    this.#lost ??= new LeaseLostError(this.sessionId);
    this.#lostController.abort(this.#lost);
  }

  append(event: SessionEvent): void {
    if (event.ephemeral === true || isEphemeral(event.type)) {
      throw new Error(
        `Programming error: ephemeral event ${event.type} (${event.id}) must not be stored.`,
      );
    }
    if (this.#closed) {
      throw new Error(`The writer of session ${this.sessionId} is closed.`);
    }
    if (this.#lost !== undefined) {
      throw this.#lost;
    }
    const data = serializeEvent(event);
    this.#pending.push({
      id: event.id,
      seq: this.#nextSeq,
      type: event.type,
      timestamp: storableTimestamp(event.timestamp),
      data,
    });
    this.#nextSeq += 1;
    scanEvent(this.#scan, event, Buffer.byteLength(data));
    if (event.type === "assistant.turn_start") {
      // Sent as the model request goes out, so that a worker killed during the request leaves
      // it counted (README, "Where sessions are kept": one `assistant.turn_start` per request
      // made). Not awaited: a failure keeps the batch for the next commit, which reports it.
      void this.commit().catch(() => undefined);
    }
  }

  commit(options: CommitOptions = {}): Promise<void> {
    return this.#commits.run((once) => this.#commitNow(once), options);
  }

  /**
   * Sends what is held back once more (within the retry budget), gives the lease back, and stops.
   * @throws HeldBackLostError when events held back could still not be written: they are lost
   * (the lease then lapses by itself).
   */
  async close(): Promise<void> {
    if (this.#closed) {
      return;
    }
    this.#closed = true;
    let lost: HeldBackLostError | undefined;
    try {
      await this.commit().catch((error: unknown) => {
        // A lease lost or a batch refused for good was said when it happened.
        const types = this.#pending.map((row) => row.type);
        if (this.#lost === undefined && types.length > 0) {
          lost = new HeldBackLostError(this.location, types, error);
        }
      });
      if (!(this.#lost instanceof LeaseLostError)) {
        // A lease the database cannot take back now (it went away) lapses by itself after the
        // lease time, like a killed worker's (README, "When a worker dies or freezes"); the
        // failure that made the database unreachable was already reported by the commit.
        const release = () => releaseLease(this.#database, this.#lease, this.#worker);
        await this.#notifier.around(release).catch(() => undefined);
      }
    } finally {
      await this.#onClose();
    }
    if (lost !== undefined) {
      throw lost;
    }
  }

  /** Stops the session: `batch` is refused for good (`error`), and so is what follows it. */
  #refused(batch: readonly PendingRow[], error: unknown): void {
    const message = errorMessage(error);
    const place = `${this.#database.displayUrl}: `;
    const reason = message.startsWith(place) ? message.slice(place.length) : message;
    this.#lost = new BatchRefusedError(
      [...batch, ...this.#pending].map((row) => row.type),
      reason,
    );
    this.#pending = [];
    this.#lostController.abort(this.#lost);
  }

  /** `once`: one try, without the retry budget (storage-error.ts `CommitQueue`). */
  async #commitNow(once = false): Promise<void> {
    if (this.#lost !== undefined) {
      throw this.#lost;
    }
    if (this.#pending.length === 0) {
      return;
    }
    const batch = this.#pending;
    this.#pending = [];
    let held = false;
    const notify = await this.#notifier.statementStarting(this.sessionId);
    try {
      const rows = { rows: batch, scan: { ...this.#scan }, notify };
      held = await writeRows(this.#database, this.#lease, this.#worker, rows, once);
    } catch (error) {
      if (isRefusal(error)) {
        this.#refused(batch, error);
        throw this.#lost;
      }
      // Nothing of the batch was written (one statement): the next commit sends it again.
      this.#pending = [...batch, ...this.#pending];
      throw error;
    } finally {
      this.#notifier.statementSettled(this.sessionId, notify, held);
    }
    if (!held) {
      this.leaseLost();
      throw this.#lost;
    }
    this.#lastStoredId = batch.at(-1)?.id ?? this.#lastStoredId;
  }
}
