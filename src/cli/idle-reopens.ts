/**
 * Which reopens of a session are not drawn as resumes: one rule for `sessions show` (render.ts),
 * the HTML view and the exports (session-view/fold.ts). The log records every reopen's
 * `session.resume` before it knows whether the reopen will work.
 */

import type { SessionEvent } from "../events/events.js";

/**
 * The `session.resume` events of reopens after which the conversation did not go on (no prompt,
 * no result given to a call left open, before the next reopen) and that repaired nothing: a
 * reopen that failed after its `session.resume` was written (`-p --resume` whose next write the
 * disk refused), one that only compacted (`sessions compact`: its line says what it did), one
 * that was closed at once. Their `— resumed` line would claim a resume that did not happen.
 * `openNow`: the last reopen is the open of the face drawing the log (plain-face.ts), drawn
 * though nothing follows it yet.
 */
export function idleReopens(
  events: readonly SessionEvent[],
  openNow: boolean,
): ReadonlySet<SessionEvent> {
  const idle = new Set<SessionEvent>();
  let reopen: SessionEvent | undefined;
  for (const event of events) {
    if (event.type === "session.resume") {
      reopen = event.data.repaired.length === 0 ? event : undefined;
      if (reopen !== undefined) {
        idle.add(reopen);
      }
    } else if (
      reopen !== undefined &&
      (event.type === "user.message" || event.type === "tool.execution_complete")
    ) {
      idle.delete(reopen);
      reopen = undefined;
    }
  }
  if (openNow && reopen !== undefined) {
    idle.delete(reopen);
  }
  return idle;
}
