import { realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { ToolRequest } from "../events/events.js";
import type { AnyTool, ToolCallScope } from "../tools/define-tool.js";
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
  serverToolPattern,
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
  offersAlwaysAnswers,
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
 * recorded during the session apply at once. `asks`: whether the face can ask anyone (false: a
 * question carries no prefix choice, {@link questionAbout}). Returns the decider for calls of a
 * session in `cwd`.
 */
export function permissionDecider(
  cwd: string,
  policy: () => PermissionPolicy | Promise<PermissionPolicy>,
  { asks = true }: { asks?: boolean } = {},
): (subject: PermissionSubject) => Promise<PermissionDecision> {
  let realCwd: string | undefined;
  return async ({ tool, input, toolCall }) => {
    realCwd ??= resolveReal(cwd);
    const root = realCwd;
    const scope: ToolCallScope = tool.scope?.(input, cwd) ?? { title: tool.name, paths: [] };
    const paths = scope.paths.map((path) => resolveReal(resolve(cwd, path)));
    const subject: RuleSubject = {
      // An MCP tool is judged by its usual name, never by one it was offered under for a while.
      toolName: tool.mcp?.qualifiedName ?? tool.name,
      paths,
      ...(scope.command === undefined ? {} : { command: scope.command }),
      ...(tool.mcp === undefined
        ? {}
        : { mcpServerName: tool.mcp.serverName, mcpToolName: tool.mcp.toolName }),
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
    const folders = rules.folders.map((folder) => resolveReal(resolve(folder)));
    const roots = [root, ...folders];
    const inside = paths.every((path) => roots.some((each) => isInside(path, each)));
    if (!tool.mutates && inside) {
      return allow;
    }
    const laterRun = await laterRunOf(rules, subject, tool);
    if (autoAllows(rules, subject, tool, inside, unclear, laterRun)) {
      return allow;
    }
    const question = await questionAbout({ tool, toolCall, scope, subject, rules, root, asks });
    return {
      kind: "ask",
      question,
      ...(unclear === undefined ? {} : { unclear }),
      ...(hidden === undefined ? {} : { hidden }),
      ...(laterRun === undefined ? {} : { laterRun }),
    };
  };
}

/**
 * The question about a call the rules leave to the user (see {@link PermissionQuestion}); without
 * the prefix choice when nobody can be asked (`asks` false): finding a command's prefix loads the
 * shell parser (mvdan-sh, 1.5 MB: half a second and more under `-p` with no terminal, trial 45),
 * and a refusal that asks nobody offers no choice.
 */
async function questionAbout({
  tool,
  toolCall,
  scope,
  subject,
  rules,
  root,
  asks,
}: {
  tool: AnyTool;
  toolCall: ToolRequest;
  scope: ToolCallScope;
  subject: RuleSubject;
  rules: PermissionPolicy;
  root: string;
  asks: boolean;
}): Promise<PermissionQuestion> {
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
    ...(asks ? prefixChoice(tool, scope.command) : {}),
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
 * (`laterRun`, {@link laterRunOf}). MCP tools run outside the sandbox and are asked about.
 */
function autoAllows(
  rules: PermissionPolicy,
  subject: RuleSubject,
  tool: AnyTool,
  inside: boolean,
  unclear: string | undefined,
  laterRun: string | undefined,
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
    laterRun === undefined &&
    rules.confinement?.policy !== "read-only"
  );
}

/**
 * Under permission mode `auto` (not `read-only`), why an edit by a built-in tool of
 * `subject.paths` changes what configures later runs (later-runs.ts, loaded at the first such
 * edit and kept); `undefined` when it does not, or when the mode does not judge edits so.
 */
async function laterRunOf(
  rules: PermissionPolicy,
  subject: RuleSubject,
  tool: AnyTool,
): Promise<string | undefined> {
  if (
    rules.auto !== true ||
    tool.mcp !== undefined ||
    subject.command !== undefined ||
    rules.confinement?.policy === "read-only"
  ) {
    return undefined;
  }
  laterRunsModule ??= import("./later-runs.js");
  const { laterRunOfPaths } = await laterRunsModule;
  return laterRunOfPaths(subject.paths, rules);
}

/** later-runs.ts, once imported: start-up does not need it (as {@link hiddenPlacesModule}). */
let laterRunsModule: Promise<typeof import("./later-runs.js")> | undefined;

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
 * tool: `mcp("<server>":"<tool>")`, bound to that server's tool, never to a name another server's
 * tool may be offered under: trial 42 finding 13); its pattern characters escaped
 * (`bash(rm -f \*.o)`, `edit(src/a\[1\].ts)`), so it matches that call alone (trial finding 14).
 */
function alwaysRule(tool: AnyTool, subject: RuleSubject, cwd: string): string {
  const toolName = tool.name;
  if (tool.mcp !== undefined) {
    return `${MCP_RULE}(${serverToolPattern(tool.mcp.serverName, tool.mcp.toolName)})`;
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

/**
 * The real path of `path`, or of its nearest existing parent joined with the rest. Read on the
 * calling thread (`realpathSync.native`, the same `realpath(3)` as `fs/promises`' `realpath`), as
 * the hidden places are (hidden-places.ts): a thread-pool round trip cost the main thread about
 * three times the call, at every tool call (bench/notes/turn34.md, perf36.md).
 */
function resolveReal(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(resolveReal(parent), basename(path));
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
