import { replacementDiff } from "./line-diff.js";

/** Match positions reported at most (a one-character old_str can match everywhere). */
const MAX_REPORTED_MATCHES = 1_000;

/** The outcome of replacing one occurrence of a string in a text. */
export type Replacement =
  | {
      kind: "replaced";
      /** The whole new text. */
      text: string;
      /**
       * A unified-style hunk of the change (`@@ -a,b +c,d @@`, ` `/`-`/`+` lines), read from the
       * lines around it (line-diff.ts `replacementDiff`).
       */
      diff: string;
    }
  | {
      kind: "not-found";
      /** 1-based lines where old_str starts when whitespace and line endings are ignored. */
      looseMatchLines: number[];
      /** Whether the search for those stopped at {@link MAX_REPORTED_MATCHES}: there may be more. */
      looseMatchesCut: boolean;
    }
  | {
      kind: "ambiguous";
      /** Matches counted: at most {@link MAX_REPORTED_MATCHES}, where counting stops. */
      count: number;
      /** Whether counting stopped at {@link MAX_REPORTED_MATCHES}: there may be more. */
      atLeast: boolean;
      /** 1-based lines where the matches start, each line once, ascending. */
      lines: number[];
    };

/**
 * Replaces the one occurrence of `oldString` in `text` with `newString`. Line endings follow the
 * file: in a file with mostly CRLF lines, `\n` in both strings stands for `\r\n` (models write
 * `\n`), and in an LF file `\r\n` stands for `\n`; if the converted `oldString` is not found, it is
 * tried as given (files with mixed endings). Overlapping occurrences count as several, since the
 * model could have meant any of them. `oldString` must not be empty. Memory follows the text
 * once over (the new text, built once), not its lines: a 50 MiB file is never split.
 */
export function replaceOnce(text: string, oldString: string, newString: string): Replacement {
  const ending = dominantLineEnding(text);
  const candidates: Array<[string, string]> = [];
  if (ending !== undefined) {
    candidates.push([withLineEnding(oldString, ending), withLineEnding(newString, ending)]);
  }
  if (candidates[0]?.[0] !== oldString) {
    candidates.push([oldString, newString]);
  }
  for (const [search, replacement] of candidates) {
    const positions = findOccurrences(text, search);
    const [position] = positions;
    if (position === undefined) {
      continue;
    }
    if (positions.length > 1) {
      return {
        kind: "ambiguous",
        count: positions.length,
        atLeast: positions.length >= MAX_REPORTED_MATCHES,
        lines: [...new Set(lineNumbersOf(text, positions))],
      };
    }
    const end = position + search.length;
    return {
      kind: "replaced",
      text: text.slice(0, position) + replacement + text.slice(end),
      diff: replacementDiff(text, position, end, replacement),
    };
  }
  const loose = looseMatches(text, oldString);
  return { kind: "not-found", looseMatchLines: loose.lines, looseMatchesCut: loose.cut };
}

/** `\r\n` when most line breaks are CRLF, `\n` when most are LF, `undefined` for one-line text. */
function dominantLineEnding(text: string): "\r\n" | "\n" | undefined {
  const breaks = countOf(text, "\n");
  if (breaks === 0) {
    return undefined;
  }
  const crlf = countOf(text, "\r\n");
  return crlf > breaks - crlf ? "\r\n" : "\n";
}

function withLineEnding(text: string, ending: "\r\n" | "\n"): string {
  return text.replace(/\r?\n/g, ending);
}

function countOf(text: string, needle: string): number {
  let count = 0;
  for (let index = text.indexOf(needle); index !== -1; index = text.indexOf(needle, index + 1)) {
    count += 1;
  }
  return count;
}

/** Start indexes of `needle` in `text`, overlapping ones included, at most `limit`. */
function findOccurrences(
  text: string,
  needle: string,
  limit: number = MAX_REPORTED_MATCHES,
): number[] {
  const positions: number[] = [];
  let index = text.indexOf(needle);
  while (index !== -1 && positions.length < limit) {
    positions.push(index);
    index = text.indexOf(needle, index + 1);
  }
  return positions;
}

/** 1-based line numbers of ascending `positions` in `text`. */
function lineNumbersOf(text: string, positions: readonly number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let scanned = 0;
  for (const position of positions) {
    let newline = text.indexOf("\n", scanned);
    while (newline !== -1 && newline < position) {
      line += 1;
      newline = text.indexOf("\n", newline + 1);
    }
    scanned = position;
    lines.push(line);
  }
  return lines;
}

/** Lines of the text normalised and searched at a time by {@link looseMatchLines}. */
const LOOSE_MATCH_BLOCK_LINES = 4_096;

/**
 * Lines where `oldString` would match if runs of spaces and tabs counted as one space and line
 * ends, indentation and trailing blanks were ignored: the usual reason a model's copy misses.
 * Line by line, so that line numbers stay those of the file; {@link LOOSE_MATCH_BLOCK_LINES}
 * lines at a time (with the lines after them that a match starting in them spans), so that a
 * miss in a 50 MiB file does not hold its 2.6 million lines at once.
 */
function looseMatches(text: string, oldString: string): { lines: number[]; cut: boolean } {
  const needle = oldString.split("\n").map(normaliseLine).join("\n");
  if (needle.trim() === "") {
    return { lines: [], cut: false };
  }
  // A match spans as many lines as the needle has: normalised lines hold no line break.
  const spanned = countOf(needle, "\n");
  const lines = new LineReader(text);
  const found: number[] = [];
  let matches = 0;
  const block: string[] = [];
  for (let first = 1; matches < MAX_REPORTED_MATCHES; first += LOOSE_MATCH_BLOCK_LINES) {
    block.splice(0, LOOSE_MATCH_BLOCK_LINES);
    while (block.length < LOOSE_MATCH_BLOCK_LINES + spanned && !lines.done) {
      block.push(normaliseLine(lines.next()));
    }
    if (block.length === 0) {
      break;
    }
    const haystack = block.join("\n");
    const positions = findOccurrences(haystack, needle, MAX_REPORTED_MATCHES - matches);
    for (const line of lineNumbersOf(haystack, positions)) {
      if (line <= LOOSE_MATCH_BLOCK_LINES) {
        matches += 1;
        found.push(first + line - 1);
      }
    }
    if (lines.done && block.length <= LOOSE_MATCH_BLOCK_LINES) {
      break;
    }
  }
  return { lines: [...new Set(found)], cut: matches >= MAX_REPORTED_MATCHES };
}

function normaliseLine(line: string): string {
  return line.replace(/\s+/g, " ").trim();
}

/** The pieces of a text between its `\n`s, one at a time, as `split("\n")` gives them. */
class LineReader {
  private position = 0;
  done = false;

  constructor(private readonly text: string) {}

  next(): string {
    const newline = this.text.indexOf("\n", this.position);
    if (newline === -1) {
      this.done = true;
      return this.text.slice(this.position);
    }
    const line = this.text.slice(this.position, newline);
    this.position = newline + 1;
    return line;
  }
}
