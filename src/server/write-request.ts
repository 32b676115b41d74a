/**
 * The fields of Copilot's `write` permission request (the SDK's `PermissionRequestWrite`,
 * `dist/generated/session-events.d.ts`) for a call of `create` or `edit`: `diff`, a unified diff of
 * the change the call would make (`--- <path>`, `+++ <path>`, one `@@` hunk as the other faces show
 * it: runs of more than 20 changed lines and lines over 300 characters are cut with a note), and
 * for `create`, `newFileContents`, the whole text it would write.
 *
 * The diff is of the file as it is when the question is asked (read here, UTF-8, up to
 * {@link MAX_READ_BYTES}). When the file cannot be read or is larger, or `old_str` does not match
 * exactly once (the edit will then fail), `edit`'s diff is of `old_str` against `new_str` alone,
 * its line numbers counted from `old_str`'s first line. A tool that writes no text turnloop can
 * show (another tool of the `edit`, `delete` or `move` kind) gets an empty `diff`.
 */

import { fileDiff, lineDiff } from "../tools/line-diff.js";
import { readProjectFile } from "../tools/project-file.js";
import { replaceOnce } from "../tools/text-replacement.js";

/** Bytes of a file read to show the diff of a change to it; the server waits on this read. */
const MAX_READ_BYTES = 1024 * 1024;

/** Copilot's `write` fields besides `fileName` and the common ones. */
export interface WriteRequestFields {
  diff: string;
  newFileContents?: string;
}

/**
 * The `write` fields for a call of `toolName` with the validated `input` on `fileName` (absolute).
 * Never throws.
 */
export function writeRequestFields(
  toolName: string | undefined,
  input: unknown,
  fileName: string,
): WriteRequestFields {
  const text = (key: string): string | undefined => {
    const value = (input as Record<string, unknown> | null)?.[key];
    return typeof value === "string" ? value : undefined;
  };
  const fileText = text("file_text");
  if (toolName === "create" && fileText !== undefined) {
    const existing = readSmallFile(fileName);
    const from = existing === undefined ? "/dev/null" : fileName;
    return {
      diff: unified(from, fileName, fileDiff(existing ?? "", fileText)),
      newFileContents: fileText,
    };
  }
  const oldText = text("old_str");
  const newText = text("new_str");
  if (toolName === "edit" && oldText !== undefined && newText !== undefined) {
    const existing = readSmallFile(fileName);
    const replacement =
      existing === undefined || oldText === ""
        ? undefined
        : replaceOnce(existing, oldText, newText);
    const hunk = replacement?.kind === "replaced" ? replacement.diff : lineDiff(oldText, newText);
    return { diff: unified(fileName, fileName, hunk) };
  }
  return { diff: "" };
}

/** The diff's two header lines, then its hunk: none when nothing changes (an empty file created). */
function unified(from: string, to: string, hunk: string): string {
  return `--- ${from}\n+++ ${to}\n${hunk === "" ? "" : `${hunk}\n`}`;
}

/**
 * The file's text, or undefined when it is missing, unreadable, not a regular file or too large.
 * Read by the reader of files a repository names (tools/project-file.ts `readProjectFile`:
 * `O_NONBLOCK`, judged by `fstat` on the open descriptor), not a `stat` then a read: a FIFO put
 * there after the `stat` blocked the server's main thread, every session's, for good.
 */
function readSmallFile(path: string): string | undefined {
  const file = readProjectFile(path, { maxBytes: MAX_READ_BYTES, overLimit: "refuse" });
  return file.kind === "read" ? file.bytes.toString("utf8") : undefined;
}
