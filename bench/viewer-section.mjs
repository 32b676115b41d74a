/**
 * Sections of bench/RESULTS.md written by their own scripts (viewer.mjs: the session view;
 * interactive.mjs: the interactive face, a `<!-- keep:interactive -->` section) when they run
 * alone. A full `node bench/run.mjs` runs them too and writes their output in its own sections
 * (bench/groups/scripts.mjs), rewriting the whole file.
 */

export const SECTION_START = "<!-- session-view benchmark: written by node bench/viewer.mjs -->";
export const SECTION_END = "<!-- end of the session-view benchmark -->";

/** Markers of the interactive face's section: report.mjs's `<!-- keep:NAME -->` form. */
export const INTERACTIVE_MARKERS = {
  start: "<!-- keep:interactive -->",
  end: "<!-- /keep:interactive -->",
};

const VIEWER_MARKERS = { start: SECTION_START, end: SECTION_END };

/** The section of `text` between `markers` (markers included), or "" when it has none. */
export function markedSection(text, markers) {
  const start = text.indexOf(markers.start);
  const end = text.indexOf(markers.end);
  return start === -1 || end === -1 ? "" : text.slice(start, end + markers.end.length);
}

/** `text` with its section between `markers` replaced by `section` (appended when absent). */
export function withMarkedSection(text, markers, section) {
  const old = markedSection(text, markers);
  return old === "" ? `${text.trimEnd()}\n\n${section}\n` : text.replace(old, () => section);
}

/** The session-view section of `text` (markers included), or "" when it has none. */
export function viewerSection(text) {
  return markedSection(text, VIEWER_MARKERS);
}

/** `text` with its session-view section replaced by `section` (appended when there is none). */
export function withViewerSection(text, section) {
  return withMarkedSection(text, VIEWER_MARKERS, section);
}
