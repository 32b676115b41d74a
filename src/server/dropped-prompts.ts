/**
 * Queued prompts that a face on another worker sent (issue 22, remote-sessions.ts) and that an
 * abort of this worker's own client dropped unrun: their ids are recorded on the `abort` of the
 * prompt the abort cancelled (`droppedPromptIds`, events.ts), or on one of their own when it
 * cancelled none, and committed at once, so the follower that sent them ends their
 * wait with an error (session/prompt-end.ts) instead of at its `sendAndWait` timeout. A session
 * that is closing records none (server-session.ts): its `session.shutdown` tells the follower.
 * Prompts queued while the abort waits for the cancelled prompt to end are dropped too
 * ({@link AbortWait}).
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
  const reason = `cancelled by the user: ${droppedPromptIds.length} queued prompt(s) sent from another worker dropped`;
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

/**
 * The prompts queued while an abort waits for the prompt it cancelled to end, which that abort
 * drops too: a follower's prompt taken from the inbox meanwhile would otherwise run next, and the
 * abort would wait for it as well (for as long as it runs).
 */
export class AbortWait {
  #dropped: Job[] | undefined;

  /**
   * While an abort waits, empties `queue` into what it drops (the drain then ends).
   * @returns whether it took any prompt (the queue changed).
   */
  takeQueued(queue: Job[]): boolean {
    if (this.#dropped === undefined || queue.length === 0) {
      return false;
    }
    this.#dropped.push(...queue.splice(0));
    return true;
  }

  /**
   * Waits for `draining` (the drain the abort cancelled) to end.
   * @returns the `promptId`s of the prompts dropped meanwhile, to the first of concurrent aborts
   * only (one records them).
   */
  async until(draining: Promise<void> | undefined): Promise<string[]> {
    if (draining === undefined || this.#dropped !== undefined) {
      await draining;
      return [];
    }
    const dropped: Job[] = [];
    this.#dropped = dropped;
    try {
      await draining;
    } finally {
      this.#dropped = undefined;
    }
    return dropped.flatMap((job) => (job.promptId === undefined ? [] : [job.promptId]));
  }
}
