import { isAbsolute, relative, sep } from "node:path";
import picomatch from "picomatch";
import { commandMatches, equalsWhole } from "./command-pattern.js";
import type { PermissionRule } from "./permission-mode.js";
import type { ShellAnalysis, ShellCommand } from "./shell-analysis.js";
import { analyseShellCommand, baseName } from "./shell-commands.js";
import { raisingForm } from "./shell-wrappers.js";

export { commandMatches } from "./command-pattern.js";

export { type PermissionRule, parseRule } from "./permission-mode.js";

/** The rule name that covers MCP tools (see {@link mcpRuleMatches}). */
export const MCP_RULE = "mcp";

/** What a rule is matched against: one tool call. */
export interface RuleSubject {
  toolName: string;
  /** Absolute paths the call touches. */
  paths: readonly string[];
  command?: string;
  /**
   * For an MCP tool: its server's name (`toolName` is then its usual name, `<server>__<tool>`
   * cleaned, whatever name it is offered under).
   */
  mcpServerName?: string;
  /** For an MCP tool: its name on its server. */
  mcpToolName?: string;
}

/** A JSON string: `"…"` with its escapes. */
const JSON_STRING = String.raw`"(?:[^"\\]|\\.)*"`;
/** The pattern of a rule bound to one server's tool: `"<server>":"<tool>"`, JSON strings. */
const SERVER_TOOL = new RegExp(`^(${JSON_STRING}):(${JSON_STRING})$`);

/**
 * The pattern of an `mcp` rule naming tool `toolName` of server `serverName` and no other,
 * whatever their names clean to: `"github":"create_issue"` (each a JSON string).
 */
export function serverToolPattern(serverName: string, toolName: string): string {
  return `${JSON.stringify(serverName)}:${JSON.stringify(toolName)}`;
}

/** The server and tool a {@link serverToolPattern} names; undefined for any other pattern. */
function serverToolOf(pattern: string): { server: string; tool: string } | undefined {
  const match = SERVER_TOOL.exec(pattern);
  if (match?.[1] === undefined || match[2] === undefined) {
    return undefined;
  }
  try {
    return { server: JSON.parse(match[1]) as string, tool: JSON.parse(match[2]) as string };
  } catch {
    return undefined;
  }
}

/**
 * `mcp` rules cover MCP tools: `mcp` alone every one, `mcp(github)` every tool of the server
 * `github`, `mcp("github":"create_issue")` that server's tool alone (what "always" records),
 * `mcp(github__*)` or `mcp(github__create_issue)` by the tool's usual name, `<server>__<tool>`
 * cleaned (`*` matches any characters), never by a `_2` name it may be offered under. A rule
 * naming the tool itself (`github__create_issue`) works too.
 */
function mcpRuleMatches(rule: PermissionRule, subject: RuleSubject): boolean {
  if (subject.mcpServerName === undefined) {
    return false;
  }
  const pattern = rule.pattern;
  if (pattern === undefined || pattern === subject.mcpServerName) {
    return true;
  }
  const bound = serverToolOf(pattern);
  if (bound !== undefined) {
    return bound.server === subject.mcpServerName && bound.tool === subject.mcpToolName;
  }
  return commandMatches(pattern, subject.toolName);
}

/**
 * Whether `rules` together cover the whole call: a rule without a pattern for the tool covers
 * everything. A command (shell-commands.ts reads it as bash would) is covered when every simple
 * command it runs, nested ones included, matches some rule in its plain spelling (`"r"\m`,
 * `/bin/rm` and `nice rm` all run `rm`; under `sudo` only a rule naming it: {@link partCovered}),
 * so `bash(git status)` never lets
 * `git status && rm -rf ~` through. A command that writes files (a redirection `>`, an option
 * such as `git log --output=`: shell-side-effects.ts), that cannot be fully understood ({@link ShellAnalysis.unclear}), or one of whose simple commands
 * sets a variable (`GIT_CONFIG_COUNT=1 git status`, `export A=1`: shell-environment.ts) is
 * covered only by a pattern equal to the whole command. Paths must each be covered by some rule.
 */
