import { fileLines } from "./file-lines.js";

/** Lines of context shown around a change in a diff. */
const DIFF_CONTEXT_LINES = 3;

/**
 * How much of a change a diff shows: lines of context either side of it (default 3) and changed
 * lines per side before the rest are counted in a note (default 20: `[… 2713 more lines removed]`,
 * the count being of every line that side loses or gains). A preview asks for fewer lines than
 * the full diff rather than cutting the diff again, which would hide the note with the true count.
 */
export interface DiffCut {
  contextLines?: number;
  linesPerSide?: number;
}
/** Removed (or added) lines shown in a diff before the rest are counted instead. */
const MAX_DIFF_LINES_PER_SIDE = 20;
/** Characters shown of one diff line (minified code). */
const MAX_DIFF_LINE_CHARACTERS = 300;
/** What diff prints after a file's last line when no line break ends it. */
const NO_FINAL_LINE_BREAK = "\\ No newline at end of file";

/** One line of a diffed text. */
interface DiffLine {
  /** The line without its line break. */
  text: string;
  /** Whether a line break ends it: false only for a file's last line without one. */
  ended: boolean;
}

/**
 * One unified-style hunk covering the lines that differ between two whole files (which differ in
 * one region; `""` when none does, as diff prints no hunk then), with {@link DIFF_CONTEXT_LINES} lines of context. Lines are the files' own
 * ({@link fileLines}): a final line break is no empty line; a last line without one is followed by
 * `\ No newline at end of file`, as diff prints it, so adding or removing that break shows.
 * Carriage returns are not shown; long runs of changed lines and long lines are cut with a note.
 */
export function fileDiff(before: string, after: string, cut: DiffCut = {}): string {
  return hunk(linesOfFile(before), linesOfFile(after), 0, cut);
}

/**
 * {@link fileDiff} of `before` and the text it becomes when its characters `start` to `end`
 * (UTF-16 indexes, `end` exclusive) are replaced with `replacement`, read from the lines around
 * that place alone: those holding it and {@link DIFF_CONTEXT_LINES} lines either side. Memory
 * and time follow those lines, not the file (a one-line edit of a 50 MiB file split both whole
 * texts into 2.6 million lines each, trial 32). The same hunk as {@link fileDiff}'s, but for a
 * change whose lines repeat beyond those around it (a line added among identical lines):
 * `fileDiff` then puts the change as far down as the repetition goes, this one within
 * {@link DIFF_CONTEXT_LINES} lines of where it was made.
 */
export function replacementDiff(
  before: string,
  start: number,
  end: number,
  replacement: string,
): string {
  let windowStart = lineStartAt(before, start);
  let windowEnd = lineEndAt(before, end);
  for (let line = 0; line < DIFF_CONTEXT_LINES; line += 1) {
    windowStart = windowStart === 0 ? 0 : lineStartAt(before, windowStart - 1);
    windowEnd = lineEndAt(before, windowEnd);
  }
  const oldWindow = before.slice(windowStart, windowEnd);
  const newWindow = before.slice(windowStart, start) + replacement + before.slice(end, windowEnd);
  return hunk(linesOfFile(oldWindow), linesOfFile(newWindow), countLineBreaks(before, windowStart));
}

/** Where the line holding the character at `index` starts. */
function lineStartAt(text: string, index: number): number {
  return index <= 0 ? 0 : text.lastIndexOf("\n", index - 1) + 1;
}

/** Where the line holding the character at `index` ends, its line break included. */
function lineEndAt(text: string, index: number): number {
  const newline = text.indexOf("\n", index);
  return newline === -1 ? text.length : newline + 1;
}

/** The `\n`s before `end` in `text`. */
function countLineBreaks(text: string, end: number): number {
  let count = 0;
  for (let index = text.indexOf("\n"); index !== -1 && index < end; ) {
    count += 1;
    index = text.indexOf("\n", index + 1);
  }
  return count;
}

/**
 * {@link fileDiff}'s hunk for two snippets (an edit's `old_str` and `new_str`): their text goes on
 * after them, so a missing final line break is no news; a final line break on both ends the last
 * line rather than starting an empty one.
 */
export function lineDiff(before: string, after: string, cut: DiffCut = {}): string {
  const oldLines = before.split("\n");
  const newLines = after.split("\n");
  if (before.endsWith("\n") && after.endsWith("\n")) {
    oldLines.pop();
    newLines.pop();
  }
  const ended = (text: string): DiffLine => ({ text, ended: true });
  return hunk(oldLines.map(ended), newLines.map(ended), 0, cut);
}

function linesOfFile(text: string): DiffLine[] {
  const lines = fileLines(text).map((line): DiffLine => ({ text: line, ended: true }));
  const last = lines.at(-1);
  if (last !== undefined && !text.endsWith("\n")) {
    last.ended = false;
  }
  return lines;
}

