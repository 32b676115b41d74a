/** The envelope every event gets when it is emitted (DESIGN.md, Session events). */

import { randomUUID } from "node:crypto";
import { type EventInput, isEphemeral, type SessionEvent } from "../events/events.js";

/** Ephemeral ids: a random prefix per process and a counter, unique without a UUID per delta. */
const EPHEMERAL_ID_PREFIX = `${randomUUID().slice(0, 18)}-e`;
let ephemeralCount = 0;
let cachedMillisecond = -1;
let cachedTimestamp = "";

/** `Date.now()` as ISO-8601, formatted once per millisecond (deltas arrive many per ms). */
function currentTimestamp(): string {
  const millisecond = Date.now();
  if (millisecond !== cachedMillisecond) {
    cachedMillisecond = millisecond;
    cachedTimestamp = new Date(millisecond).toISOString();
  }
  return cachedTimestamp;
}

/**
 * Wraps an event input in its envelope: an `id` (a UUID for persisted events; a unique
 * prefix-and-counter id for ephemeral ones, which run per streamed delta), `timestamp` = `now`
 * (default: the current time) as ISO-8601 with milliseconds (UTC), the given `parentId`, and
 * `ephemeral: true` for ephemeral types.
 */
export function createEnvelope(
  input: EventInput,
  parentId: string | null,
  now?: Date,
): SessionEvent {
  if (isEphemeral(input.type)) {
    // One literal of one shape: this runs for every streamed delta.
    return {
      type: input.type,
      data: input.data,
      id: `${EPHEMERAL_ID_PREFIX}${++ephemeralCount}`,
      timestamp: now === undefined ? currentTimestamp() : now.toISOString(),
      parentId,
      ephemeral: true,
    } as SessionEvent;
  }
  return {
    ...input,
    id: randomUUID(),
    timestamp: now === undefined ? currentTimestamp() : now.toISOString(),
    parentId,
  };
}
