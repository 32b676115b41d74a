import { realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, join, resolve, sep } from "node:path";
import type { JsonObject, PermissionScope, ToolRequest } from "../events/events.js";
import type { AnyTool, McpToolOrigin, ToolCallScope, ToolKind } from "../tools/define-tool.js";
import { isInConfiguredPlace } from "../tools/sandbox/configured-places.js";
import { LATER_RUN_CONFIGURATION, laterRunReason } from "../tools/sandbox/policy.js";
import { linkedPlaceOf } from "../tools/sandbox/real-paths.js";
import { commandPrefix } from "./command-prefix.js";
import {
  type CommandConfinement,
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
import type { UncoveredPart } from "./uncovered-parts.js";

export {
  type CommandConfinement,
  describeConfinement,
  isPermissionMode,
  PERMISSION_MODES,
  type PermissionMode,
  shownConfinement,
} from "./permission-mode.js";

/** A question to the user about one tool call. Answered by a {@link PermissionReply}. */
export interface PermissionRequest {
  requestId: string;
  toolCallId: string;
  toolName: string;
  kind: ToolKind;
  title: string;
  /** The call's arguments as the model sent them. */
  rawInput: JsonObject;
  /** Absolute paths the call touches (ACP `locations`). */
  paths: string[];
  command?: string;
  /** The rule an "always" answer records, e.g. `bash(git status)`, `edit(src/a.ts)`, `mcp(github__create_issue)`. */
  alwaysRule: string;
  /**
   * For a command: the wider "always" choice, this command's prefix (command-prefix.ts), e.g.
   * `bash(npx tape *)`, with the parts of the command it does not cover (`tail -5`), which still
   * ask. Absent when no prefix may be offered.
   */
  prefix?: { rule: string; notCovered: string[] };
  /**
   * For a command the allow rules cover in part: the parts they leave, each with why and the rule
   * that would cover it, if any (`rm a01` of `git status && rm a01`, `> out` of `echo x > out`;
   * uncovered-parts.ts).
   */
  notAllowed?: UncoveredPart[];
  /** Set for a tool of an MCP server. */
  mcp?: McpToolOrigin;
  /** Where the call's command would run; set for commands (see {@link CommandConfinement}). */
  sandbox?: CommandConfinement;
}

/** A {@link PermissionRequest} before it is given its id (the gate names each question it asks). */
export type PermissionQuestion = Omit<PermissionRequest, "requestId">;

/**
 * The user's answer. `scope: "session"` ("always") records {@link PermissionRequest.alwaysRule}
 * for the rest of the session, resume included; an allow may name `rule` instead, which the gate
 * records only when it is the request's {@link PermissionRequest.prefix} rule. ACP v1 `session/request_permission` options
 * map as allow_once / allow_always / reject_once / reject_always.
 */
export type PermissionReply =
  | {
      decision: "allow" | "deny";
      scope: PermissionScope;
      /** With `scope: "session"`: the offered rule the answer chose (see above). */
      rule?: string;
      reason?: string;
      /** A deny by the user (not "nobody could be asked"): the tool result's code is `rejected`. */
      rejected?: boolean;
      /** The tool result the model gets for a deny, when the face has its own wording. */
      content?: string;
    }
  | { decision: "cancelled" };

/** Asks the face's user. Must settle when `signal` aborts (case 04). */
export type AskPermission = (
  request: PermissionRequest,
  signal: AbortSignal,
) => Promise<PermissionReply>;

/** The session's standing rules: from flags, and "always" answers folded from the log. */
export interface PermissionPolicy {
  /** `--allow-all-tools`: everything runs without asking (deny rules still apply). */
  allowAllTools: boolean;
  /**
   * Permission mode `auto` with a working sandbox: commands run without asking (they are
   * confined), and so do edits of files inside the cwd and the folders. Default `false`.
   */
  auto?: boolean;
  /** Where commands run, shown in questions about them; absent: not said. */
  confinement?: CommandConfinement;
  /**
   * `--allow-tool` and config files' rules, then session grants; each path pattern absolute, read
   * against the folder of where it was written (session/agent-settings.ts `anchoredRules`).
   */
  allow: readonly PermissionRule[];
  /** `--deny-tool` rules, then session denials. Deny wins over allow. */
  deny: readonly PermissionRule[];
  /** Folders besides the cwd whose files may be read without asking. */
  folders: readonly string[];
}

/**
 * What the rules say about one call: it runs, it is refused (`reason` names the deny rule), or
 * the user must be asked `question`; `unclear` then says why a command is asked about even under
 * `--allow-all-tools` (it cannot be fully read while deny rules for its tool apply). A call that
 * may run (at once or once the user agrees) carries the files it must not show, `hidden`.
 */
export type PermissionDecision =
  | { kind: "allow"; hidden?: HiddenPaths }
  | { kind: "deny"; reason: string }
  | { kind: "ask"; question: PermissionQuestion; unclear?: string; hidden?: HiddenPaths };

/**
 * Which files an allowed call that searches or lists a folder must leave out of its result:
 * those the path deny rules for reading cover (permission-rules.ts `hiddenPaths`). Takes an
 * absolute path.
 */
export type HiddenPaths = (path: string) => boolean;

/** One tool call as the rules see it: the tool, its validated input and the model's request. */
export interface PermissionSubject {
  tool: AnyTool;
  input: unknown;
  toolCall: ToolRequest;
}

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
    const unclear = unclearUnderDenyRules(subject, rules.deny);
    const hidden = hiddenPaths(rules.deny, tool.name, cwd, root);
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
    const question: PermissionQuestion = {
      toolCallId: toolCall.toolCallId,
      toolName: tool.name,
      kind: tool.kind,
      title: scope.title,
      rawInput: toolCall.arguments,
      paths,
      alwaysRule: alwaysRule(tool, subject, root),
      ...(tool.mcp === undefined ? {} : { mcp: tool.mcp }),
      ...(scope.command === undefined ? {} : { command: scope.command }),
      ...prefixChoice(tool, scope.command),
      ...(await notAllowedChoice(rules.allow, subject)),
      ...(scope.command === undefined || rules.confinement === undefined
        ? {}
        : { sandbox: rules.confinement }),
    };
    return {
      kind: "ask",
      question,
      ...(unclear === undefined ? {} : { unclear }),
      ...(hidden === undefined ? {} : { hidden }),
    };
  };
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
 * direnv's and other agents' project files and `.gitmodules`, which those programs act on later),
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
  return isInConfiguredPlace(path, { home: homedir() })
    ? "git runs the hooks in the folder the repository's core.hooksPath names, and reads the config files it includes, later, outside the sandbox"
    : undefined;
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