/** The hunk of two runs of lines, the first of which is line `firstLine + 1` of its file. */
function hunk(
  oldLines: readonly DiffLine[],
  newLines: readonly DiffLine[],
  firstLine: number,
  { contextLines = DIFF_CONTEXT_LINES, linesPerSide = MAX_DIFF_LINES_PER_SIDE }: DiffCut = {},
): string {
  const same = (left: DiffLine | undefined, right: DiffLine | undefined) =>
    left?.text === right?.text && left?.ended === right?.ended;
  const shorter = Math.min(oldLines.length, newLines.length);
  let prefix = 0;
  while (prefix < shorter && same(oldLines[prefix], newLines[prefix])) {
    prefix += 1;
  }
  let suffix = 0;
  while (
    suffix < shorter - prefix &&
    same(oldLines[oldLines.length - 1 - suffix], newLines[newLines.length - 1 - suffix])
  ) {
    suffix += 1;
  }
  if (prefix === oldLines.length && prefix === newLines.length) {
    // Nothing differs (an empty file created, a text written as it was): no hunk at all.
    return "";
  }
  const start = Math.max(prefix - contextLines, 0);
  const oldEnd = oldLines.length - suffix;
  const newEnd = newLines.length - suffix;
  const contextEnd = Math.min(oldEnd + contextLines, oldLines.length);
  const trailing = contextEnd - oldEnd;
  const first = firstLine + start;
  const header = `@@ -${range(first, contextEnd - start)} +${range(first, newEnd + trailing - start)} @@`;
  return [
    header,
    ...oldLines.slice(start, prefix).flatMap((line) => diffLine(" ", line)),
    ...changedLines("-", oldLines.slice(prefix, oldEnd), "removed", linesPerSide),
    ...changedLines("+", newLines.slice(prefix, newEnd), "added", linesPerSide),
    ...oldLines.slice(oldEnd, contextEnd).flatMap((line) => diffLine(" ", line)),
  ].join("\n");
}

/**
 * A hunk side's `start,count` as diff writes it: an empty side names the line before it
 * (`-0,0` for a created file, `+0,0` for one that loses every line), which GNU `patch` requires.
 */
function range(start: number, count: number): string {
  return `${count === 0 ? start : start + 1},${count}`;
}

function changedLines(
  marker: string,
  lines: readonly DiffLine[],
  verb: string,
  linesPerSide: number,
): string[] {
  const shown = lines.slice(0, linesPerSide).flatMap((line) => diffLine(marker, line));
  const hidden = lines.length - Math.min(lines.length, linesPerSide);
  return hidden > 0
    ? [...shown, `[… ${hidden} more line${hidden === 1 ? "" : "s"} ${verb}]`]
    : shown;
}

/** The line after its marker, and diff's note when no line break ends it. */
function diffLine(marker: string, { text, ended }: DiffLine): string[] {
  const line = text.endsWith("\r") ? text.slice(0, -1) : text;
  const shown =
    line.length <= MAX_DIFF_LINE_CHARACTERS
      ? `${marker}${line}`
      : `${marker}${line.slice(0, MAX_DIFF_LINE_CHARACTERS)} [… ${line.length - MAX_DIFF_LINE_CHARACTERS} more characters]`;
  return ended ? [shown] : [shown, NO_FINAL_LINE_BREAK];
}

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
 * ({@link lineDiff}, without its hunk header, cut as `cut` says), so unchanged lines at either
 * end are context, never removed and re-added. Empty when the two are the same.
 */
export function editDiffRows(oldText: string, newText: string, cut: DiffCut = {}): EditDiffRow[] {
  return diffRows(lineDiff(oldText, newText, cut));
}

/** The rows of a hunk ({@link fileDiff}'s, {@link lineDiff}'s) after its `@@` header. */
export function diffRows(hunkText: string): EditDiffRow[] {
  return hunkText
    .split("\n")
    .slice(1)
    .map((line) => {
      const marker = line.charAt(0);
      return marker === " " || marker === "-" || marker === "+"
        ? { marker, text: line.slice(1) }
        : { marker: undefined, text: line };
    });
}

/** A row of a file's hunk with its line in the file: `undefined` for a note. */
export interface NumberedDiffRow extends EditDiffRow {
  line: number | undefined;
}

/**
 * The rows of a file's hunk ({@link fileDiff}'s) with their lines in the file, counted from the
 * hunk's `@@ -a,b +c,d @@` header as diff counts them: a removed line has its line before the
 * change, an added line or a line of context its line after it (what the file holds there now).
 * Where the change is, as Claude Code's and Codex's diffs say it (trial 40 F13).
 */
export function numberedDiffRows(hunkText: string): NumberedDiffRow[] {
  const header = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(hunkText);
  let oldLine = Number(header?.[1] ?? 1);
  let newLine = Number(header?.[2] ?? 1);
  return diffRows(hunkText).map((row): NumberedDiffRow => {
    if (row.marker === undefined) {
      return { ...row, line: undefined };
    }
    if (row.marker === "-") {
      return { ...row, line: oldLine++ };
    }
    // A line of context is on both sides: the old side's count moves on too.
    oldLine += row.marker === " " ? 1 : 0;
    return { ...row, line: newLine++ };
  });
}

/** A diff row with the column drawn before its marker: its line number, padded, and a space. */
export interface GutteredDiffRow extends NumberedDiffRow {
  /** `"  12 "` (right-aligned to the widest number of the rows); `""` when no row is numbered. */
  gutter: string;
}

/**
 * `rows` with their gutters, as every face draws a numbered diff (the permission question, the
 * finished call on the screen, `sessions show`): each line number right-aligned to the widest,
 * then a space; a note's gutter blank, as wide. A wrapped row continues past its gutter and
 * marker, under its text (cli/text-wrap.ts `diffRowHang`).
 */
export function withGutters(rows: readonly NumberedDiffRow[]): GutteredDiffRow[] {
  const width = Math.max(0, ...rows.map(({ line }) => String(line ?? "").length));
  return rows.map((row) => ({
    ...row,
    gutter: width === 0 ? "" : `${String(row.line ?? "").padStart(width)} `,
  }));
}
