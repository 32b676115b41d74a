import { isAbsolute, relative, sep } from "node:path";
import picomatch from "picomatch";

/**
 * A permission rule as written on the command line or recorded for a session: `NAME` (the whole
 * tool) or `NAME(pattern)`. For `bash` the pattern is matched against each part of the command
 * (`git status`, `npm run *`); for tools with paths it is a glob over paths relative to the
 * session's cwd (`src/**`), or absolute.
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

/** What a rule is matched against: one tool call. */
export interface RuleSubject {
  toolName: string;
  /** Absolute paths the call touches. */
  paths: readonly string[];
  command?: string;
}

/**
 * Whether `rule` covers the whole call. A bash rule must cover every part of a compound command
 * (`a && b`, `a; b`, `a | b`), so `bash(git status)` never lets `git status && rm -rf ~` through;
 * a command with substitutions or redirections (`$(…)`, backticks, `>`) is covered only by a
 * pattern equal to the whole command. A path rule must cover every path of the call.
 */
export function ruleCovers(rule: PermissionRule, subject: RuleSubject, cwd: string): boolean {
  if (rule.tool !== subject.toolName) {
    return false;
  }
  if (rule.pattern === undefined) {
    return true;
  }
  if (subject.command !== undefined) {
    return commandCovered(rule.pattern, subject.command);
  }
  if (subject.paths.length === 0) {
    return false;
  }
  return subject.paths.every((path) => pathMatches(rule.pattern ?? "", path, cwd));
}

/** Whether `rule` matches any part of the call: for deny rules, where any overlap must stop it. */
export function ruleTouches(rule: PermissionRule, subject: RuleSubject, cwd: string): boolean {
  if (rule.tool !== subject.toolName) {
    return false;
  }
  if (rule.pattern === undefined) {
    return true;
  }
  const pattern = rule.pattern;
  if (subject.command !== undefined) {
    return (
      subject.command.trim() === pattern ||
      commandParts(subject.command).some((part) => commandMatches(pattern, part))
    );
  }
  return subject.paths.some((path) => pathMatches(pattern, path, cwd));
}

const UNSAFE_SHELL = /\$\(|`|[<>]|\n/;

function commandCovered(pattern: string, command: string): boolean {
  const whole = command.trim();
  if (whole === pattern) {
    return true;
  }
  if (UNSAFE_SHELL.test(whole)) {
    return false;
  }
  const parts = commandParts(whole);
  return parts.length > 0 && parts.every((part) => commandMatches(pattern, part));
}

/** Splits a command on `&&`, `||`, `;`, `|` and `&`. */
export function commandParts(command: string): string[] {
  return command
    .split(/&&|\|\||[;|&]/)
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

function commandMatches(pattern: string, part: string): boolean {
  if (!pattern.includes("*")) {
    return part === pattern;
  }
  const expression = pattern
    .split("*")
    .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${expression}$`, "s").test(part);
}

function pathMatches(pattern: string, path: string, cwd: string): boolean {
  if (isAbsolute(pattern)) {
    return picomatch.isMatch(path, pattern, { dot: true });
  }
  if (!isInside(path, cwd)) {
    return false;
  }
  const relativePath = relative(cwd, path);
  return picomatch.isMatch(relativePath.split(sep).join("/"), pattern, { dot: true });
}

/** Whether `path` is `folder` or inside it. */
export function isInside(path: string, folder: string): boolean {
  const relativePath = relative(folder, path);
  return relativePath !== ".." && !relativePath.startsWith(`..${sep}`) && !isAbsolute(relativePath);
}
