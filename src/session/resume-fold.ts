/**
 * What `Session.resume` folds (issue 26 figure 5a: resuming a 100,000-event log). A
 * long log's events are mostly ones no fold on resume reads (turn ends, tool starts, permission
 * requests); holding every one of them at once cost more than reading them, so the store is asked
 * to keep only those {@link readOnResume} names, and the last (`LeaseOptions.keep`).
 */

import { History } from "../agent/history.js";
import type { SessionEvent, SessionEventOf, SessionEventType } from "../events/events.js";
import { openAppender } from "./idle-lease.js";
import { conversationEvents } from "./rewind.js";
import { SessionGrants } from "./session-grants.js";
import type { OpenedSession, SessionStore } from "./session-store.js";

/**
 * Events `Session.resume` reads besides the history's and the grants': the start, earlier
 * resumes (their repair notes are not reported twice, repair-notice.ts), rewinds and the
 * instructions loaded.
 */
const RESUME_TYPES: ReadonlySet<SessionEventType> = new Set<SessionEventType>([
  "session.start",
  "session.resume",
  "session.snapshot_rewind",
  "session.instructions_loaded",
]);

/** Whether `Session.resume` reads `event` (see the file comment). */
export function readOnResume(event: SessionEvent): boolean {
  return RESUME_TYPES.has(event.type) || History.reads(event) || SessionGrants.reads(event);
}

/**
 * The conversation (rewind.ts) that `Session.resume` folds, from `events`, what the store kept
 * of `sessionId`'s log with {@link readOnResume}. A rewind names the event it rewinds to, which
 * may be one the store left out; its cut is then not known from `events`, and the whole log is
 * read again (without the lease: the caller holds it, nobody else appends).
 * @throws the store's read error.
 */
export async function resumeConversation(
  store: SessionStore,
  sessionId: string,
  events: readonly SessionEvent[],
): Promise<SessionEvent[]> {
  if (!events.some((event) => event.type === "session.snapshot_rewind")) {
    return conversationEvents(events);
  }
  const ids = new Set<string>();
  let complete = true;
  for (const event of events) {
    if (event.type === "session.snapshot_rewind" && !ids.has(event.data.upToEventId)) {
      complete = false;
      break;
    }
    ids.add(event.id);
  }
  return conversationEvents(complete ? events : (await store.read(sessionId)).events);
}

/** What `Session.resume` starts from. */
export interface ResumeOpening {
  /** The lease and what the store kept of the log (see {@link readOnResume}). */
  opened: OpenedSession;
  /** The log's first `session.start`. */
  start: SessionEventOf<"session.start">;
  /** The events to fold, from {@link resumeConversation}. */
  conversation: SessionEvent[];
}

/**
 * Takes `sessionId`'s lease (idle-lease.ts `openAppender`, `releaseWhenIdle` as there), asking
 * the store to keep only the events {@link readOnResume} names.
 * @throws as `openAppender`; an Error when the log has no `session.start`, or the store's read
 * error (the lease is given back first).
 */
export async function openForResume(
  store: SessionStore,
  sessionId: string,
  releaseWhenIdle: boolean,
): Promise<ResumeOpening> {
  const opened = await openAppender(store, sessionId, releaseWhenIdle, readOnResume);
  try {
    const start = opened.log.events.find((event) => event.type === "session.start");
    if (start?.type !== "session.start") {
      throw new Error(`Session ${sessionId} has no session.start event; it cannot be resumed.`);
    }
    const conversation = await resumeConversation(store, sessionId, opened.log.events);
    return { opened, start, conversation };
  } catch (error) {
    await opened.appender.close();
    throw error;
  }
}
