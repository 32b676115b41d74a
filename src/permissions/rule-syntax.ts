/**
 * The text of a permission rule, `NAME` or `NAME(pattern)`, read without the matching code
 * (permission-rules.ts, which loads picomatch and the shell parser): the faces check the rules of
 * the config files before anything is drawn or run (issue 26).
 */

/**
 * A permission rule as written on the command line or recorded for a session: `NAME` (the whole
 * tool) or `NAME(pattern)`. For `bash` the pattern is matched against each simple command the
 * command runs (`git status`, `npm run *`; see `rulesCover` in permission-rules.ts); for tools
 * with paths it is a glob over paths relative to the session's cwd (`src/**`), or absolute.
 */
export interface PermissionRule {
  tool: string;
  pattern?: string;
  /** The rule as written. */
  text: string;
}

/**
 * Parses `NAME` or `NAME(pattern)`.
 * @throws Error with a readable message for anything else (e.g. `bash(`).
 */
export function parseRule(text: string): PermissionRule {
  const match = /^([A-Za-z0-9_.-]+)(?:\((.*)\))?$/s.exec(text.trim());
  const tool = match?.[1];
  if (match === null || tool === undefined) {
    throw new Error(
      `invalid tool rule "${text}": use NAME or NAME(pattern), e.g. bash(git status)`,
    );
  }
  const pattern = match[2];
  if (pattern !== undefined && pattern.trim() === "") {
    throw new Error(`invalid tool rule "${text}": the pattern in parentheses is empty`);
  }
  return { tool, text: text.trim(), ...(pattern === undefined ? {} : { pattern: pattern.trim() }) };
}
