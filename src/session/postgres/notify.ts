/**
 * How the workers of one database tell each other that a session's events were committed (issue
 * 22): `NOTIFY turnloop_commits` with the committed sessions' ids, coalesced to at most one per
 * worker per {@link NOTIFY_INTERVAL_MS}, inside an append's statement when one is due then, else
 * alone once no append is in flight ({@link CommitNotifier}); each worker with subscribers `LISTEN`s on a connection of
 * its own and wakes the followers of the sessions named. A notification is only a hint: followers
 * re-read by sequence number (session-follower.ts), and a slow poll ({@link DEFAULT_POLL_MS}) and
 * every reconnection wake them all, so a lost notification costs latency, never an event.
 */

import type { Client, Notification } from "pg";
import type { Database } from "./database.js";
import { INBOX_CHANNEL } from "./inbox.js";
import { LIVE_CHANNEL } from "./live.js";

/** The channel of commit notifications. */
export const COMMITS_CHANNEL = "turnloop_commits";
/** At most one notification per worker per this many ms (issue 22: 50 ms). */
export const NOTIFY_INTERVAL_MS = 50;
/** Every follower re-reads this often even without notifications (default). */
export const DEFAULT_POLL_MS = 2_000;
/** Wait before connecting again after the listening connection failed. */
const RECONNECT_MS = 500;
/** The payload naming every session: PostgreSQL caps a payload below 8,000 bytes. */
const EVERY_SESSION = "*";
const MAX_PAYLOAD = 7_000;

/**
 * Sends the worker's coalesced commit notifications, each naming every session committed since
 * the previous one, at least {@link NOTIFY_INTERVAL_MS} apart (measured when one is handed to its
 * connection). One that is due when an append statement goes out rides in that statement
 * ({@link statementStarting}: `pg_notify` in its transaction, so a listener is told when the rows
 * are visible, never before); a commit within the interval is told later, alone, once no append
 * statement (nor an appender's lease release, {@link around}) is in flight, on the pool's connection they left idle, and the next statement waits
 * for that one to be sent. So one worker's appends and notifications need one connection, not
 * two (`-p` opened a second one for the append sent while the notification held the first:
 * bench/notes/postgres35.md). PostgreSQL serialises the commits of transactions that notify, so
 * at most one statement per interval notifies.
 */
export class CommitNotifier {
  readonly #database: Database;
  readonly #pending = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  /** When the last notification was handed to its connection. */
  #lastSent = Number.NEGATIVE_INFINITY;
  /** A send is queued that has not taken the pending ids yet: it will take these too. */
  #queued = false;
  #sending: Promise<void> = Promise.resolve();
  /** A notification sent alone, from when it takes a connection until it gives it back. */
  #alone: Promise<void> | undefined;
  /** Append statements in flight, and who waits for there to be none. */
  #statements = 0;
  #noStatements: Array<() => void> = [];

  constructor(database: Database) {
    this.#database = database;
  }

  /** Notes that `sessionId`'s events were committed; notifies now or at the interval's end. */
  committed(sessionId: string): void {
    this.#pending.add(sessionId);
    if (this.#timer !== undefined || this.#queued) {
      return;
    }
    const wait = this.#lastSent + NOTIFY_INTERVAL_MS - performance.now();
    if (wait <= 0) {
      this.#send();
      return;
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#send();
    }, wait);
  }

  /**
   * Before an append statement of `sessionId` goes out: waits for a notification being sent alone
   * to give its connection back, then counts the statement in flight until
   * {@link statementSettled}. @returns the payload the statement notifies `COMMITS_CHANNEL` with
   * when a notification is due (every session pending, and `sessionId`), else `undefined`.
   */
  async statementStarting(sessionId: string): Promise<string | undefined> {
    while (this.#alone !== undefined) {
      await this.#alone;
    }
    this.#statements += 1;
    if (this.#lastSent + NOTIFY_INTERVAL_MS > performance.now()) {
      return undefined;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending.add(sessionId);
    this.#lastSent = performance.now();
    return this.#takePayload();
  }

  /**
   * After the statement {@link statementStarting} counted: `committed` whether it was, `payload`
   * what it notified with. A commit it did not notify for is told later ({@link committed}); the
   * sessions of a payload whose statement failed are pending again.
   */
  statementSettled(sessionId: string, payload: string | undefined, committed: boolean): void {
    this.#statementEnded();
    if (payload === undefined) {
      if (committed) {
        this.committed(sessionId);
      }
    } else if (!committed) {
      // Not stored, so not notified: the other sessions it named are told later.
      const others = payload === EVERY_SESSION ? [] : payload.split(",");
      for (const id of others.filter((other) => other !== sessionId)) {
        this.committed(id);
      }
    }
  }

  /**
   * Runs `work`, another statement of an appender (its lease's release), counted as an append
   * statement is: a notification sent alone waits for it, and it for one.
   */
  async around<T>(work: () => Promise<T>): Promise<T> {
    while (this.#alone !== undefined) {
      await this.#alone;
    }
    this.#statements += 1;
    try {
      return await work();
    } finally {
      this.#statementEnded();
    }
  }

  #statementEnded(): void {
    this.#statements -= 1;
    if (this.#statements === 0) {
      for (const resolve of this.#noStatements.splice(0)) {
        resolve();
      }
    }
  }

  /** Sends what is pending (after the interval, as any other) and waits for every notification. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.size > 0) {
      this.#send();
    }
    await this.#sending;
  }

  /** The pending sessions as one payload (every session when too long to name), none left. */
  #takePayload(): string {
    const joined = [...this.#pending].join(",");
    this.#pending.clear();
    return joined.length > MAX_PAYLOAD ? EVERY_SESSION : joined;
  }

  #send(): void {
    if (this.#queued) {
      return;
    }
    this.#queued = true;
    // A failed notification is only latency: the followers' poll reads the events.
    this.#sending = this.#sending.then(async () => {
      const wait = this.#lastSent + NOTIFY_INTERVAL_MS - performance.now();
      if (wait > 0) {
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
      if (this.#statements > 0) {
        await new Promise<void>((resolve) => this.#noStatements.push(resolve));
      }
      this.#queued = false;
      if (this.#pending.size === 0) {
        return; // A statement carried them.
      }
      this.#lastSent = performance.now();
      this.#alone = this.#notifyAlone(this.#takePayload());
      await this.#alone;
      this.#alone = undefined;
    });
  }

  /** Sends `payload` on a connection of the pool; when none can be had, it is pending again. */
  async #notifyAlone(payload: string): Promise<void> {
    const client = await this.#database
      .pool()
      .then((pool) => pool.connect())
      .catch(() => undefined);
    if (client === undefined) {
      // Pending for the next commit's notification.
      for (const id of payload === EVERY_SESSION ? [] : payload.split(",")) {
        this.#pending.add(id);
      }
      return;
    }
    let failure: unknown;
    try {
      await client.query("SELECT pg_notify($1, $2)", [COMMITS_CHANNEL, payload]);
    } catch (error) {
      failure = error; // See above; a connection that failed is not given back to the pool.
    } finally {
      client.release(failure instanceof Error ? failure : undefined);
    }
  }
}

