import { realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, join, resolve, sep } from "node:path";
import type { ToolRequest } from "../events/events.js";
import type { AnyTool, ToolCallScope } from "../tools/define-tool.js";
import { isInConfiguredPlace, isServerProgram } from "../tools/sandbox/configured-places.js";
import { LATER_RUN_CONFIGURATION, laterRunReason } from "../tools/sandbox/policy.js";
import { linkedPlaceOf } from "../tools/sandbox/real-paths.js";
import { commandPrefix } from "./command-prefix.js";
import type { HiddenPlaceJudgement } from "./hidden-places.js";
import {
  exactCommandPattern,
  exactPathPattern,
  parseConfiguredRule,
  ruleRefusal,
} from "./permission-mode.js";
import {
  hiddenPaths,
  isInside,
  MCP_RULE,
  type PermissionRule,
  type RuleSubject,
  rulesCover,
  ruleTouches,
  unclearParts,
} from "./permission-rules.js";
import type {
  HiddenPaths,
  PermissionDecision,
  PermissionPolicy,
  PermissionQuestion,
  PermissionRequest,
  PermissionSubject,
} from "./permission-types.js";
import type { UncoveredPart } from "./uncovered-parts.js";

export {
  type CommandConfinement,
  describeConfinement,
  isPermissionMode,
  PERMISSION_MODES,
  type PermissionMode,
  shownConfinement,
} from "./permission-mode.js";
export type {
  AskPermission,
  HiddenPaths,
  PermissionDecision,
  PermissionPolicy,
  PermissionQuestion,
  PermissionReply,
  PermissionRequest,
  PermissionSubject,
} from "./permission-types.js";

/**
 * Parses `--allow-tool` / `--deny-tool` values and config files' rules (permission-mode.ts
 * `parseConfiguredRule`). @throws Error naming the bad rule.
 */
export function parseRules(texts: readonly string[]): PermissionRule[] {
  return texts.map(parseConfiguredRule);
}

/**
 * The permission rules in order (DESIGN.md, tools): deny rules first; then `--allow-all-tools`
 * (except for a command that cannot be fully read while deny rules for its tool apply: that one
 * is asked about); then allow rules and session grants; then reads and searches inside the cwd
 * (or an added folder) run without asking; anything else is asked. Symlinks are resolved before
 * paths are judged, so a link out of the cwd asks. `policy` is read at each decision, so grants
 * recorded during the session apply at once. Returns the decider for calls of a session in `cwd`.
 */
export function permissionDecider(
  cwd: string,
  policy: () => PermissionPolicy | Promise<PermissionPolicy>,
): (subject: PermissionSubject) => Promise<PermissionDecision> {
  let realCwd: Promise<string> | undefined;
  return async ({ tool, input, toolCall }) => {
    realCwd ??= resolveReal(cwd);
    const root = await realCwd;
    const scope: ToolCallScope = tool.scope?.(input, cwd) ?? { title: tool.name, paths: [] };
    const paths = await Promise.all(scope.paths.map((path) => resolveReal(resolve(cwd, path))));
    const subject: RuleSubject = {
      toolName: tool.name,
      paths,
      ...(scope.command === undefined ? {} : { command: scope.command }),
      ...(tool.mcp === undefined ? {} : { mcpServerName: tool.mcp.serverName }),
    };
    const rules = await policy();
    const denial = rules.deny.find((rule) => ruleTouches(rule, subject, root));
    if (denial !== undefined) {
      return { kind: "deny", reason: ruleRefusal(denial) };
    }
    const given = scope.paths.map((path) => resolve(cwd, path));
    const places = await hiddenPlacesJudged(rules, tool, [...given, ...paths], root);
    if (places?.refusal !== undefined) {
      return { kind: "deny", reason: places.refusal };
    }
    const unclear = unclearUnderDenyRules(subject, rules.deny);
    const hidden = eitherHidden(hiddenPaths(rules.deny, tool.name, cwd, root), places?.hidden);
    const allow: PermissionDecision = {
      kind: "allow",
      ...(hidden === undefined ? {} : { hidden }),
    };
    if ((rules.allowAllTools && unclear === undefined) || rulesCover(rules.allow, subject, root)) {
      return allow;
    }
    const folders = await Promise.all(rules.folders.map((folder) => resolveReal(resolve(folder))));
    const roots = [root, ...folders];
    const inside = paths.every((path) => roots.some((each) => isInside(path, each)));
    if ((!tool.mutates && inside) || autoAllows(rules, subject, tool, inside, unclear)) {
      return allow;
    }
    const question = await questionAbout(tool, toolCall, scope, subject, rules, root);
    return {
      kind: "ask",
      question,
      ...(unclear === undefined ? {} : { unclear }),
      ...(hidden === undefined ? {} : { hidden }),
    };
  };
}

