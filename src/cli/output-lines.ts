/**
 * What every face shows of a tool's output and of the lines it leaves out ({@link outputLines},
 * {@link hiddenLinesNote}): here, as `-p` loads it before its first request
 * (test/cli/modules-loaded.test.ts bounds those).
 */

import { PART_OF_ONE_LINE, PARTIAL_LINE_MARK } from "../tools/command-output.js";

/**
 * The marker a result too long to keep whole has where its middle was cut, on a line of its own
 * between its start and its end: `[… N lines (B bytes) omitted; WHERE]`, `[… part of 1 line (B
 * bytes) omitted; WHERE]` for a cut inside one line (tools/command-output.ts `omittedMarker`,
 * written by the command runner and agent/result-budget.ts `cutResult`; a log written before
 * session 46 says `0 lines` there), `[… B bytes omitted; WHERE]` in a log written before the
 * lines were counted, `[… C characters omitted; WHERE]` for an MCP tool's result
 * (tools/mcp/tools.ts). Group 1: N, with its commas, or `part of 1`; group 2: WHERE, where the
 * whole output is (or why it is nowhere). (`\u2026` is `…`: the scripts loaded before `-p`'s
 * first request are ASCII, test/cli/modules-loaded.test.ts.)
 */
const OMITTED_MARKER =
  /^\[\u2026 (?:([\d,]+|part of 1) lines? \()?\d+ (?:bytes|characters)\)? omitted; (.+)\]$/;

/** What a face shows of a tool's output, read by {@link outputLines}. */
export interface OutputLines {
  /** The output's first lines shown, whole, above the note ({@link hiddenLinesNote}). */
  first: string[];
  /**
   * The output's last lines shown, whole, under the note; the first of them the end of a line
   * the cut began in, `…` first, when the log kept only that.
   */
  last: string[];
  /**
   * Lines of the output (the command's, not the shortened text's) shown neither in `first` nor
   * in `last`, nor skipped as blank between them; `undefined` when the log does not say (a
   * marker without a line count).
   */
  hidden: number | undefined;
  /** Lines of the output in all; `undefined` when the log does not say. */
  total: number | undefined;
  /**
   * Where the whole output is when the log holds only its start and end: the marker's words
   * (`full output saved to PATH`, or why it was not saved); `undefined` when the log holds it all.
   */
  saved: string | undefined;
}

/**
 * The lines a face shows of a tool's output as logged (whole, or cut around an {@link OMITTED_MARKER}):
 * up to `keep.first` from its start, `keep.last` from its end (`nonBlank`: blank ones skipped). The
 * line before the marker (a cut line's piece, or the empty line after a whole head) is never shown;
 * the one after is, also when it is the end of a line the cut began in (it starts with
 * tools/command-output.ts `PARTIAL_LINE_MARK`: one long line's end, where a minified error's
 * words are), then cut from its start to `keep.width` characters, `…` first, when it is wider.
 */
