import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { textResult } from "./tool-support.js";

// Built on first parse (z.lazy): a run's first request needs only its JSON Schema (input-json-schemas.ts).
const updatePlanInput = z.lazy(() => {
  const planEntry = z.object({
    content: z.string().trim().min(1),
    priority: z.enum(["high", "medium", "low"]),
    status: z.enum(["pending", "in_progress", "completed"]),
  });
  return z.object({ entries: z.array(planEntry) });
});

/** Arguments of {@link updatePlanTool}: the whole plan, in order (ACP `PlanEntry` shape). */
export type UpdatePlanInput = z.infer<typeof updatePlanInput>;

const STATUS_MARKS: Record<UpdatePlanInput["entries"][number]["status"], string> = {
  pending: "[ ]",
  in_progress: "[~]",
  completed: "[x]",
};

/**
 * `update_plan {entries[{content, priority, status}]}`: replaces the session's plan with
 * `entries` (an empty list clears it). The tool only validates and answers a readable copy, e.g.
 * `Plan updated: 1 of 2 done.\n[x] Read the code (high)\n[~] Fix the bug (medium)`, with a
 * `plan_updated` effect carrying the validated entries (the loop records `session.plan_updated`).
 */
export const updatePlanTool = defineTool<UpdatePlanInput>({
  name: "update_plan",
  description:
    "Replace your task plan (shown to the user). Send every entry each time; keep one " +
    "in_progress. Use for work of several steps.",
  input: updatePlanInput,
  kind: "think",
  mutates: false,
  changesNothing: true,
  execute: async (input) => ({
    ...textResult(describePlan(input.entries)),
    effects: [{ type: "plan_updated", entries: input.entries }],
  }),
  scope: () => ({ title: "Update plan", paths: [] }),
});

function describePlan(entries: UpdatePlanInput["entries"]): string {
  if (entries.length === 0) {
    return "Plan cleared.";
  }
  const done = entries.filter((entry) => entry.status === "completed").length;
  const lines = entries.map(
    (entry) => `${STATUS_MARKS[entry.status]} ${entry.content} (${entry.priority})`,
  );
  return [`Plan updated: ${done} of ${entries.length} done.`, ...lines].join("\n");
}
