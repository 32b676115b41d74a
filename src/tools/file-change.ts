/**
 * The whole-file change an `edit` or `create` records on its result (events/event-parts.ts
 * `FileChange`): the file's text before and after, within a cap.
 */

import type { FileChange } from "../events/events.js";

/**
 * The most UTF-16 units of either side of a recorded change (256 Ki): a change of a larger file is
 * not recorded, so a log (and the session model that folds it) does not grow by two copies of a
 * large file at every edit. Faces then show the tool's own output (its hunk) instead of a diff.
 */
export const MAX_FILE_CHANGE_CHARACTERS = 256 * 1024;

/**
 * The change of the file at `path` (absolute) from `oldText` (null: the file did not exist) to
 * `newText`; undefined when either side is over {@link MAX_FILE_CHANGE_CHARACTERS}.
 */
export function fileChange(
  path: string,
  oldText: string | null,
  newText: string,
): FileChange | undefined {
  const oldLength = oldText?.length ?? 0;
  if (oldLength > MAX_FILE_CHANGE_CHARACTERS || newText.length > MAX_FILE_CHANGE_CHARACTERS) {
    return undefined;
  }
  return { path, oldText, newText };
}
