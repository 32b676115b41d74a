/**
 * Word wrapping for the lists the terminal faces print (the slash commands' `/help` and other
 * command output on the interactive screen, `--help`, every face's permission answers from
 * permission-answers.ts): rows of at most `width` columns, broken between words (inside a word
 * only when it alone is wider than a row), each continuation row indented under the text it
 * continues:
 * - a `term  description` line (two or more spaces between them) under its description; when
 *   that column leaves the description too little room (a list padded for a wider terminal), the
 *   term alone, then the description on rows of its own four columns in;
 * - a numbered diff row (`    12 - old`, `    12   kept`: permission-preview.ts) under its text,
 *   past its line number and marker ({@link diffRowHang});
 * - a line indented {@link CONTINUATION_INDENT} columns or more (a description under a term too
 *   long to share its row) at its indent;
 * - a list item (indented, or after a `* `, `- `, `• ` or `1. ` marker) two columns past where
 *   its text starts;
 * - prose (at the left edge, no marker) at the left edge.
 * Columns are display columns as pi-tui counts them (its `visibleWidth`: a wide CJK character or
 * an emoji two, a combining mark or a joiner none, colour codes none), so that no row is wider
 * than the screen that draws it (pi-tui stops the process on a wider one); a word is cut between
 * graphemes, never inside one.
 */

import { visibleWidth } from "@mariozechner/pi-tui";

/**
 * An SGR escape sequence (ESC, `[`, parameters, `m`), built from text: Biome refuses a control
 * character in a regular expression literal.
 */
const SGR = "\u001b\\[[0-9;]*m";
const COLOUR_CODE = new RegExp(SGR, "g");
/** A colour code, or a run of text without one. */
const COLOUR_CODE_OR_TEXT = new RegExp(`${SGR}|(?:(?!${SGR})[\\s\\S])+`, "gu");
/**
 * Columns a continued row keeps at least to write in (half a narrower row): a description with
 * less room beside its term continues as a list item does.
 */
const DESCRIPTION_ROOM = 20;
/** A line indented this much or more continues a description column (usage.ts). */
const CONTINUATION_INDENT = 8;
/** Splits text into graphemes (UAX #29), made at the first cut: ICU starts with it. */
let graphemes: Intl.Segmenter | undefined;
/** A list item's marker. */
const LIST_MARKER = /^(?:[*•-]|\d+\.) /;

/** The display columns `text` takes (pi-tui's `visibleWidth`), colour codes left out. */
export function visibleLength(text: string): number {
  return visibleWidth(text);
}

/**
 * `text` wrapped to `width` columns, line by line (see the module comment); a line that
 * continues the description of the line before it (indented to where that description starts, as
 * `usage.ts` writes them for a wide terminal) is joined to it first, so the description reflows.
 * A `width` that is not a positive number (not a terminal) leaves `text` as it is.
 */
export function wrapText(text: string, width: number | undefined): string {
  if (width === undefined || !(width > 0)) {
    return text;
  }
  const lines: string[] = [];
  let previousColumn: number | undefined;
  for (const line of text.split("\n")) {
    const indent = line.length - line.trimStart().length;
    const last = lines.length - 1;
    if (indent > 0 && indent === previousColumn && line.trim() !== "" && last >= 0) {
      lines[last] = `${lines[last]} ${line.trim()}`;
      continue;
    }
    lines.push(line);
    previousColumn =
      descriptionColumn(line, Number.POSITIVE_INFINITY) ??
      (indent >= CONTINUATION_INDENT ? indent : undefined);
  }
  return lines.flatMap((line) => wrapLine(line, width)).join("\n");
}

/**
 * `choices` (`[y] yes`, `[n] no` …) on one row, `gap` between two, when they all fit in `width`
 * columns; otherwise one choice per row, so that none is split between rows with another: a
 * choice wider than a row continues on rows indented under its text, past its `[k] ` key. Each
 * row starts with `indent`. A `width` that is not a positive number (not a terminal, or one that
 * reports 0 columns) keeps them on one row.
 */
export function wrapChoices(
  choices: readonly string[],
  width: number | undefined,
  indent = "",
  gap = "   ",
): string[] {
  const row = `${indent}${choices.join(gap)}`;
  if (width === undefined || !(width > 0) || visibleLength(row) <= width) {
    return [row];
  }
  return choices.flatMap((choice) => choiceRows(`${indent}${choice}`, width));
}

/** A choice's key (`[a] `, painted or not) after the row's indent. */
const CHOICE_KEY = new RegExp(`^ *(?:${SGR})*\\[[^\\]]*\\](?:${SGR})* `);

/** One choice on rows of `width` columns, continued under its text (see {@link wrapChoices}). */
function choiceRows(choice: string, width: number): string[] {
  const key = CHOICE_KEY.exec(choice)?.[0] ?? "";
  const hang = visibleLength(key);
  if (visibleLength(choice) <= width || hang === 0 || width - hang < room(width)) {
    return wrapLine(choice, width);
  }
  const [first = "", ...rest] = wrapLine(choice.slice(key.length), width - hang);
  return [`${key}${first}`, ...rest.map((row) => `${" ".repeat(hang)}${row}`)];
}

