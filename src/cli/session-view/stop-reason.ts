/** The stop reason of a prompt, as the session view infers it from the log. */

import type { ViewMark, ViewPrompt, ViewTurn } from "./view-model.js";

/** ACP stop reasons for an AI SDK finish reason (DESIGN.md, "The loop"). */
const STOP_REASON_BY_FINISH: Record<string, string> = {
  stop: "end_turn",
  length: "max_tokens",
  "content-filter": "refusal",
};

/**
 * The stop reason of a prompt, inferred from its events (`session.idle`, which carries it, is
 * never written): `cancelled` after an `abort`, `error` after a `session.error`, else the last
 * turn's finish reason. A last turn that asked for tools and was followed by no other ends with
 * `max_turn_requests` — except in the last prompt of an older log (turn_start at the first
 * token), where it may be waiting for the model: `unfinished`, as for an open turn.
 */
export function stopReasonOf(
  prompt: ViewPrompt,
  turns: readonly ViewTurn[],
  pendingMarks: readonly ViewMark[],
  isLast: boolean,
  olderOrder: boolean,
): string {
  const marks = [...prompt.marks, ...turns.flatMap((turn) => turn.marks), ...pendingMarks];
  if (marks.some((mark) => mark.kind === "abort")) {
    return "cancelled";
  }
  const last = turns.at(-1);
  const lastError = marks.filter((mark) => mark.kind === "error").at(-1);
  if (lastError !== undefined && (last === undefined || lastError.at >= last.requestAt)) {
    return "error";
  }
  if (last === undefined || last.status === "open") {
    return "unfinished";
  }
  if (last.status === "cancelled" || last.status === "interrupted") {
    return last.status;
  }
  if (marks.some((mark) => mark.kind === "task_complete")) {
    return "end_turn";
  }
  const byFinish = STOP_REASON_BY_FINISH[last.finishReason ?? ""];
  if (byFinish !== undefined) {
    return byFinish;
  }
  if (last.tools.some((tool) => tool.status === "running")) {
    return "unfinished";
  }
  return isLast && olderOrder ? "unfinished" : "max_turn_requests";
}
