/**
 * What the session view says of an `edit` call's change and of a command run outside the
 * sandbox, read from the session model as every face reads them (session-model/edit-change.ts,
 * tool-call.ts `outsideSandboxWords`): the page, the JSON and Markdown exports say it in the
 * same words and rows as the terminal faces, not a diff of their own (session 41).
 */

import { editChangeRows } from "../../session/session-model/edit-change.js";
import { outsideSandboxWords, type ToolCall } from "../../session/session-model/tool-call.js";
import type { ViewChangeRow, ViewTool } from "./view-model.js";

/**
 * The rows of an `edit` call's change (its file's hunk, numbered, once the log has the file's
 * change; before, or without it, the diff of its `old_str` and `new_str`), with the diff's own
 * cut (three lines of context, 20 changed lines a side, the rest counted in a note row);
 * `undefined` for any other call, or one whose texts are not strings.
 */
function changeRows(toolCall: ToolCall): ViewChangeRow[] | undefined {
  const { toolName, arguments: input } = toolCall;
  if (
    toolName !== "edit" ||
    typeof input.old_str !== "string" ||
    typeof input.new_str !== "string"
  ) {
    return undefined;
  }
  return editChangeRows(toolCall, {}).map(({ marker, gutter, text }) =>
    marker === undefined ? { gutter, text } : { marker, gutter, text },
  );
}

/** Sets (or clears) `tool`'s change rows and outside-sandbox words from the session model's call. */
export function readToolChange(tool: ViewTool, toolCall: ToolCall | undefined): void {
  const change = toolCall === undefined ? undefined : changeRows(toolCall);
  const outside = toolCall === undefined ? undefined : outsideSandboxWords(toolCall);
  if (change === undefined) {
    delete tool.change;
  } else {
    tool.change = change;
  }
  if (outside === undefined) {
    delete tool.outsideSandbox;
  } else {
    tool.outsideSandbox = outside;
  }
}
