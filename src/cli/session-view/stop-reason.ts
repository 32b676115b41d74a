/** The stop reason of a prompt in the session view: the session model's, as every reader's. */

import type { PromptStop } from "../../session/session-model/session-model.js";
import type { ViewTurn } from "./view-model.js";

/**
 * The stop reason of a prompt: `stop`, the session model's (session-model/types.ts
 * {@link PromptStop}: the recorded `stopReason`, `cancelled` at an `abort`, `error` at a
 * `session.error`, …), whenever the log says it. Else the prompt is `unfinished` while its last
 * conversation turn (a compaction's or a title's never counts) or a tool of it is open; a log of
 * an earlier version that ends a prompt on a turn that asked for tools stopped at the turn limit
 * (`max_turn_requests`) — except in the last prompt of a log in the oldest order (turn_start at
 * the first token), where it may be waiting for the model: `unfinished`.
 */
export function stopReasonOf(
  stop: PromptStop | undefined,
  turns: readonly ViewTurn[],
  isLast: boolean,
  olderOrder: boolean,
): string {
  if (stop !== undefined) {
    return stop;
  }
  const last = turns.findLast((turn) => turn.purpose === undefined);
  if (
    last === undefined ||
    last.status === "open" ||
    last.tools.some((tool) => tool.status === "running")
  ) {
    return "unfinished";
  }
  return isLast && olderOrder ? "unfinished" : "max_turn_requests";
}
