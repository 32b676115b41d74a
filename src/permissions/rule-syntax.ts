/**
 * The text of a permission rule, `NAME` or `NAME(pattern)`, read without the matching code
 * (permission-rules.ts, which loads picomatch and the shell parser): the faces check the rules of
 * the config files before anything is drawn or run (issue 26).
 */

/**
 * A permission rule as written on the command line or recorded for a session: `NAME` (the whole
 * tool) or `NAME(pattern)`. For `bash` the pattern is matched against each simple command the
 * command runs (`git status`, `npm run *`, with `\*` a literal star; see `rulesCover` in
 * permission-rules.ts); for tools with paths it is a glob over paths relative to the session's
 * cwd (`src/**`), or absolute.
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

/**
 * A command pattern matching exactly `command` (the rule of an "always for that exact call"
 * answer): in a pattern `*` stands for any text and a backslash makes the next character
 * literal, so `rm -f *.o` becomes `rm -f \*.o` (trial finding 14: its `*` must not match
 * `-r victim x`) and a backslash is doubled (`a\\b`).
 */
export function exactCommandPattern(command: string): string {
  return command.replace(/[\\*]/g, "\\$&");
}

/**
 * A path pattern matching exactly `path` (picomatch's glob): each of `\ * ? [ ] { } ( ) ! + @`
 * escaped with a backslash, so `edit(src/a[1].ts)` is not a character class.
 */
export function exactPathPattern(path: string): string {
  return path.replace(/[\\*?[\]{}()!+@]/g, "\\$&");
}

/**
 * The names of the tools every session has (tools/index.ts `builtinTools`, and autopilot's
 * `task_complete`), and `mcp` for MCP tools: kept here so the faces can check rules without
 * loading the tools.
 */
export const BUILT_IN_TOOL_NAMES: readonly string[] = [
  "view",
  "create",
  "edit",
  "grep",
  "glob",
  "bash",
  "update_plan",
  "task_complete",
  "mcp",
];

/**
 * Other agents' names for turnloop's tools (lower-cased): Claude Code's `Bash`, `Read`, `Write`,
 * `MultiEdit`, `LS`, the Copilot CLI's `shell` and `write`. Not aliases: their patterns mean other
 * things (`shell(git:*)`), so a rule naming one is refused with turnloop's name.
 */
const OTHER_AGENTS_NAMES: ReadonlyMap<string, string> = new Map([
  ["shell", "bash"],
  ["read", "view"],
  ["write", "create or edit"],
  ["multiedit", "edit"],
  ["ls", "view or glob"],
]);

/**
 * Parses a rule of a flag or a config file as {@link parseRule} does, and refuses one whose tool
 * name is another spelling of a built-in tool's (`Bash(rm *)`, `shell(rm)`, `Read`): such a rule
 * would match no call, and a deny rule that denies nothing must not pass silently (trial finding
 * 17). Claude Code's names of MCP tools are read as turnloop's: `mcp__server__tool` as
 * `server__tool`, `mcp__server` as `mcp(server)` (session-17 trial #14: it denied nothing). Other
 * names stay accepted: an app's own tools (`--headless`) and MCP tools (`server__tool`) are named
 * by what the model calls.
 * @throws Error naming the tool the rule was meant for.
 */
export function parseConfiguredRule(text: string): PermissionRule {
  const rule = parseRule(text);
  if (BUILT_IN_TOOL_NAMES.includes(rule.tool)) {
    return rule;
  }
  const claudeMcp = /^mcp__(.+)$/.exec(rule.tool)?.[1];
  if (claudeMcp !== undefined && rule.pattern === undefined) {
    // Claude Code's name of an MCP tool, `mcp__server__tool`, or of a server's tools, `mcp__server`.
    return claudeMcp.includes("__")
      ? { tool: claudeMcp, text: rule.text }
      : { tool: "mcp", pattern: claudeMcp, text: rule.text };
  }
  const lower = rule.tool.toLowerCase();
  const meant = BUILT_IN_TOOL_NAMES.includes(lower) ? lower : OTHER_AGENTS_NAMES.get(lower);
  if (meant === undefined) {
    return rule;
  }
  const pattern = rule.pattern === undefined ? "" : `(${rule.pattern})`;
  const example = meant
    .split(" or ")
    .map((name) => `${name}${pattern}`)
    .join(" or ");
  throw new Error(
    `tool rule "${rule.text}" names no turnloop tool (names are lower-case: ${BUILT_IN_TOOL_NAMES.join(", ")}); did you mean ${example}?`,
  );
}