export function rulesCover(
  rules: readonly PermissionRule[],
  subject: RuleSubject,
  cwd: string,
): boolean {
  if (rules.some((rule) => rule.tool === MCP_RULE && mcpRuleMatches(rule, subject))) {
    return true;
  }
  const own = rules.filter((rule) => rule.tool === subject.toolName);
  if (own.some((rule) => rule.pattern === undefined)) {
    return true;
  }
  const patterns = own.flatMap((rule) => (rule.pattern === undefined ? [] : [rule.pattern]));
  if (patterns.length === 0) {
    return false;
  }
  if (subject.command !== undefined) {
    return commandCovered(patterns, subject.command);
  }
  return (
    subject.paths.length > 0 &&
    subject.paths.every((path) => patterns.some((pattern) => pathMatches(pattern, path, cwd)))
  );
}

/**
 * Whether `rule` matches any part of the call: for deny rules, where any overlap must stop it.
 * A command is touched when any spelling of any simple command in it matches (the command as
 * written without its path, and each command a wrapper runs); when the command cannot be fully
 * understood, also when it mentions the pattern's command name anywhere (`eval "rm -rf x"` with
 * a computed part, `bash script.sh rm`): asked about is better than guessed.
 */
export function ruleTouches(rule: PermissionRule, subject: RuleSubject, cwd: string): boolean {
  if (rule.tool === MCP_RULE && subject.toolName !== MCP_RULE) {
    return mcpRuleMatches(rule, subject);
  }
  if (rule.tool !== subject.toolName && !pathDenyRuleCovers(rule, subject.toolName)) {
    return false;
  }
  if (rule.pattern === undefined) {
    return true;
  }
  const pattern = normalisePattern(rule.pattern);
  if (subject.command !== undefined) {
    if (equalsWhole(rule.pattern, subject.command.trim())) {
      return true;
    }
    const analysis = analyse(subject.command);
    const matched = analysis.commands.some(
      (command) =>
        mayMatchWhenComputed(pattern, command) ||
        command.forms.some(
          (form) => commandMatches(pattern, form) || matchesPastLeadingOptions(pattern, form),
        ),
    );
    return matched || (analysis.unclear.length > 0 && mentionsCommand(analysis, pattern));
  }
  return subject.paths.some((path) => pathMatches(rule.pattern ?? "", path, cwd));
}

/**
 * The tools a path deny rule of each file tool covers: one of a reading tool (`view`, `grep`,
 * `glob`) covers every tool that reads files by path, `edit` included (its diff shows lines of
 * the file); one of an editing tool (`edit`, `create`) covers every tool that writes files by
 * path. As Claude Code's `Read(…)` covers Grep and Glob, and `Edit(…)` every editing tool: the
 * model must not reach a file by another tool than the one a rule names. A rule without a
 * pattern (`--deny-tool grep`) switches off only its tool; `bash` needs its own rules.
 */
const READING_TOOLS: readonly string[] = ["view", "grep", "glob", "edit"];
const WRITING_TOOLS: readonly string[] = ["edit", "create"];
const PATH_RULE_FAMILIES: ReadonlyMap<string, readonly string[]> = new Map([
  ["view", READING_TOOLS],
  ["grep", READING_TOOLS],
  ["glob", READING_TOOLS],
  ["edit", WRITING_TOOLS],
  ["create", WRITING_TOOLS],
]);

/** Whether `rule`, a deny rule with a path pattern, covers calls of `toolName` ({@link PATH_RULE_FAMILIES}). */
function pathDenyRuleCovers(rule: PermissionRule, toolName: string): boolean {
  return (
    rule.pattern !== undefined && (PATH_RULE_FAMILIES.get(rule.tool)?.includes(toolName) ?? false)
  );
}

