const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * How long ago `timestamp` (ISO-8601) was, as `turnloop sessions`, `/sessions` and the resume
 * picker show it: `just now` (under a minute), `3 min ago`, `2 h ago`, `yesterday` (24 to 48 h),
 * `5 days ago` (under 30 days), then the date (`2026-10-31`, UTC). A time in the future counts
 * as now; an unreadable one is `?`. `now`: ms since the epoch.
 */
export function age(timestamp: string, now = Date.now()): string {
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) {
    return "?";
  }
  const elapsed = Math.max(0, now - at);
  if (elapsed < MINUTE) {
    return "just now";
  }
  if (elapsed < HOUR) {
    return `${Math.floor(elapsed / MINUTE)} min ago`;
  }
  if (elapsed < DAY) {
    return `${Math.floor(elapsed / HOUR)} h ago`;
  }
  if (elapsed < 2 * DAY) {
    return "yesterday";
  }
  if (elapsed < 30 * DAY) {
    return `${Math.floor(elapsed / DAY)} days ago`;
  }
  return new Date(at).toISOString().slice(0, 10);
}
