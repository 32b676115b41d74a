/**
 * How every face words a duration it tells the user (a retry's wait: `-p`, the interactive
 * screen, the plain-line face, ACP's thought and log line, `sessions show`, the export and the
 * session view), so that one log reads alike everywhere: below a second in whole milliseconds
 * (`5 ms`), below a minute in seconds with one decimal, a whole number without it (`1.5 s`,
 * `2 s`), from a minute on in minutes the same way (`2 min`, `2.5 min`). A wait of a few
 * milliseconds read `0.0 s` in `-p` and ACP and `5 ms` in `sessions show` (session 40).
 */

/** Milliseconds in a second and in a minute. */
const SECOND = 1_000;
const MINUTE = 60_000;

/**
 * `ms` (milliseconds; a negative or non-finite value reads as 0) in the words above. The unit is
 * chosen after rounding: 999.6 ms reads `1 s`, 59.96 s reads `1 min`.
 */
export function durationWords(ms: number): string {
  const value = Number.isFinite(ms) && ms > 0 ? ms : 0;
  if (Math.round(value) < SECOND) {
    return `${Math.round(value)} ms`;
  }
  const seconds = Math.round(value / 100) / 10;
  if (seconds < MINUTE / SECOND) {
    return `${oneDecimal(seconds)} s`;
  }
  return `${oneDecimal(Math.round(value / (MINUTE / 10)) / 10)} min`;
}

/** `n` (a multiple of 0.1) with one decimal, without it when it is whole: `1.5`, `2`. */
function oneDecimal(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
