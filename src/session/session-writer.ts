/**
 * Chains events as they are emitted: each gets its envelope with `parentId` = the id of the last
 * persisted event, and persisted ones go to the log before the caller hands them to anyone.
 */

import { type EventInput, isEphemeral, type SessionEvent } from "../events/events.js";
import { createEnvelope, type EventLog } from "./event-log.js";

/** Wraps event inputs in envelopes and appends the persisted ones to an {@link EventLog}. */
export class SessionWriter {
  readonly #log: EventLog;
  #lastPersistedId: string | null;

  /**
   * @param log the session's open log.
   * @param lastPersistedId id of the last event already in the log (`null` for an empty log), i.e.
   * `events.at(-1)?.id ?? null` of what {@link EventLog.open} read.
   */
  constructor(log: EventLog, lastPersistedId: string | null) {
    this.#log = log;
    this.#lastPersistedId = lastPersistedId;
  }

  /** Id of the last event written (or given at construction); the next event's `parentId`. */
  get lastPersistedId(): string | null {
    return this.#lastPersistedId;
  }

  /**
   * Gives `input` its envelope and, unless it is ephemeral, appends it to the log. Ephemeral events
   * point at the last persisted event and do not move the chain.
   * @returns the enveloped event, already on disk when persisted.
   * @throws the log's append errors (closed log, I/O); the chain does not move then.
   */
  write(input: EventInput, now?: Date): SessionEvent {
    const event = createEnvelope(input, this.#lastPersistedId, now);
    if (!isEphemeral(event.type)) {
      this.#log.append(event);
      this.#lastPersistedId = event.id;
    }
    return event;
  }
}
