import { terminalText } from "../events/errors.js";
import type { PlanItem, ToolCall } from "../session/session-model/session-model.js";

/** The mark of each plan status, as every terminal face shows it (issue 24 item 2). */
export const PLAN_MARKS = { pending: "☐", in_progress: "◐", completed: "☑" } as const;

/**
 * The plan as checklist lines, one per entry in order: `☐ pending`, `◐ in progress`, `☑ done`.
 * Built from the session model's plan (`SessionModel.plan`, the fold of `session.plan_updated`),
 * never from the `update_plan` call's arguments. An entry is the model's text without terminal
 * control sequences (events/errors.ts terminalText); its line breaks become spaces; a status
 * the fold does not know shows as pending. Empty plan: no lines.
 */
export function planChecklist(plan: readonly PlanItem[]): string[] {
  return plan.map((entry) => {
    const mark = PLAN_MARKS[entry.status] ?? PLAN_MARKS.pending;
    return `${mark} ${terminalText(String(entry.content)).replace(/\s*\n\s*/g, " ")}`;
  });
}

/**
 * Whether a tool call shows as the plan's checklist rather than a tool line of its own: an
 * `update_plan` that has not ended unsuccessfully (`failed`, `denied` or `interrupted`); its
 * `session.plan_updated` draws the checklist. The one rule of every terminal face: `-p` and
 * `sessions show` ask once the call has ended (then it means `completed`), the interactive
 * transcript asks as soon as the call is seen and again at each change, so an `update_plan` shows
 * nothing while it runs and gets its tool line only if it ends unsuccessfully.
 */
export function drawnAsPlan(toolCall: ToolCall): boolean {
  return (
    toolCall.toolName === "update_plan" &&
    toolCall.status !== "failed" &&
    toolCall.status !== "denied" &&
    toolCall.status !== "interrupted"
  );
}
