/**
 * Rewinding a conversation without rewriting its log: a `session.snapshot_rewind {upToEventId}`
 * event says that the events from `upToEventId` up to it are no longer part of the conversation.
 * Every fold of a whole log (resume, an SDK app's `session.getMessages`, a fork) reads the events
 * {@link conversationEvents} leaves; logs without such an event read as before.
 */

import type { SessionEvent } from "../events/events.js";

/**
 * The events of `events` (a log, in order) that are still part of the conversation: each
 * `session.snapshot_rewind` drops the events before it from its `upToEventId` on (itself kept, so
 * that a fold sees the rewind). A rewind whose `upToEventId` is not among the kept events (damage,
 * or an event removed by an earlier rewind) drops nothing.
 */
export function conversationEvents(events: Iterable<SessionEvent>): SessionEvent[] {
  const kept: SessionEvent[] = [];
  for (const event of events) {
    if (event.type === "session.snapshot_rewind") {
      const from = kept.findIndex((candidate) => candidate.id === event.data.upToEventId);
      if (from >= 0) {
        kept.length = from;
      }
    }
    kept.push(event);
  }
  return kept;
}

/** A rewind the session cannot make: the event is missing, or is the session's start. */
export class RewindTargetError extends Error {
  override readonly name = "RewindTargetError";
}

/**
 * Where rewinding `conversation` (from {@link conversationEvents}) to before `eventId` cuts it:
 * the index of that event, and how many events go.
 * @throws RewindTargetError when `eventId` is not in the conversation or is its `session.start`.
 */
export function rewindCut(
  conversation: readonly SessionEvent[],
  eventId: string,
): { index: number; eventsRemoved: number } {
  const index = conversation.findIndex((event) => event.id === eventId);
  if (index < 0) {
    throw new RewindTargetError(
      `event ${eventId} is not in the session's conversation (removed by an earlier rewind, or never in it)`,
    );
  }
  if (conversation[index]?.type === "session.start") {
    throw new RewindTargetError(
      `event ${eventId} is the session's start, which cannot be removed (create a new session instead)`,
    );
  }
  return { index, eventsRemoved: conversation.length - index };
}
