/**
 * A request that records events in a session (a name, a `session.log` line, a mode, its grants)
 * is answered once its apps were told them, as Copilot answers after its events, also when the
 * session's store tells them only once a commit stored them (session/held-delivery.ts
 * `HeldDelivery`: an idle file-store session's lease let go, PostgreSQL's commits).
 */

import type { SessionJournal } from "../session/session-journal.js";
import type { ServerSession } from "./server-session.js";

/** A session's journal, and how many events it was handed then. */
export interface JournalMark {
  journal: SessionJournal;
  handedOn: number;
}

/** A request's `sessionId`, when it has one. */
export function sessionIdOf(params: unknown): string | undefined {
  const sessionId =
    typeof params === "object" && params !== null && "sessionId" in params
      ? params.sessionId
      : undefined;
  return typeof sessionId === "string" ? sessionId : undefined;
}

/** How many events the journal of `sessionId`'s open session was handed so far, and which. */
export function journalMark(
  sessions: ReadonlyMap<string, ServerSession>,
  sessionId: string | undefined,
): JournalMark | undefined {
  const journal = sessionId === undefined ? undefined : sessions.get(sessionId)?.session.journal;
  return journal === undefined ? undefined : { journal, handedOn: journal.handedOn };
}

/**
 * Resolves once the events the open session `sessionId` was handed since `mark` (taken before the
 * request ran; none: the session was not open then) reached its apps, or were dropped.
 */
export async function toldSince(
  sessions: ReadonlyMap<string, ServerSession>,
  sessionId: string | undefined,
  mark: JournalMark | undefined,
): Promise<void> {
  const journal = sessionId === undefined ? undefined : sessions.get(sessionId)?.session.journal;
  if (journal !== undefined && (journal !== mark?.journal || journal.handedOn > mark.handedOn)) {
    await journal.delivered(journal.handedOn);
  }
}
