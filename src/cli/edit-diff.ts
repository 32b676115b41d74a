import { lineDiff } from "../tools/line-diff.js";

/**
 * One row of an `edit` call's diff: a line of context (`" "`), removed (`"-"`) or added (`"+"`),
 * or a note (`undefined`: `[… 3 more lines removed]`, `\ No newline at end of file`).
 */
export interface EditDiffRow {
  marker: " " | "-" | "+" | undefined;
  text: string;
}

/**
 * The change an `edit` call makes, as the terminal faces show it under the permission question
 * and under the finished call: the one minimal line diff of its `old_str` and `new_str`
 * (tools/line-diff.ts `lineDiff`, without its hunk header), so unchanged lines at either end are
 * context, never removed and re-added. Empty when the two are the same.
 */
export function editDiffRows(oldText: string, newText: string): EditDiffRow[] {
  return lineDiff(oldText, newText)
    .split("\n")
    .slice(1)
    .map((line) => {
      const marker = line.charAt(0);
      return marker === " " || marker === "-" || marker === "+"
        ? { marker, text: line.slice(1) }
        : { marker: undefined, text: line };
    });
}