export function outputLines(
  text: string,
  keep: { first?: number; last?: number; width?: number },
  nonBlank = false,
): OutputLines {
  const trimmed = text.replace(/\s+$/, "");
  const lines = trimmed === "" ? [] : trimmed.split(/\r?\n/);
  const at = lines.findIndex((line) => OMITTED_MARKER.test(line.trim()));
  const marker = at === -1 ? undefined : OMITTED_MARKER.exec(lines[at]?.trim() ?? "");
  // The lines seen whole: all, or the head's and the tail's with `gap` lines between them.
  const head = marker === undefined ? lines : lines.slice(0, Math.max(0, at - 1));
  const tail = marker === undefined ? [] : lines.slice(at + 1);
  if (tail[0]?.startsWith(PARTIAL_LINE_MARK) === true) {
    tail[0] = lineEnd(tail[0], keep.width);
  }
  const counted = marker?.[1];
  const gap =
    marker === undefined
      ? 0
      : counted === undefined
        ? undefined
        : counted === "part of 1"
          ? 0
          : Number(counted.replaceAll(",", ""));
  const shown = (line: string) => !nonBlank || line.trim() !== "";
  const first: string[] = [];
  let firstEnd = 0;
  for (; firstEnd < head.length && first.length < (keep.first ?? 0); firstEnd++) {
    const line = head[firstEnd] ?? "";
    if (shown(line)) {
      first.push(line);
    }
  }
  // From the end: the tail, then (when nothing was cut) the head's lines after the first ones.
  const rest = [...head.slice(firstEnd), ...(gap === 0 ? [] : [undefined]), ...tail];
  const last: string[] = [];
  let lastStart = rest.length;
  for (; lastStart > 0 && last.length < (keep.last ?? 0); lastStart--) {
    const line = rest[lastStart - 1];
    if (line === undefined) {
      break;
    }
    if (shown(line)) {
      last.unshift(line);
    }
  }
  // `rest` holds the cut as one entry: it stands for `gap` lines.
  const unseen = gap === 0 ? lastStart : lastStart - 1;
  return {
    first,
    last,
    hidden: gap === undefined ? undefined : unseen + gap,
    total: gap === undefined ? undefined : head.length + gap + tail.length,
    saved: marker?.[2],
  };
}

/**
 * A line's end as a face shows it: `line` (its start is `PARTIAL_LINE_MARK`) when it fits in
 * `width` characters (code points), else `…` and its last `width - 1`.
 */
function lineEnd(line: string, width: number | undefined): string {
  const characters = Array.from(line);
  if (width === undefined || characters.length <= width) {
    return line;
  }
  return `${PARTIAL_LINE_MARK}${characters.slice(characters.length - Math.max(1, width - 1)).join("")}`;
}

/**
 * The rows a face draws where it leaves out lines of a tool's output ({@link outputLines}), none
 * when it leaves out none: `… 496 earlier lines (WHOLE)`, `WHOLE` being the face's words for
 * where the log's copy is shown all (`turnloop sessions export 1a2b3c4d --format markdown shows
 * all`: {@link exportShowsAll}); for a cut output, `… 4,996 earlier lines; full output saved to`
 * and the saved file's path on a row of its own, never cut mid-name (a terminal wraps a path
 * wider than itself), then what the marker says after it; `… part of 1 line; full output saved
 * to` when every line is shown but one was cut inside (its end shown, `…` first). `some` lines when the log does not
 * count them. `place`: `earlier` above the output's last lines, `more` for lines left out after
 * or between the lines shown.
 */
export function hiddenLinesNote(
  lines: OutputLines,
  place: "earlier" | "more",
  whole: string,
): string[] {
  const { hidden, saved } = lines;
  if (hidden === 0 && saved === undefined) {
    return [];
  }
  // Every line shown, yet the log holds a cut: the cut is inside one line, shown from inside.
  const count =
    hidden === undefined
      ? `some ${place} lines`
      : hidden === 0
        ? PART_OF_ONE_LINE
        : `${hidden.toLocaleString("en-US")} ${place} ${hidden === 1 ? "line" : "lines"}`;
  if (saved === undefined) {
    return [`… ${count} (${whole})`];
  }
  // `full output saved to PATH`, `the first B bytes of the output saved to PATH (…)`.
  const file = /^(.+? saved to) (.+?)( \(this session's saved outputs are capped[^)]*\))?$/.exec(
    saved,
  );
  if (file === null) {
    return [`… ${count}; ${saved}`];
  }
  const [, words = "", path = "", cap] = file;
  return [`… ${count}; ${words}`, path, ...(cap === undefined ? [] : [cap.trim()])];
}

/**
 * Where the whole of an output the log holds is shown: `turnloop sessions export 1a2b3c4d
 * --format markdown shows all`, the session named by its id's first 8 characters (a prefix the
 * `sessions` commands take); without an id, as `sessions show` names it for a prompt.
 */
export function exportShowsAll(sessionId: string | undefined): string {
  return sessionId === undefined
    ? "sessions export --format markdown shows all"
    : `turnloop sessions export ${sessionId.slice(0, 8)} --format markdown shows all`;
}
