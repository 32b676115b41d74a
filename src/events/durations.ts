/**
 * How every face words a duration it tells the user (a retry's wait: `-p`, the interactive
 * screen, the plain-line face, ACP's thought and log line, `sessions show`, the export and the
 * session view; a tool call's time: `-p`, the plain lines, the screen, `sessions show`, the
 * export and the session view's page), so that one log reads alike everywhere: below a second
 * in whole milliseconds (`5 ms`), below a minute in seconds with one decimal, a whole number
 * without it (`1.5 s`, `2 s`), from a minute on in minutes the same way (`2 min`, `2.5 min`). A
 * wait of a few milliseconds read `0.0 s` in `-p` and ACP and `5 ms` in `sessions show` (session
 * 40); a tool call's `(1234 ms)` in `-p`, `1.2s` on the screen and `1.23 s` in the export
 * (session 41).
 */

/**
 * `ms` (milliseconds; a negative or non-finite value reads as 0) in the words above. The unit is
 * chosen after rounding: 999.6 ms reads `1 s`, 59.96 s reads `1 min`. Self-contained (no name
 * from outside its body), so that the session view's page runs this very function
 * (session-view/page-summary.ts embeds its source).
 */
export function durationWords(ms: number): string {
  const second = 1000;
  const minute = 60000;
  // `n` (a multiple of 0.1) with one decimal, without it when it is whole: `1.5`, `2`.
  const oneDecimal = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));
  const value = Number.isFinite(ms) && ms > 0 ? ms : 0;
  if (Math.round(value) < second) {
    return `${Math.round(value)} ms`;
  }
  const seconds = Math.round(value / 100) / 10;
  if (seconds < minute / second) {
    return `${oneDecimal(seconds)} s`;
  }
  return `${oneDecimal(Math.round(value / (minute / 10)) / 10)} min`;
}
