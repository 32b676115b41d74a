/**
 * The one shape of a warning on stderr, on every face (README, above "Exit codes of `turnloop
 * -p`": every message turnloop writes to stderr starts `turnloop:`, `turnloop: warning:` for a
 * warning). A warning is something the user should know that did not stop the run: a config entry
 * left out, servers not started, a retried request, a connection left unguarded.
 * @returns `turnloop: warning: <text>`, without a newline.
 */
export function warningLine(text: string): string {
  return `turnloop: warning: ${text}`;
}

/** `line` without its leading `turnloop: `, for a face's logger that adds it itself. */
export function withoutPrefix(line: string): string {
  return line.replace(/^turnloop: /, "");
}
