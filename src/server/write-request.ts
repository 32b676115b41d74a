/**
 * The fields of Copilot's `write` permission request (the SDK's `PermissionRequestWrite`,
 * `dist/generated/session-events.d.ts`) for a call of `create` or `edit`: `diff`, a unified diff of
 * the change the call would make (`--- <path>`, `+++ <path>`, one `@@` hunk as the other faces show
 * it: runs of more than 20 changed lines and lines over 300 characters are cut with a note), and
 * for `create`, `newFileContents`, the whole text it would write.
 *
 * The diff is of the change the tool's own check found before the question (tools/define-tool.ts
 * `Tool.check`: the file read and decoded as the tool reads it, the edit made in memory), so the
 * question and the call agree, and the server reads no file for it. Without that change (a file
 * too large to show one, or a call on another worker: remote-questions.ts), `edit`'s diff is of
 * `old_str` against `new_str` alone, its line numbers counted from `old_str`'s first line, and
 * `create`'s is empty. A tool that writes no text turnloop can show (another tool of the `edit`,
 * `delete` or `move` kind) gets an empty `diff`.
 */

import type { FileChange } from "../events/events.js";
import { fileDiff, lineDiff } from "../tools/line-diff.js";

/** Copilot's `write` fields besides `fileName` and the common ones. */
export interface WriteRequestFields {
  diff: string;
  newFileContents?: string;
}

/**
 * The `write` fields for a call of `toolName` with the validated `input` on `fileName` (absolute),
 * `change` the one its tool's check found, if any. Never throws; reads nothing.
 */
export function writeRequestFields(
  toolName: string | undefined,
  input: unknown,
  fileName: string,
  change: FileChange | undefined,
): WriteRequestFields {
  const text = (key: string): string | undefined => {
    const value = (input as Record<string, unknown> | null)?.[key];
    return typeof value === "string" ? value : undefined;
  };
  const fileText = text("file_text");
  if (toolName === "create" && fileText !== undefined) {
    return {
      diff: change === undefined ? "" : changeDiff(fileName, change),
      newFileContents: fileText,
    };
  }
  const oldText = text("old_str");
  const newText = text("new_str");
  if (toolName === "edit" && oldText !== undefined && newText !== undefined) {
    return {
      diff:
        change === undefined
          ? unified(fileName, fileName, lineDiff(oldText, newText))
          : changeDiff(fileName, change),
    };
  }
  return { diff: "" };
}

/** The diff of `change` to `fileName`: from `/dev/null` for a file it creates. */
function changeDiff(fileName: string, change: FileChange): string {
  const from = change.oldText === null ? "/dev/null" : fileName;
  return unified(from, fileName, fileDiff(change.oldText ?? "", change.newText));
}

/** The diff's two header lines, then its hunk: none when nothing changes (an empty file created). */
function unified(from: string, to: string, hunk: string): string {
  return `--- ${from}\n+++ ${to}\n${hunk === "" ? "" : `${hunk}\n`}`;
}
