/**
 * The words a reopen writes to close what a process that ended left open (open-work.ts), kept
 * apart so that the session model's stop rule (session-model/prompt-stops.ts) can read them back
 * without importing the reopen.
 */

import type { SessionEventData } from "../events/events.js";

/** What the closing events say of work a process that ended left open. */
export const INTERRUPTED = "interrupted: the process running it ended before it finished";

/**
 * The error of a prompt whose process ended while it ran: what every app following the session
 * is told before its `session.idle` (prompt-end.ts), as a local prompt's failure is; and the
 * `session.error` a reopen writes to end a prompt no closed turn ends (open-work.ts
 * `OpenWork.closingEvents`), which the session model reads as the stop `interrupted`
 * (session-model/prompt-stops.ts).
 */
export const PROMPT_INTERRUPTED: SessionEventData["session.error"] = {
  errorType: "server",
  message: `the prompt was ${INTERRUPTED} (the session was reopened since)`,
};

/** Whether a `session.error`'s data is {@link PROMPT_INTERRUPTED}'s. */
export function isPromptInterrupted(data: SessionEventData["session.error"]): boolean {
  return (
    data.errorType === PROMPT_INTERRUPTED.errorType && data.message === PROMPT_INTERRUPTED.message
  );
}