/** The question about a call the rules leave to the user (see {@link PermissionQuestion}). */
async function questionAbout(
  tool: AnyTool,
  toolCall: ToolRequest,
  scope: ToolCallScope,
  subject: RuleSubject,
  rules: PermissionPolicy,
  root: string,
): Promise<PermissionQuestion> {
  return {
    toolCallId: toolCall.toolCallId,
    toolName: tool.name,
    kind: tool.kind,
    title: scope.title,
    rawInput: toolCall.arguments,
    paths: [...subject.paths],
    alwaysRule: alwaysRule(tool, subject, root),
    ...(tool.mcp === undefined ? {} : { mcp: tool.mcp }),
    ...(scope.command === undefined ? {} : { command: scope.command }),
    ...prefixChoice(tool, scope.command),
    ...(await notAllowedChoice(rules.allow, subject)),
    ...(scope.command === undefined || rules.confinement === undefined
      ? {}
      : { sandbox: rules.confinement }),
  };
}

/**
 * hidden-places.ts, imported at the first call of a built-in file tool and kept: an `import()` of
 * a loaded module still asks the module loader to resolve its specifier at every call.
 */
let hiddenPlacesModule: Promise<typeof import("./hidden-places.js")> | undefined;

/**
 * What the hidden places (hidden-places.ts, loaded at the first call of a built-in file tool)
 * say about a call on `paths` (absolute, as given and real); undefined when they say nothing.
 */
async function hiddenPlacesJudged(
  rules: PermissionPolicy,
  tool: AnyTool,
  paths: readonly string[],
  root: string,
): Promise<HiddenPlaceJudgement | undefined> {
  if (rules.hiddenPlaces === undefined || tool.mcp !== undefined || paths.length === 0) {
    return undefined;
  }
  hiddenPlacesModule ??= import("./hidden-places.js");
  const { judgeHiddenPlaces } = await hiddenPlacesModule;
  return judgeHiddenPlaces(rules.hiddenPlaces, tool.name, paths, rules.allow, root);
}

/** A path either test hides; undefined when neither is given. */
function eitherHidden(
  first: HiddenPaths | undefined,
  second: HiddenPaths | undefined,
): HiddenPaths | undefined {
  if (first === undefined || second === undefined) {
    return first ?? second;
  }
  return (path) => first(path) || second(path);
}

/**
 * Whether permission mode `auto` lets a call run without asking: a command of a built-in tool
 * (it runs in the sandbox) that deny rules do not need read in full, or an edit whose paths are
 * all inside the workspace (not under `read-only`) and none in what configures later runs
 * ({@link isConfigurationOfLaterRuns}). MCP tools run outside the sandbox and are
 * asked about.
 */
function autoAllows(
  rules: PermissionPolicy,
  subject: RuleSubject,
  tool: AnyTool,
  inside: boolean,
  unclear: string | undefined,
): boolean {
  if (rules.auto !== true || tool.mcp !== undefined) {
    return false;
  }
  if (subject.command !== undefined) {
    return unclear === undefined;
  }
  return (
    inside &&
    subject.paths.length > 0 &&
    !subject.paths.some(isConfigurationOfLaterRuns) &&
    rules.confinement?.policy !== "read-only"
  );
}

/**
 * Whether `path` (absolute) is in a file that configures what later runs may do: a `.git` folder
 * (hooks, `core.hooksPath`, aliases: git runs them later, outside any sandbox), the hooks folder
 * and config files its repository's config names (`core.hooksPath`, e.g. husky's `.husky`;
 * `include.path`: tools/sandbox/configured-places.ts) or one of tools/sandbox/policy.ts
 * `LATER_RUN_CONFIGURATION` (`.turnloop`: the project's config file, permission mode, allow
 * rules, base URL; `.mcp.json`: servers that start outside the sandbox; shell start-up files,
 * git's user config and `.local/bin`: run by the shell or git later; an editor's, npm's, yarn's,
 * direnv's and other agents' project files and `.gitmodules`, which those programs act on later;
 * a file an MCP server of turnloop's config files runs, tools/sandbox/configured-places.ts),
 * wherever it lies: some run of the path's segments spells one (`~/.bashrc`,
 * `/w/.config/git/config`, `.local/bin/git`, `pkg/.vscode/tasks.json`), or one of them in a
 * folder holding the path leads through a symbolic link to where it lands (`/w/cfg/vscode/tasks.json`
 * where `/w/.vscode -> cfg/vscode`, `/w/elsewhere/cfg/git/config` where `/w/.config ->
 * elsewhere/cfg`: tools/sandbox/real-paths.ts `linkedPlaceOf`). Permission mode `auto`
 * asks about an edit to any of them: an edit made without asking must not loosen what later runs
 * may do (the sandbox keeps `.git/hooks`, `.git/config` and that list read-only for commands for
 * the same reason).
 */
export function isConfigurationOfLaterRuns(path: string): boolean {
  return laterRunReasonOf(path) !== undefined;
}

/**
 * Why an edit of `path` (absolute) is one of {@link isConfigurationOfLaterRuns}, as a clause that
 * names the place and who acts on it later (`your editor runs what .vscode names later, …`:
 * tools/sandbox/policy.ts `laterRunReason`); `undefined` when it is none.
 */
