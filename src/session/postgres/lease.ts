/**
 * One writer per session in PostgreSQL: a lease with fencing, not a lock (issue 22). A worker
 * claims a session by raising its `epoch` on a row taken with `FOR UPDATE SKIP LOCKED`; every
 * append checks owner and epoch in the same statement (appender.ts), so a worker that lost the
 * lease (it froze past `lease_until` and another worker claimed the session) has its late
 * appends refused. Leases last {@link DEFAULT_LEASE_MS} and are renewed by a heartbeat on a
 * connection of its own ({@link LeaseKeeper}). A lease whose holder ran on this machine and whose
 * process is gone is taken over at once, as the file store does with its lock file.
 */

import { hostname } from "node:os";
import type { Client, PoolClient } from "pg";
import { shownCommand } from "../lock-file.js";
import { isAlive, ownCommand } from "../session-lock.js";
import { type LeaseGone, type LeaseHolder, SessionLockedError } from "../session-store.js";
import { connectionFailure, type Database, missingSession } from "./database.js";

/** How long a lease lasts without a heartbeat (issue 22: at least 10 s). */
export const DEFAULT_LEASE_MS = 10_000;
/** How often the heartbeat renews the worker's leases (issue 22: every 2–3 s). */
export const DEFAULT_HEARTBEAT_MS = 2_500;

/**
 * A test-only setting: the lease length in ms, a whole number from 1,000 to
 * {@link DEFAULT_LEASE_MS}, so that tests of a lease that lapses (a frozen owner) wait less for
 * it; the heartbeat then renews it as often in proportion (a quarter of the lease, as 2.5 s of
 * 10 s). Any other value is ignored. Not documented for users.
 */
export const TEST_LEASE_VARIABLE = "TURNLOOP_TEST_LEASE_MS";

/**
 * The lease length and heartbeat period (ms) of `env`: {@link TEST_LEASE_VARIABLE} and a quarter
 * of it when set, else {@link DEFAULT_LEASE_MS} and {@link DEFAULT_HEARTBEAT_MS}.
 */
export function leaseTimings(env: NodeJS.ProcessEnv): { leaseMs: number; heartbeatMs: number } {
  const value = Number(env[TEST_LEASE_VARIABLE]);
  return Number.isInteger(value) && value >= 1_000 && value <= DEFAULT_LEASE_MS
    ? { leaseMs: value, heartbeatMs: Math.round(value * (DEFAULT_HEARTBEAT_MS / DEFAULT_LEASE_MS)) }
    : { leaseMs: DEFAULT_LEASE_MS, heartbeatMs: DEFAULT_HEARTBEAT_MS };
}

/** A worker: one store instance, with an id of its own and who it is. */
export interface Worker {
  /** Random, per store instance: two stores in one process are two workers. */
  id: string;
  leaseMs: number;
  /**
   * Whether this worker takes its inbox (inbox.ts `InboxReceiver.receive`: the SDK server): the
   * leases it claims say so (`owner.takesInbox`), and only such a lease is sent prompts.
   */
  takesInbox: boolean;
  /**
   * This worker's start of reading its inbox failed (inbox.ts `InboxReceiver.receive`) and none
   * reads it now: the leases it claims say `takesInbox: false`, so that a prompt sent to them is
   * refused naming why, not as if the holder were a face that runs its own prompts only.
   */
  inboxFailed?: boolean;
}

/** A held lease: the session and the epoch every append must match. */
export interface Lease {
  sessionId: string;
  epoch: number;
  /** The session's `next_seq` when the lease was taken. */
  nextSeq: number;
}

/** Who this process is, as recorded in `sessions.owner`. */
function holderNow(worker: Worker): LeaseHolder {
  return {
    pid: process.pid,
    hostname: hostname(),
    command: ownCommand(),
    acquiredAt: new Date().toISOString(),
    ...(worker.takesInbox ? { takesInbox: true } : {}),
    ...(!worker.takesInbox && worker.inboxFailed === true ? { takesInbox: false } : {}),
  };
}

/** `owner` as stored, if it has the holder's shape. */
export function toHolder(owner: unknown): LeaseHolder | undefined {
  if (typeof owner !== "object" || owner === null) {
    return undefined;
  }
  const { pid, hostname: host, command, acquiredAt, takesInbox } = owner as Record<string, unknown>;
  if (typeof pid !== "number" || typeof host !== "string") {
    return undefined;
  }
  return {
    pid,
    hostname: host,
    command: typeof command === "string" ? shownCommand(command) : "?",
    acquiredAt: typeof acquiredAt === "string" ? acquiredAt : "?",
    ...(typeof takesInbox === "boolean" ? { takesInbox } : {}),
  };
}

/** A stored lease as read: held when it has an owner, has not lapsed and its holder lives. */
export function isHeld(row: { owner_id: string | null; owner: unknown; live: boolean }): boolean {
  return leaseGone(row) === undefined;
}

/**
 * Why nobody holds a stored lease (session-store.ts {@link LeaseGone}), `undefined` while it is
 * held: no owner (`released`); a holder on this machine whose process is gone (`ended`, told
 * before a lapse: it is what was seen); else one not renewed in time (`lapsed`).
 */
