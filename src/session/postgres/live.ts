/**
 * The PostgreSQL store's {@link LiveEvents} (live-events.ts): a holder's ephemeral event goes out
 * as `NOTIFY turnloop_live` with `{worker, sessionId, event}` as its JSON payload, on a connection
 * of the pool; each worker's listening connection (notify.ts `CommitListener`) hands it to the
 * followers of that session here. A notification is delivered once the statement that sent it
 * commits, so after the stored events before it were committed (the holder tells its own clients
 * an ephemeral event only then: held-delivery.ts); a follower reads those first (remote-followers.ts).
 */

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
  readonly #listeners = new Map<string, Set<(event: SessionEvent) => void>>();

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

  listen(sessionId: string, onEvent: (event: SessionEvent) => void): () => void {
    let listeners = this.#listeners.get(sessionId);
    if (listeners === undefined) {
      listeners = new Set();
      this.#listeners.set(sessionId, listeners);
    }
    const handler = (event: SessionEvent) => onEvent(event);
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

  /** A notification on {@link LIVE_CHANNEL}: to the listeners of its session, unless our own. */
  received(payload: string): void {
    let message: { worker?: unknown; sessionId?: unknown; event?: unknown };
    try {
      message = JSON.parse(payload) as typeof message;
    } catch {
      return; // Not ours to read: another program's notification on the channel.
    }
    const { worker, sessionId, event } = message;
    if (worker === this.#workerId || typeof sessionId !== "string" || !isEvent(event)) {
      return;
    }
    for (const handler of this.#listeners.get(sessionId) ?? []) {
      handler(event);
    }
  }
}

/** Whether `value` has an event's envelope (its data is the holder's, sent as it sent it). */
function isEvent(value: unknown): value is SessionEvent {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const { type, id, data } = value as Record<string, unknown>;
  return typeof type === "string" && typeof id === "string" && typeof data === "object";
}