/**
 * The paths `deny` keeps from a call of `toolName` that searches or lists a folder: those its
 * path deny rules (and those of the tools whose rules cover it) match. Undefined when none can.
 * `cwd` and `realCwd` are the session's folder as given and with its links resolved; the answer
 * takes absolute paths in either form.
 */
export function hiddenPaths(
  deny: readonly PermissionRule[],
  toolName: string,
  cwd: string,
  realCwd: string,
): ((path: string) => boolean) | undefined {
  if (!READING_TOOLS.includes(toolName)) {
    return undefined;
  }
  const patterns = deny.flatMap((rule) =>
    rule.pattern !== undefined && (rule.tool === toolName || pathDenyRuleCovers(rule, toolName))
      ? [rule.pattern]
      : [],
  );
  if (patterns.length === 0) {
    return undefined;
  }
  return (path) =>
    patterns.some(
      (pattern) => pathMatches(pattern, path, realCwd) || pathMatches(pattern, path, cwd),
    );
}

/**
 * Why `command` cannot be judged by its text (see {@link ShellAnalysis.unclear}); empty when it
 * can. The gate asks about such a command instead of letting `--allow-all-tools` run it while
 * deny rules for its tool are in force.
 */
export function unclearParts(command: string): readonly string[] {
  return analyse(command).unclear;
}

let lastAnalysis: { command: string; analysis: ShellAnalysis } | undefined;

/** One decision reads the same command several times (each rule, the refusal): parse it once. */
export function analyse(command: string): ShellAnalysis {
  if (lastAnalysis?.command !== command) {
    lastAnalysis = { command, analysis: analyseShellCommand(command) };
  }
  return lastAnalysis.analysis;
}

function commandCovered(patterns: readonly string[], command: string): boolean {
  const whole = command.trim();
  if (patterns.some((pattern) => equalsWhole(pattern, whole))) {
    return true;
  }
  const analysis = analyse(command);
  if (analysis.unclear.length > 0 || analysis.writes.length > 0) {
    return false;
  }
  const judged = analysis.commands.filter(judgedByAllowRules);
  return (
    judged.length > 0 &&
    judged.every((shellCommand) => partCovered(patterns, shellCommand, movesFolder(analysis)))
  );
}

/** Whether a command changes the shell's folder, after which a relative path names another file. */
export function movesFolder(analysis: ShellAnalysis): boolean {
  return analysis.commands.some(({ forms }) => FOLDER_CHANGE.test(forms.at(-1) ?? ""));
}

/**
 * Whether allow rules judge `shellCommand` itself: not when it only runs a script whose commands
 * are judged on their own (`bash -c '…'`), unless a wrapper that runs it as another user runs
 * that script (`sudo bash -c '…'`, `su -c '…'`: shell-wrappers.ts `IDENTITY_WRAPPERS`).
 */
export function judgedByAllowRules(shellCommand: ShellCommand): boolean {
  return !shellCommand.runsScript || raisingForm(shellCommand.forms) !== undefined;
}

/**
 * Whether one simple command of a command is covered by one of `patterns` (commandCovered): what
 * it finally runs matches one, and it sets no variable; when a wrapper runs it as another user or
 * in another root folder or namespaces (shell-wrappers.ts `IDENTITY_WRAPPERS`: `sudo rm x`), the
 * pattern must match it from that wrapper on (`sudo rm x`, `sudo *`), as Claude Code and Codex
 * match allow rules on the command as written. `movesFolder`: see {@link movesFolder}.
 */
export function partCovered(
  patterns: readonly string[],
  shellCommand: ShellCommand,
  movesFolder: boolean,
): boolean {
  const raising = raisingForm(shellCommand.forms);
  const runs = raising ?? shellCommand.forms.at(-1);
  const name = raising?.split(" ", 1)[0];
  const written =
    name === undefined
      ? shellCommand.runs[0]?.text
      : shellCommand.words.find((word) => baseName(word) === name);
  return (
    runs !== undefined &&
    shellCommand.assigns.length === 0 &&
    patterns.some(
      (pattern) =>
        commandMatches(normalisePattern(pattern), runs) &&
        namedAsWritten(pattern, written ?? "", movesFolder),
    )
  );
}

