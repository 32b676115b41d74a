/**
 * A finished `edit` call's change as every face shows it under the call (the interactive
 * screen's finished call, `sessions show`'s transcript), read from the session model's
 * {@link ToolCall}: written once, so that the faces number and cut it alike (trial 40 F13).
 */

import {
  type DiffCut,
  editDiffRows,
  fileDiff,
  type GutteredDiffRow,
  numberedDiffRows,
  withGutters,
} from "../../tools/line-diff.js";
import type { ToolCall } from "./tool-call.js";

/**
 * How much of a finished edit's change is shown: a line of the file either side of it, two
 * changed lines per side, the diff's own notes counting the rest of each side (`[… 38 more lines
 * removed]`), so the added side shows however long the removed one is (trial 39 F5).
 */
export const FINISHED_CHANGE_CUT: DiffCut = { contextLines: 1, linesPerSide: 2 };

/**
 * The rows of a finished edit's change: where the log has the file's change
 * (`ToolCall.fileChange`, within tools/file-change.ts's cap), its hunk in the file with each
 * row's line number (tools/line-diff.ts `numberedDiffRows`: where it landed); else the minimal
 * diff of the call's own `old_str` and `new_str`, unnumbered (empty gutters). Text as recorded:
 * a face draws it without terminal control sequences.
 */
export function editChangeRows(
  call: Pick<ToolCall, "arguments" | "fileChange">,
  cut: DiffCut = FINISHED_CHANGE_CUT,
): GutteredDiffRow[] {
  const { arguments: input, fileChange } = call;
  const rows =
    fileChange === undefined
      ? editDiffRows(String(input.old_str ?? ""), String(input.new_str ?? ""), cut).map((row) => ({
          ...row,
          line: undefined,
        }))
      : numberedDiffRows(fileDiff(fileChange.oldText ?? "", fileChange.newText, cut));
  return withGutters(rows);
}
