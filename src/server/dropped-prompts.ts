/**
 * Queued prompts that a face on another worker sent (issue 22, remote-sessions.ts) and that an
 * abort of this worker's own client dropped unrun: their ids are recorded on the `abort` of the
 * prompt the abort cancelled (`droppedPromptIds`, events.ts), or on one of their own when it
 * cancelled none, and committed at once, so the follower that sent them ends their
 * wait with an error (session/prompt-end.ts) instead of at its `sendAndWait` timeout. A session
 * that is closing records none (server-session.ts): its `session.shutdown` tells the follower.
 */

import { errorMessage } from "../events/errors.js";
import type { Session } from "../session/session.js";
import type { Job } from "./send-job.js";

/**
 * Puts the ids of the prompts among `dropped` that carry a `promptId` on the `abort` the running
 * prompt records when the abort cancels it (session-journal.ts), so the log holds one abort.
 * @returns what gives back the ids no abort carried (no prompt was cancelled: it had just ended,
 * or none ran), for {@link recordDroppedPrompts}.
 */
export function addDroppedToAbort(session: Session, dropped: readonly Job[]): () => string[] {
  const droppedPromptIds = dropped.flatMap((job) =>
    job.promptId === undefined ? [] : [job.promptId],
  );
  if (droppedPromptIds.length === 0) {
    return () => [];
  }
  const takeBack = session.journal.addToAbort({ droppedPromptIds });
  return () => takeBack()?.droppedPromptIds ?? [];
}

/**
 * Records `droppedPromptIds` on an `abort` of their own when no cancelled prompt's abort carried
 * them; nothing when there are none (an abort of this worker's own prompts only is the loop's,
 * unchanged). Never throws: a store that refuses the event is logged with `log`, and the follower
 * then ends at the owner's `session.shutdown` or its own timeout.
 */
export async function recordDroppedPrompts(
  session: Session,
  droppedPromptIds: readonly string[],
  log: (message: string) => void,
): Promise<void> {
  if (droppedPromptIds.length === 0) {
    return;
  }
  const reason = `cancelled by the user: ${droppedPromptIds.length} queued ${droppedPromptIds.length === 1 ? "prompt" : "prompts"} sent from another worker dropped`;
  try {
    session.emit({ type: "abort", data: { reason, droppedPromptIds: [...droppedPromptIds] } });
    // An emit outside a running prompt is not committed at once; the follower reads the store.
    await session.logForReaders();
  } catch (error) {
    log(
      `session ${session.id}: the prompts dropped by an abort were not recorded: ${errorMessage(error)}`,
    );
  }
}