export function laterRunReasonOf(path: string): string | undefined {
  const segments = path.split(sep);
  const places = [".git", ...LATER_RUN_CONFIGURATION];
  // Named by the path, or a link to a folder holding it (`.vscode -> cfg/vscode`): the sandbox
  // keeps what such a link leads through read-only too (configuration-chain.ts).
  const place =
    places.find((each) => spells(segments, each.split("/"))) ?? linkedPlaceOf(path, places);
  if (place === ".git") {
    return "git runs the hooks and reads the config in .git later, outside the sandbox";
  }
  if (place !== undefined) {
    return laterRunReason(place, place);
  }
  if (isInConfiguredPlace(path, { home: homedir() })) {
    return "git runs the hooks in the folder the repository's core.hooksPath names, and reads the config files it includes, later, outside the sandbox";
  }
  return isServerProgram(path, userTurnloopHome())
    ? laterRunReason(path, basename(path))
    : undefined;
}

/**
 * `TURNLOOP_HOME` as session/paths.ts `turnloopHome` reads it from this process's environment,
 * where the user's `mcp.json` and `config.json` name MCP servers too.
 */
function userTurnloopHome(): string {
  const configured = process.env.TURNLOOP_HOME;
  return configured !== undefined && configured !== ""
    ? resolve(configured)
    : join(homedir(), ".turnloop");
}

/** Whether `place` (segments) occurs as consecutive segments of `segments`. */
function spells(segments: readonly string[], place: readonly string[]): boolean {
  return segments.some((_, start) =>
    place.every((segment, index) => segments[start + index] === segment),
  );
}

/**
 * Why a command must be asked about even under `--allow-all-tools`: it cannot be fully
 * understood (computed names, `eval`, `bash -c "$x"` …) while deny rules with patterns for its
 * tool are in force, so running it could run what they deny. Undefined when nothing stands in
 * the way.
 */
function unclearUnderDenyRules(
  subject: RuleSubject,
  deny: readonly PermissionRule[],
): string | undefined {
  if (subject.command === undefined) {
    return undefined;
  }
  const rules = deny.filter((rule) => rule.tool === subject.toolName && rule.pattern !== undefined);
  if (rules.length === 0) {
    return undefined;
  }
  const unclear = unclearParts(subject.command);
  if (unclear.length === 0) {
    return undefined;
  }
  const rulesText = rules.map((rule) => rule.text).join(", ");
  return `the command cannot be fully read (${unclear.join("; ")}) and ${rulesText} must hold`;
}

/** The prefix "always" choice for a command tool's call (command-prefix.ts). */
function prefixChoice(
  tool: AnyTool,
  command: string | undefined,
): Pick<PermissionRequest, "prefix"> {
  const prefix =
    tool.mcp === undefined && command !== undefined ? commandPrefix(command) : undefined;
  return prefix === undefined
    ? {}
    : { prefix: { rule: `${tool.name}(${prefix.pattern})`, notCovered: prefix.notCovered } };
}

/**
 * The narrowest rule for "always": this exact command, or these exact paths, or the tool (an MCP
 * tool: `mcp(<name>)`); its pattern characters escaped (`bash(rm -f \*.o)`,
 * `edit(src/a\[1\].ts)`), so it matches that call alone (trial finding 14).
 */
function alwaysRule(tool: AnyTool, subject: RuleSubject, cwd: string): string {
  const toolName = tool.name;
  if (tool.mcp !== undefined) {
    return `${MCP_RULE}(${exactCommandPattern(toolName)})`;
  }
  if (subject.command !== undefined) {
    return `${toolName}(${exactCommandPattern(subject.command.trim())})`;
  }
  if (subject.paths.length === 1 && subject.paths[0] !== undefined) {
    const path = subject.paths[0];
    return `${toolName}(${exactPathPattern(isInside(path, cwd) ? relativeGlob(path, cwd) : path)})`;
  }
  return toolName;
}

function relativeGlob(path: string, cwd: string): string {
  return path === cwd ? "." : path.slice(cwd.length + 1);
}

/** The real path of `path`, or of its nearest existing parent joined with the rest. */
async function resolveReal(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(await resolveReal(parent), basename(path));
  }
}

/**
 * {@link PermissionQuestion.notAllowed}, when the allow rules leave some parts of a command; the
 * reader of parts is loaded only for a command its tool has allow rules with a pattern for.
 */
async function notAllowedChoice(
  allow: readonly PermissionRule[],
  subject: RuleSubject,
): Promise<{ notAllowed?: UncoveredPart[] }> {
  const patterned = allow.some(
    (rule) => rule.tool === subject.toolName && rule.pattern !== undefined,
  );
  if (!patterned || subject.command === undefined) {
    return {};
  }
  const { uncoveredParts } = await import("./uncovered-parts.js");
  const parts = uncoveredParts(allow, subject);
  return parts === undefined ? {} : { notAllowed: parts };
}