export function leaseGone(row: {
  owner_id: string | null;
  owner: unknown;
  live: boolean;
}): LeaseGone | undefined {
  if (row.owner_id === null) {
    return "released";
  }
  const holder = toHolder(row.owner);
  if (holder !== undefined && holder.hostname === hostname() && !isAlive(holder.pid)) {
    return "ended";
  }
  return row.live ? undefined : "lapsed";
}

/** The refusal for a session whose lease `owner` holds. */
export function lockedError(sessionId: string, owner: unknown, where: string): SessionLockedError {
  return new SessionLockedError(
    sessionId,
    toHolder(owner),
    where,
    "If that worker is gone, its lease lapses and the session can be opened again.",
  );
}

const LEASE_INTERVAL = "$3::double precision * interval '1 millisecond'";

/**
 * SQL, over a `sessions` row: whether its lease is live for a reader whose own leases last
 * `leaseMs` (ms). A lease lives until its `lease_until`. One that ran out before the database
 * server last started (`pg_postmaster_start_time()`) may have run out while the server was down,
 * when no holder could renew: it lives on until one lease period after the start, so that its
 * holder has a whole lease to renew in before it is taken for dead. Without this, the first claim
 * after a restart took a live worker's session from under the app attached to it (trial 33). A
 * lease that ran out while the server ran is not live: its holder could have renewed.
 */
export function liveLeaseSql(leaseMs: number): string {
  const graceMs = Number.isFinite(leaseMs) ? Math.max(0, Math.trunc(leaseMs)) : DEFAULT_LEASE_MS;
  const started = "pg_postmaster_start_time()";
  return `coalesce(lease_until > now() OR (lease_until <= ${started} AND now() < ${started} + ${graceMs} * interval '1 millisecond'), false)`;
}

/**
 * Inserts a new session row holding its lease.
 * @returns the lease; `undefined` when a session with that id exists.
 */
export async function claimNew(
  database: Database,
  sessionId: string,
  worker: Worker,
): Promise<Lease | undefined> {
  const pool = await database.pool();
  const { rows } = await database.run(() =>
    pool.query<{ epoch: string }>(
      `INSERT INTO sessions (id, owner_id, owner, epoch, lease_until)
       VALUES ($1, $2, $4, 1, now() + ${LEASE_INTERVAL})
       ON CONFLICT (id) DO NOTHING RETURNING epoch`,
      [sessionId, worker.id, worker.leaseMs, JSON.stringify(holderNow(worker))],
    ),
  );
  const [row] = rows;
  return row === undefined ? undefined : { sessionId, epoch: Number(row.epoch), nextSeq: 1 };
}

/**
 * Claims an existing session: raises its epoch unless a live holder has it.
 * @throws an Error with `code: "ENOENT"` when there is no such session; SessionLockedError when
 * it is held (or being claimed by another worker right now).
 */
export function claimExisting(
  database: Database,
  sessionId: string,
  worker: Worker,
): Promise<Lease> {
  return database.transaction(async (client) => {
    const { rows } = await client.query<{ owner_id: string | null; owner: unknown; live: boolean }>(
      `SELECT owner_id, owner, ${liveLeaseSql(worker.leaseMs)} AS live
       FROM sessions WHERE id = $1 FOR UPDATE SKIP LOCKED`,
      [sessionId],
    );
    const [row] = rows;
    if (row === undefined) {
      throw await missingOrBusy(client, sessionId, database.displayUrl);
    }
    if (isHeld(row)) {
      throw lockedError(sessionId, row.owner, database.displayUrl);
    }
    const claimed = await client.query<{ epoch: string; next_seq: string }>(
      `UPDATE sessions SET owner_id = $2, owner = $4, epoch = epoch + 1, status = 'open',
         lease_until = now() + ${LEASE_INTERVAL}
       WHERE id = $1 RETURNING epoch, next_seq`,
      [sessionId, worker.id, worker.leaseMs, JSON.stringify(holderNow(worker))],
    );
    const [lease] = claimed.rows;
    if (lease === undefined) {
      throw missingSession(sessionId);
    }
    return { sessionId, epoch: Number(lease.epoch), nextSeq: Number(lease.next_seq) };
  });
}

/** The error for a row another claimer has locked, or for no row at all. */
async function missingOrBusy(client: PoolClient, sessionId: string, where: string) {
  const { rows } = await client.query<{ owner: unknown }>(
    "SELECT owner FROM sessions WHERE id = $1",
    [sessionId],
  );
  const [row] = rows;
  return row === undefined ? missingSession(sessionId) : lockedError(sessionId, row.owner, where);
}

/** Gives the lease up (a no-op when it was already lost). */
export async function releaseLease(database: Database, lease: Lease, worker: Worker) {
  const pool = await database.pool();
  await database.run(() =>
    pool.query(
      `UPDATE sessions SET owner_id = NULL, owner = NULL, lease_until = NULL, status = 'idle'
       WHERE id = $1 AND owner_id = $2 AND epoch = $3`,
      [lease.sessionId, worker.id, lease.epoch],
    ),
  );
}

