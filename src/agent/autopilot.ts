import { z } from "zod";
import { defineTool } from "../tools/define-tool.js";

/**
 * The tool that ends an autopilot run (case 28), offered only in autopilot. A successful call's
 * effects record `session.task_complete` and end the prompt with `end_turn` without another
 * model request.
 */
export const taskCompleteTool = defineTool({
  name: "task_complete",
  description:
    "Call once the whole task is done and verified, with a short summary of what was done. Do not call it while questions, errors or steps remain.",
  input: z.object({ summary: z.string().describe("What was done, in a few sentences.") }),
  kind: "think",
  mutates: false,
  changesNothing: true,
  execute: async ({ summary }) => ({
    content: `Task complete: ${summary}`,
    isError: false,
    effects: [{ type: "task_complete", summary, success: true }, { type: "stop" }],
  }),
});

/** Our continuation nudge, added as a `user.message` with `source: "autopilot"`. */
export const AUTOPILOT_NUDGE =
  "You stopped without calling task_complete. If the task is not finished, keep going: take the next step yourself instead of asking or describing it. When everything is done and checked, call task_complete with a summary. Do not call it while anything is unresolved: open questions, failing checks or remaining steps.";
