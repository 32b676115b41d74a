/**
 * The PostgreSQL store's {@link LiveEvents} (live-events.ts): a holder's ephemeral event goes out
 * as `NOTIFY turnloop_live` with `{worker, sessionId, event}` as its JSON payload, on a connection
 * of the pool; each worker's listening connection (notify.ts `CommitListener`) hands it to the
 * followers of that session here. A notification is delivered once the statement that sent it
 * commits, so after the stored events before it were committed (the holder tells its own clients
 * an ephemeral event only then: held-delivery.ts); a follower reads those first (remote-followers.ts).
 * A session's deletion goes out on the same channel as `{worker, sessionId, deleted: true}`, sent
 * inside the deleting transaction ({@link notifyDeleted}: delivered when it commits); a follower
 * that starts listening, or listens again after its connection failed, checks that its sessions
 * are still there ({@link PostgresLiveEvents.listening}): a deletion sent before reached no one.
 */

import type { ClientBase } from "pg";
import type { SessionEvent } from "../../events/events.js";
import type { LiveEvents } from "../live-events.js";
import type { Database } from "./database.js";
import type { CommitListener } from "./notify.js";

/** The channel of live events. */
export const LIVE_CHANNEL = "turnloop_live";
/** PostgreSQL refuses a payload of 8,000 bytes or more: a longer event is not sent. */
const MAX_PAYLOAD = 7_900;

export class PostgresLiveEvents implements LiveEvents {
  readonly #database: Database;
  readonly #workerId: string;
  readonly #listener: CommitListener;
  /** Who listens here, by session id. */
  readonly #listeners = new Map<string, Set<Listener>>();

  /** @param workerId this worker's id: its own notifications come back to it, and are skipped. */
  constructor(database: Database, workerId: string, listener: CommitListener) {
    this.#database = database;
    this.#workerId = workerId;
    this.#listener = listener;
  }

  publish(sessionId: string, event: SessionEvent): void {
    const payload = JSON.stringify({ worker: this.#workerId, sessionId, event });
    if (Buffer.byteLength(payload) > MAX_PAYLOAD) {
      return;
    }
    this.#database
      .pool()
      .then((pool) => pool.query("SELECT pg_notify($1, $2)", [LIVE_CHANNEL, payload]))
      .catch(() => undefined);
  }

  listen(
    sessionId: string,
    onEvent: (event: SessionEvent) => void,
    onDeleted: () => void,
  ): () => void {
    let listeners = this.#listeners.get(sessionId);
    if (listeners === undefined) {
      listeners = new Set();
      this.#listeners.set(sessionId, listeners);
    }
    const handler: Listener = { onEvent, onDeleted };
    listeners.add(handler);
    this.#listener.start("live");
    return () => {
      listeners.delete(handler);
      if (listeners.size === 0 && this.#listeners.get(sessionId) === listeners) {
        this.#listeners.delete(sessionId);
      }
      if (this.#listeners.size === 0) {
        void this.#listener.stop("live");
      }
    };
  }

  /**
   * A notification on {@link LIVE_CHANNEL}: to the listeners of its session, unless our own (this
   * worker's server told its own apps of a deletion it made).
   */
  received(payload: string): void {
    let message: { worker?: unknown; sessionId?: unknown; event?: unknown; deleted?: unknown };
    try {
      message = JSON.parse(payload) as typeof message;
    } catch {
      return; // Not ours to read: another program's notification on the channel.
    }
    const { worker, sessionId, event, deleted } = message;
    if (worker === this.#workerId || typeof sessionId !== "string") {
      return;
    }
    if (deleted === true) {
      this.#deleted(sessionId);
      return;
    }
    if (!isEvent(event)) {
      return;
    }
    for (const handler of this.#listeners.get(sessionId) ?? []) {
      handler.onEvent(event);
    }
  }

  /**
   * The listening connection's `LISTEN` took effect (at its start, or again after it failed): a
   * deletion notified before it reached no one here, so the sessions listened to that the
   * database has no more were deleted. A failed check is left to the next one (the session's
   * apps then learn it at their next call).
   */
  listening(): void {
    const sessionIds = [...this.#listeners.keys()];
    if (sessionIds.length === 0) {
      return;
    }
    this.#database
      .pool()
      .then((pool) =>
        pool.query<{ id: string }>("SELECT id FROM sessions WHERE id = ANY($1::text[])", [
          sessionIds,
        ]),
      )
      .then(({ rows }) => {
        const present = new Set(rows.map((row) => row.id));
        for (const sessionId of sessionIds) {
          if (!present.has(sessionId)) {
            this.#deleted(sessionId);
          }
        }
      })
      .catch(() => undefined);
  }

  #deleted(sessionId: string): void {
    for (const handler of [...(this.#listeners.get(sessionId) ?? [])]) {
      handler.onDeleted();
    }
  }
}

/** One listener of a session's live events. */
interface Listener {
  onEvent: (event: SessionEvent) => void;
  onDeleted: () => void;
}

/**
 * Tells the followers of `sessionId` on every other worker that it is deleted: to be sent in the
 * deleting transaction (`client`), so that it is delivered when the deletion commits, never if it
 * does not. `workerId`: the deleting worker's (its own server tells its own apps).
 */
export async function notifyDeleted(
  client: ClientBase,
  workerId: string,
  sessionId: string,
): Promise<void> {
  const payload = JSON.stringify({ worker: workerId, sessionId, deleted: true });
  await client.query("SELECT pg_notify($1, $2)", [LIVE_CHANNEL, payload]);
}

/** Whether `value` has an event's envelope (its data is the holder's, sent as it sent it). */
function isEvent(value: unknown): value is SessionEvent {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const { type, id, data } = value as Record<string, unknown>;
  return typeof type === "string" && typeof id === "string" && typeof data === "object";
}