/** One line as rows of at most `width` columns (the module comment's rules). */
export function wrapLine(line: string, width: number): string[] {
  if (visibleLength(line) <= width) {
    return [line];
  }
  const parted = partedTerm(line, width);
  if (parted !== undefined) {
    const { term, indent, description } = parted;
    const pad = " ".repeat(indent);
    // A term wider than the row continues two columns in, as a list item does.
    const [first = "", ...rest] = wrapLine(term, width - 2);
    return [
      first,
      ...rest.map((row) => `  ${row}`),
      ...wrapLine(description, width - indent).map((row) => `${pad}${row}`),
    ];
  }
  const hang = hangColumn(line, width);
  const rows: string[] = [];
  let row = "";
  let spaces = "";
  for (const piece of line.match(/\s+|\S+/g) ?? []) {
    if (/^\s/.test(piece)) {
      spaces = piece;
      continue;
    }
    const start = row === "" && rows.length === 0 ? spaces : row === "" ? "" : `${row}${spaces}`;
    const candidate = `${start}${piece}`;
    if (visibleLength(candidate) <= width) {
      row = candidate;
    } else {
      if (row !== "") {
        rows.push(row);
      }
      const pieces = cut(piece, Math.max(1, width - hang));
      rows.push(...pieces.slice(0, -1).map((part) => `${" ".repeat(hang)}${part}`));
      row = `${" ".repeat(hang)}${pieces.at(-1) ?? ""}`;
    }
    spaces = "";
  }
  rows.push(row);
  return rows;
}

/** A `term  description` line: the term, then the gap of two or more spaces before the rest. */
const TERM_AND_DESCRIPTION = /^( *\S(?:\S| (?! ))*) {2,}(\S.*)$/;
/** Columns a description on the rows under its term is indented past the term. */
const UNDER_TERM_INDENT = 4;

/**
 * A `term  description` line whose description column leaves it less than {@link room} (a list
 * padded for a wider terminal: `/help` at 50 columns): the term alone, then the description
 * (prose) on rows of its own, `indent` columns in ({@link UNDER_TERM_INDENT} past the term's),
 * so that neither is broken mid-word at the other's column. `undefined` for any other line, and
 * where the description would have fewer than {@link DESCRIPTION_ROOM} columns under its term.
 */
function partedTerm(
  line: string,
  width: number,
): { term: string; indent: number; description: string } | undefined {
  if (line.replace(COLOUR_CODE, "") !== line || descriptionColumn(line, width) !== undefined) {
    return undefined;
  }
  const match = TERM_AND_DESCRIPTION.exec(line);
  const term = match?.[1];
  const description = match?.[2];
  if (term === undefined || description === undefined) {
    return undefined;
  }
  const indent = term.length - term.trimStart().length + UNDER_TERM_INDENT;
  return width - indent < DESCRIPTION_ROOM ? undefined : { term, indent, description };
}

/** An indented diff row numbered with its line in the file: the number, a space, the marker, a space. */
const NUMBERED_DIFF_ROW = /^ {2,}\d+ [-+ ] (?=\S)/;

/**
 * Where a wrapped row of a numbered diff (tools/line-diff.ts `withGutters`: `    12 - old`,
 * `    12 + new`, `    12   kept`) continues: under its text, past the line number and the
 * marker, so that the number column stays clear and reads as the file's (session 41: it
 * continued under the number). `undefined` for any other line. Colour codes are not counted.
 */
export function diffRowHang(line: string): number | undefined {
  const row = NUMBERED_DIFF_ROW.exec(line.replace(COLOUR_CODE, ""));
  return row === null ? undefined : row[0].length;
}

/** Where a line's continuation rows start (the module comment's rules), leaving room to write. */
function hangColumn(line: string, width: number): number {
  const plain = line.replace(COLOUR_CODE, "");
  const text = plain.trimStart();
  const indent = plain.length - text.length;
  const marker = LIST_MARKER.exec(text)?.[0].length ?? 0;
  const column =
    diffRowHang(plain) ??
    descriptionColumn(plain, width) ??
    (indent >= CONTINUATION_INDENT ? indent : indent + marker === 0 ? 0 : indent + marker + 2);
  return Math.min(column, width - room(width));
}

/** {@link DESCRIPTION_ROOM} in a row of `width` columns. */
function room(width: number): number {
  return Math.min(DESCRIPTION_ROOM, Math.floor(width / 2));
}

/**
 * The column where a `term  description` line's description starts: after its last run of two or
 * more spaces that leaves the description {@link room} in `width`.
 */
function descriptionColumn(line: string, width: number): number | undefined {
  const plain = line.replace(COLOUR_CODE, "");
  let column: number | undefined;
  for (const gap of plain.matchAll(/(?<=\S) {2,}(?=\S)/g)) {
    const start = visibleLength(plain.slice(0, gap.index)) + gap[0].length;
    if (start <= width - room(width)) {
      column = start;
    }
  }
  return column;
}

/**
 * `word` in pieces of at most `size` display columns, cut between graphemes (a grapheme wider
 * than `size` alone in its piece), colour codes kept where they stand.
 */
function cut(word: string, size: number): string[] {
  const pieces: string[] = [""];
  let columns = 0;
  for (const [token] of word.matchAll(COLOUR_CODE_OR_TEXT)) {
    if (token.startsWith("\u001b[")) {
      pieces[pieces.length - 1] += token;
      continue;
    }
    graphemes ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
    for (const { segment } of graphemes.segment(token)) {
      const width = visibleWidth(segment);
      if (columns > 0 && columns + width > size) {
        pieces.push("");
        columns = 0;
      }
      pieces[pieces.length - 1] += segment;
      columns += width;
    }
  }
  return pieces;
}
