/**
 * The session-view section of bench/RESULTS.md: written by viewer.mjs, kept as it is when
 * run.mjs rewrites the rest of the file.
 */

export const SECTION_START = "<!-- session-view benchmark: written by node bench/viewer.mjs -->";
export const SECTION_END = "<!-- end of the session-view benchmark -->";

/** The session-view section of `text` (markers included), or "" when it has none. */
export function viewerSection(text) {
  const start = text.indexOf(SECTION_START);
  const end = text.indexOf(SECTION_END);
  return start === -1 || end === -1 ? "" : text.slice(start, end + SECTION_END.length);
}

/** `text` with its session-view section replaced by `section` (appended when there is none). */
export function withViewerSection(text, section) {
  const old = viewerSection(text);
  return old === "" ? `${text.trimEnd()}\n\n${section}\n` : text.replace(old, () => section);
}
