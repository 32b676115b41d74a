/**
 * A tool call's time as `sessions show` and `-p` put it after the call's outcome (` (12 ms)`,
 * ` (1.2 s)`, ` (2 min)`: src/events/durations.ts `durationWords`), for tests that read a real
 * run's lines, whose times vary. test/cli/tool-duration-faces.test.ts checks the times themselves.
 */
export const TOOL_TIME = / \(\d+(?:\.\d)? (?:ms|s|min)\)/;

/** `text` without the tool call times in it ({@link TOOL_TIME}). */
export function withoutToolTimes(text: string): string {
  return text.replace(new RegExp(TOOL_TIME.source, "g"), "");
}