/**
 * Renews a worker's leases every `heartbeatMs` on a client of its own, connected while the
 * worker holds any lease. A lease the renewal no longer finds (another worker raised its epoch)
 * is reported lost once. A failed renewal (connection trouble) is retried at the next beat; the
 * fencing keeps the log safe meanwhile. `notice` gets one line at the first failed beat (the
 * database unreachable, with the reason) and one at the first good beat after it (trial 36,
 * P4-1: an operator had no trace of a 22 s outage), not one per retry. A worker that serves
 * clients ({@link watch}) beats while it holds no lease too, so that it says the same of an
 * outage while idle (lane pg, session 37: only the worker holding a session said anything).
 */
export class LeaseKeeper {
  readonly #database: Database;
  readonly #worker: Worker;
  readonly #heartbeatMs: number;
  readonly #held = new Map<string, { lease: Lease; onLost: () => void }>();
  #timer: NodeJS.Timeout | undefined;
  #client: Promise<Client> | undefined;
  #beating: Promise<void> = Promise.resolve();
  readonly #notice: (line: string) => void;
  /** Whether the last beat failed (the database unreachable), said once by {@link #notice}. */
  #unreachable = false;
  /** Beats while no lease is held too ({@link watch}). */
  #watching = false;

  constructor(
    database: Database,
    worker: Worker,
    heartbeatMs: number,
    notice: (line: string) => void = () => undefined,
  ) {
    this.#database = database;
    this.#worker = worker;
    this.#heartbeatMs = heartbeatMs;
    this.#notice = notice;
  }

  /** Keeps `lease` alive until {@link drop}; `onLost` is called if it is found lost. */
  keep(lease: Lease, onLost: () => void): void {
    this.#held.set(lease.sessionId, { lease, onLost });
    this.#start();
  }

  /**
   * Beats from now on, with no lease held too (a server worker: its outage lines, see the class),
   * until {@link stop}.
   */
  watch(): void {
    this.#watching = true;
    this.#start();
  }

  /** Stops renewing the session's lease; ends the heartbeat when none is left (unless watching). */
  async drop(sessionId: string): Promise<void> {
    this.#held.delete(sessionId);
    if (this.#held.size === 0 && !this.#watching) {
      await this.stop();
    }
  }

  /** Ends the heartbeat and its connection. */
  async stop(): Promise<void> {
    this.#watching = false;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#beating;
    const client = this.#client;
    this.#client = undefined;
    await (await client?.catch(() => undefined))?.end().catch(() => undefined);
  }

  #start(): void {
    this.#timer ??= setInterval(() => {
      this.#beating = this.#beating.then(() => this.#beat());
    }, this.#heartbeatMs);
    // Open sessions (a server's connections) keep the process alive; the heartbeat alone must not.
    this.#timer.unref();
  }

  async #beat(): Promise<void> {
    const held = [...this.#held.values()];
    if (held.length === 0 && !this.#watching) {
      return;
    }
    try {
      this.#client ??= this.#database.ownClient();
      const client = await this.#client;
      // A connection the server ended since the last beat (a fast stop's 57P01) fails this beat
      // with its reason, and is replaced at the next (`pg` would refuse the statement, no cause).
      const ended = connectionFailure(client);
      if (ended !== undefined) {
        throw ended;
      }
      // With no lease held, the renewal below renews nothing: it only finds the database there.
      const { rows } = await client.query<{ id: string }>(
        `UPDATE sessions AS s SET lease_until = now() + $3::double precision * interval '1 millisecond'
         FROM unnest($1::text[], $2::bigint[]) AS h(id, epoch)
         WHERE s.id = h.id AND s.epoch = h.epoch AND s.owner_id = $4 RETURNING s.id`,
        [
          held.map(({ lease }) => lease.sessionId),
          held.map(({ lease }) => lease.epoch),
          this.#worker.leaseMs,
          this.#worker.id,
        ],
      );
      if (this.#unreachable) {
        this.#unreachable = false;
        const renewed = held.length === 0 ? "" : ": leases renewed";
        this.#notice(`${this.#database.displayUrl} is reachable again${renewed}`);
      }
      const renewed = new Set(rows.map((row) => row.id));
      for (const { lease, onLost } of held) {
        if (!renewed.has(lease.sessionId) && this.#held.get(lease.sessionId)?.lease === lease) {
          this.#held.delete(lease.sessionId);
          onLost();
        }
      }
    } catch (error) {
      if (!this.#unreachable) {
        this.#unreachable = true;
        const reason = this.#database.unreachableReason(error);
        this.#notice(
          `${this.#database.displayUrl} is unreachable (${reason}): ${unreachableWhat(held.length)}; retrying every ${this.#heartbeatMs} ms`,
        );
      }
      const client = this.#client;
      this.#client = undefined;
      await (await client?.catch(() => undefined))?.end().catch(() => undefined);
    }
  }
}

/** What a worker holding `held` leases cannot do while the database is unreachable. */
function unreachableWhat(held: number): string {
  if (held === 0) {
    return "this worker can open no session";
  }
  return `the leases of this worker's ${held === 1 ? "session" : `${held} sessions`} are not renewed`;
}
