/**
 * Tool results in the Copilot CLI's words, for the SDK face only, at its edges: what the model
 * reads in a request the SDK face makes ({@link inCopilotWords}) and what an app reads in
 * `tool.execution_complete` ({@link resultOnCopilotWire}). The log keeps turnloop's text (the
 * command's output, the diff), which every other face and reader shows. A call stopped by a
 * cancel reads "The execution of this tool, or a previous tool was interrupted." (the Copilot SDK
 * repository's replay snapshot `test/snapshots/abort/should_abort_during_active_tool_execution.yaml`),
 * a built-in `edit` answers "File <path> updated with changes." without turnloop's diff, and a
 * built-in `view` of an image answers "Viewed image file successfully.".
 */

import type { SessionEventOf } from "../events/events.js";
import type { ToolResultMessage } from "../llm/provider.js";

/**
 * What the model reads for the built-in `view` of an image (Copilot's words, the Copilot SDK's
 * replay snapshot `session_config/should_accept_blob_attachments`); the image follows.
 */
export const VIEWED_IMAGE_TEXT = "Viewed image file successfully.";

/** What the model reads for a call a cancel stopped (Copilot's words). */
export const INTERRUPTED_TEXT = "The execution of this tool, or a previous tool was interrupted.";

/** turnloop's text of a built-in `edit` (tools/edit.ts): Copilot's sentence, a blank line, the diff. */
const EDIT_SUMMARY = /^(File .+ updated with changes\.)\n\n/s;

function stoppedByCancel(errorCode: string | undefined): boolean {
  return errorCode === "interrupted" || errorCode === "cancelled";
}

/**
 * The text the model reads for `result` on the SDK face (see above). `appTools` are the names of
 * the app's own tools: an app's `edit` or `view` keeps its text.
 */
export function inCopilotWords(result: ToolResultMessage, appTools: ReadonlySet<string>): string {
  if (stoppedByCancel(result.errorCode)) {
    return INTERRUPTED_TEXT;
  }
  const builtIn = !appTools.has(result.toolName);
  if (!result.isError && result.toolName === "view" && builtIn && result.images?.length) {
    return VIEWED_IMAGE_TEXT;
  }
  if (!result.isError && result.toolName === "edit" && builtIn) {
    return EDIT_SUMMARY.exec(result.content)?.[1] ?? result.content;
  }
  return result.content;
}

/**
 * A stored `tool.execution_complete` as the SDK face sends it: a call a cancel stopped has
 * Copilot's sentence as `result.content` and turnloop's text (the command's output so far) as
 * `error.message`; a built-in `edit` has Copilot's sentence as `content` and turnloop's whole text,
 * the diff, as Copilot's `detailedContent`; a `view` of an image has Copilot's sentence (the wire cannot tell an app's `view` from ours).
 * Logs written when the log kept Copilot's words (before round 3, session 35) send the same.
 */
export function resultOnCopilotWire(
  stored: SessionEventOf<"tool.execution_complete">,
): SessionEventOf<"tool.execution_complete"> | object {
  const event = withoutFileChange(stored);
  const { result, error, toolName, success } = event.data;
  if (stoppedByCancel(error?.code)) {
    // `error.message` already holds turnloop's text (agent/tool-calls.ts, session/open-work.ts).
    return { ...event, data: { ...event.data, result: { ...result, content: INTERRUPTED_TEXT } } };
  }
  const summary = success && toolName === "edit" ? EDIT_SUMMARY.exec(result.content) : null;
  if (summary?.[1] !== undefined) {
    const worded = { ...result, content: summary[1], detailedContent: result.content };
    return { ...event, data: { ...event.data, result: worded } };
  }
  if (success && toolName === "view" && result.images?.length) {
    return { ...event, data: { ...event.data, result: { ...result, content: VIEWED_IMAGE_TEXT } } };
  }
  return event;
}

/**
 * The event without turnloop's `fileChange` (the whole file before and after an `edit` or
 * `create`, up to 256 Ki characters each, for ACP's diff content): Copilot's
 * `ToolExecutionCompleteData` has no such field, and an app would receive two copies of the file
 * per edit. The app's own diff is in `detailedContent`.
 */
function withoutFileChange(
  event: SessionEventOf<"tool.execution_complete">,
): SessionEventOf<"tool.execution_complete"> {
  if (event.data.fileChange === undefined) {
    return event;
  }
  const { fileChange: _whole, ...data } = event.data;
  return { ...event, data };
}
