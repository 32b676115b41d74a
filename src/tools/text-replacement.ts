import { fileDiff } from "./line-diff.js";

/** Match positions reported at most (a one-character old_str can match everywhere). */
const MAX_REPORTED_MATCHES = 1_000;

/** The outcome of replacing one occurrence of a string in a text. */
export type Replacement =
  | {
      kind: "replaced";
      /** The whole new text. */
      text: string;
      /** A unified-style hunk of the change (`@@ -a,b +c,d @@`, ` `/`-`/`+` lines). */
      diff: string;
    }
  | {
      kind: "not-found";
      /** 1-based lines where old_str starts when whitespace and line endings are ignored. */
      looseMatchLines: number[];
    }
  | {
      kind: "ambiguous";
      count: number;
      /** 1-based lines where the matches start, each line once, ascending. */
      lines: number[];
    };

/**
 * Replaces the one occurrence of `oldString` in `text` with `newString`. Line endings follow the
 * file: in a file with mostly CRLF lines, `\n` in both strings stands for `\r\n` (models write
 * `\n`), and in an LF file `\r\n` stands for `\n`; if the converted `oldString` is not found, it is
 * tried as given (files with mixed endings). Overlapping occurrences count as several, since the
 * model could have meant any of them. `oldString` must not be empty.
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
        lines: [...new Set(lineNumbersOf(text, positions))],
      };
    }
    const newText = text.slice(0, position) + replacement + text.slice(position + search.length);
    return { kind: "replaced", text: newText, diff: fileDiff(text, newText) };
  }
  return { kind: "not-found", looseMatchLines: looseMatchLines(text, oldString) };
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

/** Start indexes of `needle` in `text`, overlapping ones included, at most {@link MAX_REPORTED_MATCHES}. */
function findOccurrences(text: string, needle: string): number[] {
  const positions: number[] = [];
  let index = text.indexOf(needle);
  while (index !== -1 && positions.length < MAX_REPORTED_MATCHES) {
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

/**
 * Lines where `oldString` would match if runs of spaces and tabs counted as one space and line
 * ends, indentation and trailing blanks were ignored: the usual reason a model's copy misses.
 * Line by line, so that line numbers stay those of the file.
 */
function looseMatchLines(text: string, oldString: string): number[] {
  const normalise = (line: string) => line.replace(/\s+/g, " ").trim();
  const needle = oldString.split("\n").map(normalise).join("\n");
  if (needle.trim() === "") {
    return [];
  }
  const haystack = text.split("\n").map(normalise).join("\n");
  const positions = findOccurrences(haystack, needle);
  return [...new Set(lineNumbersOf(haystack, positions))];
}
