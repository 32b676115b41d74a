/**
 * The permission settings as the user writes them, read without the matching code
 * (permission-rules.ts, which loads picomatch and the shell parser), so the faces check the
 * config files before anything is drawn or run (issue 26): the permission modes and where a
 * command runs (issue 23), and the text of a permission rule, `NAME` or `NAME(pattern)`.
 */

import { posix } from "node:path";
import type { SandboxPolicy } from "../tools/sandbox/policy.js";

/**
 * How much the gate decides alone (issue 23). `ask`: edits and commands are asked about;
 * `auto`: commands run without asking because they run in the sandbox, and edits inside the
 * workspace run without asking (falls back to `ask` where the sandbox cannot run);
 * `full-access`: every tool runs without asking (`--allow-all-tools`). Deny rules apply first in
 * every mode.
 */
export const PERMISSION_MODES = ["ask", "auto", "full-access"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** Whether `text` names a {@link PermissionMode}. */
export function isPermissionMode(text: string): text is PermissionMode {
  return (PERMISSION_MODES as readonly string[]).includes(text);
}

/**
 * Where a command runs, as every permission question shows it: inside the sandbox under
 * `policy` (with or without the network), or outside it (`policy: "danger-full-access"`);
 * `outsideReason` is set when the question is to run, outside the sandbox, a command the sandbox
 * stopped (issue 23: the reason is shown with the question).
 */
export interface CommandConfinement {
  policy: SandboxPolicy;
  network: boolean;
  outsideReason?: string;
}

/** Where a command the sandbox stopped runs once allowed outside it, and why it was stopped. */
export function outsideConfinement(outsideReason: string): CommandConfinement {
  return { policy: "danger-full-access", network: true, outsideReason };
}

/**
 * Whether a question offers "always" answers (a rule for the session): not one to run, outside
 * the sandbox, a command the sandbox stopped (`confinement.outsideReason` set). Its yes counts
 * for that one call (permission-gate.ts `createSandboxExitAsker`), so every face offers only yes
 * once and no there: the terminal's keys, ACP's options, the SDK's `canOfferSessionApproval`.
 */
export function offersAlwaysAnswers(confinement: CommandConfinement | undefined): boolean {
  return confinement?.outsideReason === undefined;
}

/** One line for a question, e.g. `sandbox: workspace-write, no network`. */
export function describeConfinement(confinement: CommandConfinement): string {
  if (confinement.outsideReason !== undefined) {
    return `outside the sandbox: ${confinement.outsideReason}`;
  }
  if (confinement.policy === "danger-full-access") {
    return "no sandbox (danger-full-access)";
  }
  return `sandbox: ${confinement.policy}, ${confinement.network ? "network on" : "no network"}`;
}

/**
 * What a question about a command shows of where it runs: {@link describeConfinement} when a
 * policy confines it or the question is to run it outside the sandbox; `undefined` for a command
 * that runs unconfined anyway (no policy chosen), whose questions read as before.
 */
export function shownConfinement(confinement: CommandConfinement | undefined): string | undefined {
  if (
    confinement === undefined ||
    (confinement.policy === "danger-full-access" && confinement.outsideReason === undefined)
  ) {
    return undefined;
  }
  return describeConfinement(confinement);
}

/**
 * A permission rule as written on the command line or recorded for a session: `NAME` (the whole
 * tool) or `NAME(pattern)`. For `bash` the pattern is matched against each simple command the
 * command runs (`git status`, `npm run *`, with `\*` a literal star; see `rulesCover` in
 * permission-rules.ts); for the tools with paths ({@link PATH_RULE_TOOLS}) it is a picomatch glob
 * over absolute paths once {@link anchoredPattern} has read it against the folder it came from
 * (`src/**` in the project's config file is `<project>/src/**`). The gate reads a pattern still
 * relative against the session's cwd.
 */
export interface PermissionRule {
  tool: string;
  pattern?: string;
  /** The rule as written. */
  text: string;
  /** Where the rule came from, named when it refuses a call ({@link ruleRefusal}). */
  source?: RuleSource;
}

/**
 * Where a permission rule came from: a flag (`--deny-tool`), a settings file (its path as the
 * user reads it, `~/.turnloop/settings.json`), or the session itself (`how`: the answer or the
 * app's call that recorded it, e.g. `by an earlier answer`).
 */
export type RuleSource =
  | { kind: "flag"; flag: string }
  | { kind: "file"; path: string }
  | { kind: "session"; how: string };

/**
 * Why `rule` refuses a call, naming where it came from: `denied by --deny-tool 'bash(rm *)'`
 * (the flag as it could be typed again), `denied by the rule "bash(rm *)" in
 * ~/.turnloop/settings.json`, `denied by the rule "bash" recorded for this session by an earlier
 * answer`; a rule of unknown source: `denied by the rule "bash"`.
 */
export function ruleRefusal(rule: PermissionRule): string {
  const { source } = rule;
  const quoted = JSON.stringify(rule.text);
  switch (source?.kind) {
    case undefined:
      return `denied by the rule ${quoted}`;
    case "flag":
      return `denied by ${source.flag} ${shellWord(rule.text)}`;
    case "file":
      return `denied by the rule ${quoted} in ${source.path}`;
    case "session":
      return `denied by the rule ${quoted} recorded for this session ${source.how}`;
    default: {
      const unhandled: never = source;
      return unhandled;
    }
  }
}

/** `text` as one shell word: as it is when plain, else in single quotes. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
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
 * The tools whose rule patterns are paths (`view(secret/**)`, `edit(src/*.ts)`): each takes a
 * `path` the gate resolves against the session's cwd (tools/view.ts … `scope`).
 */
export const PATH_RULE_TOOLS: readonly string[] = ["view", "create", "edit", "grep", "glob"];

/**
 * Whether `rule` (parsed, or its text) is one whose path pattern is read against a folder
 * (README, "Permissions"): a {@link PATH_RULE_TOOLS} rule whose pattern is neither absolute
 * (`/data/**`) nor under the home folder (`~`, `~/notes/**`). A text that does not parse is not
 * (the faces refuse it: session/face-config.ts).
 */
export function isRelativePathRule(rule: PermissionRule | string): boolean {
  if (typeof rule === "string") {
    try {
      return isRelativePathRule(parseRule(rule));
    } catch {
      return false;
    }
  }
  const pattern = rule.pattern;
  return (
    pattern !== undefined &&
    PATH_RULE_TOOLS.includes(rule.tool) &&
    !pattern.startsWith("/") &&
    pattern !== "~" &&
    !pattern.startsWith("~/")
  );
}

/**
 * A path rule's pattern as an absolute glob: `/…` as written; `~` and `~/…` under `home`; any
 * other under `folder`, the folder the rule is read against (the project's for a config file's
 * rule, the session's for a flag's or a grant's: session/run-config.ts). The folder's own
 * characters are escaped ({@link exactPathPattern}), so `/work/a[1]` names that folder, and `.`
 * and `..` are resolved (`./secret/**`, `src/../notes.txt`), as picomatch does not read them.
 * `folder` and `home` are absolute.
 */
export function anchoredPattern(pattern: string, folder: string, home: string): string {
  if (pattern.startsWith("/")) {
    return pattern;
  }
  if (pattern === "~" || pattern.startsWith("~/")) {
    return posix.join(exactPathPattern(home), pattern.slice(1));
  }
  return posix.join(exactPathPattern(folder), pattern);
}

/**
 * `rule` with its path pattern read against `folder` and `home` ({@link anchoredPattern}), its
 * text kept as written (what a denial names); a rule of another kind as it is.
 */
export function anchoredRule(rule: PermissionRule, folder: string, home: string): PermissionRule {
  return rule.pattern === undefined || !PATH_RULE_TOOLS.includes(rule.tool)
    ? rule
    : { ...rule, pattern: anchoredPattern(rule.pattern, folder, home) };
}

/**
 * The text of `rule`, a path rule read against `from`, written to be read against `to` with the
 * same meaning: `edit(notes.md)` of a session in `<project>/src` is `edit(src/notes.md)` in the
 * project's config file. An absolute one (an "always" answer for a file outside the session's
 * folder) is written as a user would: relative to `to` when in it (`edit(docs/plan.md)`), under
 * `~` when in `home` (`edit(~/notes/todo.md)`), else absolute; {@link anchoredPattern} reads each
 * back as the same path. `from` is `to` or a folder in it, `home` the user's home folder (all
 * absolute); a rule of another kind, or under `~`, keeps its text.
 */
export function reanchoredRuleText(
  rule: PermissionRule,
  from: string,
  to: string,
  home: string,
): string {
  const { pattern } = rule;
  if (pattern?.startsWith("/") === true && PATH_RULE_TOOLS.includes(rule.tool)) {
    const placed = placedPattern(pattern, [
      [to, "."],
      [home, "~"],
    ]);
    return placed === pattern ? rule.text : `${rule.tool}(${placed})`;
  }
  const prefix = posix.relative(to, from);
  if (!isRelativePathRule(rule) || pattern === undefined || prefix === "") {
    return rule.text;
  }
  return `${rule.tool}(${posix.join(exactPathPattern(prefix), pattern)})`;
}

/**
 * The absolute path pattern `pattern` written from the first of `places` (a folder, and how a
 * pattern names it: `.` or `~`) it is in: `<folder>/a/b` as `a/b` (`.`) or `~/a/b`; the folder
 * itself as its name. As it is when in none.
 */
function placedPattern(pattern: string, places: ReadonlyArray<[string, "." | "~"]>): string {
  for (const [folder, name] of places) {
    const escaped = exactPathPattern(folder);
    if (pattern === escaped) {
      return name;
    }
    if (pattern.startsWith(`${escaped}/`)) {
      const rest = pattern.slice(escaped.length + 1);
      return name === "." ? rest : `~/${rest}`;
    }
  }
  return pattern;
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
