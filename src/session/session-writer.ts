/**
 * Chains events as they are emitted: each gets its envelope with `parentId` = the id of the last
 * persisted event, and persisted ones go to the store's appender before the caller hands them to
 * anyone ({@link SessionWriter}); held-delivery.ts then hands them on.
 */

import { type EventInput, isEphemeral, type SessionEvent } from "../events/events.js";
import { createEnvelope } from "./envelope.js";
import type { SessionAppender } from "./session-store.js";

/** Wraps event inputs in envelopes and appends the persisted ones to a {@link SessionAppender}. */
export class SessionWriter {
  readonly #appender: SessionAppender;
  #lastPersistedId: string | null;
  #storedCount: number;

  /**
   * @param appender the session's appender.
   * @param lastPersistedId id of the last event already stored (`null` for a new session), i.e.
   * `log.events.at(-1)?.id ?? null` of what `SessionStore.open` read.
   * @param storedCount how many readable events the log holds already (`log.eventCount ??
   * log.events.length` of what `SessionStore.open` read; 0 for a new session).
   */
  constructor(appender: SessionAppender, lastPersistedId: string | null, storedCount = 0) {
    this.#appender = appender;
    this.#lastPersistedId = lastPersistedId;
    this.#storedCount = storedCount;
  }

  /**
   * The readable events of the log as it will be once committed: those it held when opened, those
   * appended here and those another process appended ({@link follow}); what a full read counts.
   */
  get storedCount(): number {
    return this.#storedCount;
  }

  /** Id of the last event written (or given at construction); the next event's `parentId`. */
  get lastPersistedId(): string | null {
    return this.#lastPersistedId;
  }

  /**
   * Continues the chain after `eventId`, the last event another process appended (idle-lease.ts);
   * `appended` counts one more stored event (false: an event of its that is not stored).
   */
  follow(eventId: string | null, appended = false): void {
    this.#lastPersistedId = eventId;
    this.#storedCount += appended ? 1 : 0;
  }

  /**
   * Gives `input` its envelope and, unless it is ephemeral, appends it to the store. Ephemeral events
   * point at the last persisted event and do not move the chain.
   * @returns the enveloped event, appended when persisted.
   * @throws the appender's errors (closed, I/O); the chain does not move then.
   */
  write(input: EventInput, now?: Date): SessionEvent {
    const event = createEnvelope(input, this.#lastPersistedId, now);
    if (!isEphemeral(event.type)) {
      this.#appender.append(event);
      this.#lastPersistedId = event.id;
      this.#storedCount += 1;
    }
    return event;
  }
}

/**
 * Hands `event` to each of `listeners` in turn; one that throws does not stop the others (a face's
 * bug must not break the session; the face reports its own errors).
 */
export function publishTo(
  listeners: Iterable<(event: SessionEvent) => void>,
  event: SessionEvent,
): void {
  for (const listener of listeners) {
    try {
      listener(event);
    } catch {}
  }
}