/**
 * Whether an allow pattern whose command has a path (`./x.sh *`, `bin/tool *`, the prefix the
 * question offers for a script run by its path) names the program as the command wrote it: such a
 * grant covers that file only, never a program of the same name elsewhere (`/tmp/x.sh`, `x.sh`
 * found on PATH), and a relative one only where the command does not change its folder first
 * (`cd sub && ./x.sh` runs sub/x.sh: the session-18 trial). A pattern naming a bare program
 * (`git *`) covers it by any path.
 */
function namedAsWritten(pattern: string, written: string, movesFolder: boolean): boolean {
  const name = pattern.trim().split(/\s+/)[0] ?? "";
  const path = (text: string) => text.replace(/^(?:\.\/)+/, "");
  if (!name.includes("/")) {
    return true;
  }
  return (
    (name.startsWith("/") || !movesFolder) && written.includes("/") && path(name) === path(written)
  );
}

/** Commands that change the shell's folder, after which a relative path names another file. */
const FOLDER_CHANGE = /^(?:cd|pushd|popd)(?: |$)/;

/** A pattern's command name without its path: `bash(/bin/rm *)` is about `rm`. */
function normalisePattern(pattern: string): string {
  const [name = "", ...rest] = pattern.trim().split(/\s+/);
  return [baseName(name), ...rest].join(" ");
}

function mentionsCommand(analysis: ShellAnalysis, pattern: string): boolean {
  const name = pattern.split(" ")[0] ?? "";
  if (name === "" || name === "*") {
    return true;
  }
  return (
    [...analysis.mentions].some((mention) => commandMatches(name, mention)) ||
    analysis.namePatterns.some((glob) => picomatch.isMatch(name, glob))
  );
}

/**
 * Whether `pattern` (`rm -rf *`, `git push --force *`) may match `command` once its computed
 * words are known: it names the program `command` finally runs, and a computed word before `--`
 * may be an option (shell-words.ts `optionLike`: `o=-rf; rm $o x` runs `rm -rf x`), or xargs adds
 * words it reads (`xargs rm`). A deny rule errs toward matching.
 */
function mayMatchWhenComputed(pattern: string, command: ShellCommand): boolean {
  const [program, ...words] = command.runs;
  const end = words.findIndex((word) => word.text === "--");
  return (
    program !== undefined &&
    !program.computed &&
    commandMatches(pattern.split(" ")[0] ?? "", baseName(program.text)) &&
    ((end === -1 ? words : words.slice(0, end)).some((word) => word.optionLike === true) ||
      command.forms.slice(0, -1).some((form) => /^g?xargs /.test(form)))
  );
}

/**
 * Whether `pattern`, naming a program and a subcommand (`git push *`), matches `form` once the
 * program's options before the subcommand are skipped: `git -C . push`, `git -c k=v push`,
 * `npm --silent install x`, `cargo +nightly publish`. Git, npm, docker, cargo, kubectl … take
 * global options (some with a value in the next word) before their subcommand, which no table
 * here lists for every program, so any run of words after a first option may be skipped: a
 * deny rule errs toward matching (`git -C push log` is denied by `bash(git push *)` too).
 */
function matchesPastLeadingOptions(pattern: string, form: string): boolean {
  const [program, subcommand] = pattern.split(" ");
  if (subcommand === undefined || !/^[A-Za-z]/.test(subcommand)) {
    return false;
  }
  const words = form.split(" ");
  if (words[0] !== program || !/^[-+]/.test(words[1] ?? "")) {
    return false;
  }
  for (let start = 2; start < words.length; start++) {
    if (commandMatches(pattern, [program, ...words.slice(start)].join(" "))) {
      return true;
    }
  }
  return false;
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
