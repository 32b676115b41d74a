/** The envelope every event gets when it is emitted (DESIGN.md, Session events). */

import { type EventInput, isEphemeral, type SessionEvent } from "../events/events.js";
import { randomUUID } from "../events/random-id.js";

/**
 * Ephemeral ids are UUIDs, as the persisted events' ids (and the Copilot SDK's event `id`) are,
 * without drawing one per delta: a random UUID's first four groups (version 4 and its variant
 * included), drawn once per process, then a counter as the last group's 12 digits (decimal
 * digits are hex digits, and a decimal string is the cheaper one to make per delta).
 */
const EPHEMERAL_ID_PREFIX = randomUUID().slice(0, 24);
const TWELVE_ZEROS = "000000000000";
let ephemeralCount = 0;
let cachedMillisecond = -1;
let cachedTimestamp = "";
/** The start of the cached second as ISO-8601 up to its `.` (`2026-12-04T13:58:14.`). */
let cachedSecond = -1;
let cachedSecondPrefix = "";

/**
 * `Date.now()` as ISO-8601 with milliseconds (UTC), as `Date.prototype.toISOString` writes it:
 * formatted once per millisecond (deltas arrive many per ms), and within one second only the
 * milliseconds are written anew (a log line's events are a few ms apart; `toISOString` made a
 * `Date` and formatted every field for each of them).
 */
function currentTimestamp(): string {
  const millisecond = Date.now();
  if (millisecond !== cachedMillisecond) {
    cachedMillisecond = millisecond;
    const second = Math.floor(millisecond / 1000);
    if (second !== cachedSecond) {
      cachedSecond = second;
      cachedSecondPrefix = new Date(second * 1000).toISOString().slice(0, -4);
    }
    const fraction = millisecond - second * 1000;
    cachedTimestamp = `${cachedSecondPrefix}${fraction < 10 ? "00" : fraction < 100 ? "0" : ""}${fraction}Z`;
  }
  return cachedTimestamp;
}

/**
 * Wraps an event input in its envelope: an `id` (a random UUID for persisted events; for
 * ephemeral ones, which run per streamed delta, a UUID of a per-process prefix and a counter),
 * `timestamp` = `now` (default: the current time) as ISO-8601 with milliseconds (UTC), the given
 * `parentId`, and `ephemeral: true` for ephemeral types.
 */
export function createEnvelope(
  input: EventInput,
  parentId: string | null,
  now?: Date,
): SessionEvent {
  if (isEphemeral(input.type)) {
    // One literal of one shape: this runs for every streamed delta.
    const count = `${++ephemeralCount}`;
    return {
      type: input.type,
      data: input.data,
      id: `${EPHEMERAL_ID_PREFIX}${TWELVE_ZEROS.slice(count.length)}${count}`,
      timestamp: now === undefined ? currentTimestamp() : now.toISOString(),
      parentId,
      ephemeral: true,
    } as SessionEvent;
  }
  // A literal of one shape too, not a spread of `input` (which copies key by key): inputs are
  // `{type, data}` (events.ts, EventInput), and the keys keep that order.
  return {
    type: input.type,
    data: input.data,
    id: randomUUID(),
    timestamp: now === undefined ? currentTimestamp() : now.toISOString(),
    parentId,
  } as SessionEvent;
}
