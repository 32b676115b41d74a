/**
 * Tool results in the Copilot CLI's words, for the SDK face only (the other faces keep
 * turnloop's): a call stopped by a cancel reads "The execution of this tool, or a previous tool
 * was interrupted." (the Copilot SDK repository's replay snapshot
 * `test/snapshots/abort/should_abort_during_active_tool_execution.yaml`), and a built-in `edit`
 * answers "File <path> updated with changes." without turnloop's diff, and a built-in `view` of an
 * image answers "Viewed image file successfully.".
 */

import type { ToolCallOutcome } from "../agent/tool-calls.js";

/**
 * What the model reads for the built-in `view` of an image (Copilot's words, the Copilot SDK's
 * replay snapshot `session_config/should_accept_blob_attachments`); the image follows.
 */
export const VIEWED_IMAGE_TEXT = "Viewed image file successfully.";

/** What the model reads for a call a cancel stopped (Copilot's words). */
export const INTERRUPTED_TEXT = "The execution of this tool, or a previous tool was interrupted.";

/**
 * `outcome` in Copilot's words (see above). `appTools` are the names of the app's own tools: an
 * app's `edit` keeps its text. turnloop's text of an interruption stays in `errorMessage`, for
 * the app's `tool.execution_complete`.
 */
export function inCopilotWords(
  outcome: ToolCallOutcome,
  appTools: ReadonlySet<string>,
): ToolCallOutcome {
  if (outcome.errorCode === "interrupted" || outcome.errorCode === "cancelled") {
    return {
      ...outcome,
      content: INTERRUPTED_TEXT,
      errorMessage: outcome.errorMessage ?? outcome.content,
    };
  }
  const builtIn = !appTools.has(outcome.toolCall.name);
  if (!outcome.isError && outcome.toolCall.name === "view" && builtIn && outcome.images?.length) {
    return { ...outcome, content: VIEWED_IMAGE_TEXT };
  }
  if (!outcome.isError && outcome.toolCall.name === "edit" && builtIn) {
    const [summary = outcome.content] = outcome.content.split("\n\n", 1);
    return { ...outcome, content: summary };
  }
  return outcome;
}