/** What a worker listens for: each gets its notifications, every poll and every reconnection. */
export interface ListenHandlers {
  /** Commits of the sessions named, or `"all"` (poll, reconnection, an oversized payload). */
  commits(sessions: readonly string[] | "all"): void;
  /** A message may wait in the inbox (inbox.ts). */
  inbox(): void;
  /** A session's holder sent an ephemeral event, or a session was deleted: `payload` (live.ts). */
  live(payload: string): void;
  /** `LISTEN` took effect (started, or again after a failure): what was sent before was missed. */
  listening(): void;
}

/**
 * Listens for commit, inbox and live-event notifications while someone needs them (subscribers,
 * an inbox receiver, live events' listeners: live.ts), on a connection of its own, and polls.
 */
export class CommitListener {
  readonly #database: Database;
  readonly #handlers: ListenHandlers;
  readonly #pollMs: number;
  readonly #users = new Set<string>();
  #client: Promise<Client | undefined> | undefined;
  #poll: NodeJS.Timeout | undefined;

  /** @param pollMs how often every follower and the inbox are read without a notification. */
  constructor(database: Database, handlers: ListenHandlers, pollMs = DEFAULT_POLL_MS) {
    this.#database = database;
    this.#handlers = handlers;
    this.#pollMs = pollMs;
  }

  /** Starts listening and polling for `user` (`followers`, `inbox`); a no-op when started. */
  start(user: string): void {
    this.#users.add(user);
    if (this.#poll !== undefined) {
      return;
    }
    this.#poll = setInterval(() => this.#wakeAll(), this.#pollMs);
    this.#poll.unref();
    this.#connect();
  }

  /** `user` is done; once nobody needs it, stops listening and polling and closes the connection. */
  async stop(user?: string): Promise<void> {
    if (user === undefined) {
      this.#users.clear();
    } else {
      this.#users.delete(user);
    }
    if (this.#users.size > 0) {
      return;
    }
    clearInterval(this.#poll);
    this.#poll = undefined;
    const client = this.#client;
    this.#client = undefined;
    await (await client)?.end().catch(() => undefined);
  }

  get #started(): boolean {
    return this.#users.size > 0;
  }

  #wakeAll(): void {
    this.#handlers.commits("all");
    this.#handlers.inbox();
  }

  #connect(): void {
    const connecting = this.#listen().catch(() => {
      this.#retry(connecting);
      return undefined;
    });
    this.#client = connecting;
  }

  async #listen(): Promise<Client> {
    const client = await this.#database.ownClient();
    // The promise of this connection (set by #connect once this function first waited).
    const current = this.#client;
    client.on("notification", (message: Notification) => {
      if (message.channel === INBOX_CHANNEL) {
        this.#handlers.inbox();
        return;
      }
      if (message.channel === LIVE_CHANNEL) {
        this.#handlers.live(message.payload ?? "");
        return;
      }
      const payload = message.payload ?? EVERY_SESSION;
      this.#handlers.commits(payload === EVERY_SESSION ? "all" : payload.split(","));
    });
    client.on("end", () => this.#retry(current));
    await client.query(
      `LISTEN ${COMMITS_CHANNEL}; LISTEN ${INBOX_CHANNEL}; LISTEN ${LIVE_CHANNEL}`,
    );
    // What was sent before the LISTEN took effect reached no one here.
    this.#wakeAll();
    this.#handlers.listening();
    return client;
  }

  /** Connects again after a failure, unless stopped or already reconnected. */
  #retry(failed: Promise<Client | undefined> | undefined): void {
    if (!this.#started || this.#client !== failed) {
      return;
    }
    setTimeout(() => {
      if (this.#started && this.#client === failed) {
        this.#connect();
      }
    }, RECONNECT_MS).unref();
  }
}
