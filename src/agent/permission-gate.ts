import { randomUUID } from "node:crypto";
import { realpath } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import type { EventInput, JsonObject, PermissionScope } from "../events/events.js";
import type { McpToolOrigin, ToolCallScope, ToolKind } from "../tools/define-tool.js";
import {
  isInside,
  MCP_RULE,
  type PermissionRule,
  parseRule,
  type RuleSubject,
  rulesCover,
  ruleTouches,
  unclearParts,
} from "./permission-rules.js";
import type { Authorize, PermissionAnswer } from "./tool-calls.js";

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
  /** Set for a tool of an MCP server. */
  mcp?: McpToolOrigin;
}

/**
 * The user's answer. `scope: "session"` ("always") records {@link PermissionRequest.alwaysRule}
 * for the rest of the session, resume included. ACP v1 `session/request_permission` options
 * map as allow_once / allow_always / reject_once / reject_always.
 */
export type PermissionReply =
  | {
      decision: "allow" | "deny";
      scope: PermissionScope;
      reason?: string;
      /** A deny by the user (not "nobody could be asked"); see {@link PermissionAnswer}. */
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
  /** `--allow-tool` rules, then session grants. */
  allow: readonly PermissionRule[];
  /** `--deny-tool` rules, then session denials. Deny wins over allow. */
  deny: readonly PermissionRule[];
  /** Folders besides the cwd whose files may be read without asking. */
  folders: readonly string[];
}

export interface PermissionGateOptions {
  cwd: string;
  /** Read at each decision, so grants recorded during the session apply at once. */
  policy: () => PermissionPolicy;
  /** The face's way to ask; absent means nobody can be asked (e.g. `-p` without a terminal). */
  ask?: AskPermission;
  /** Said to the model when a call needs asking and nobody can be asked. */
  noAskReason?: string;
  /** Records `permission.requested` / `permission.completed`. */
  emit: (event: EventInput) => void;
}

/** Parses `--allow-tool` / `--deny-tool` values. @throws Error naming the bad rule. */
export function parseRules(texts: readonly string[]): PermissionRule[] {
  return texts.map(parseRule);
}

/**
 * The permission gate (DESIGN.md, tools): deny rules first; then `--allow-all-tools` (except
 * for a command that cannot be fully read while deny rules for its tool apply: that one is
 * asked about); then allow rules and session grants; then reads and searches inside the cwd (or an added folder) run
 * without asking; anything else is asked through the face, and every question and answer is
 * logged. Symlinks are resolved before paths are judged, so a link out of the cwd asks.
 */
export function createPermissionGate(options: PermissionGateOptions): Authorize {
  let realCwd: Promise<string> | undefined;
  return async ({ tool, input, toolCall, signal, start }): Promise<PermissionAnswer> => {
    start(toolCall.arguments);
    realCwd ??= resolveReal(options.cwd);
    const cwd = await realCwd;
    const scope: ToolCallScope = tool.scope?.(input, options.cwd) ?? {
      title: tool.name,
      paths: [],
    };
    const paths = await Promise.all(
      scope.paths.map((path) => resolveReal(resolve(options.cwd, path))),
    );
    const subject: RuleSubject = {
      toolName: tool.name,
      paths,
      ...(scope.command === undefined ? {} : { command: scope.command }),
      ...(tool.mcp === undefined ? {} : { mcpServerName: tool.mcp.serverName }),
    };
    const policy = options.policy();
    const denial = policy.deny.find((rule) => ruleTouches(rule, subject, cwd));
    if (denial !== undefined) {
      return { allowed: false, reason: `the rule ${denial.text} denies it` };
    }
    const allowed: PermissionAnswer = { allowed: true, input, arguments: toolCall.arguments };
    const unclear = unclearUnderDenyRules(subject, policy.deny);
    if ((policy.allowAllTools && unclear === undefined) || rulesCover(policy.allow, subject, cwd)) {
      return allowed;
    }
    const folders = await Promise.all(policy.folders.map((folder) => resolveReal(resolve(folder))));
    const roots = [cwd, ...folders];
    const insideRoots = paths.every((path) => roots.some((root) => isInside(path, root)));
    if (!tool.mutates && insideRoots) {
      return allowed;
    }
    if (options.ask === undefined) {
      const noAsk = options.noAskReason ?? "nobody could be asked for permission";
      return {
        allowed: false,
        reason: unclear === undefined ? noAsk : `${unclear}, so it needs asking; ${noAsk}`,
      };
    }
    const request: PermissionRequest = {
      requestId: randomUUID(),
      toolCallId: toolCall.toolCallId,
      toolName: tool.name,
      kind: tool.kind,
      title: scope.title,
      rawInput: toolCall.arguments,
      paths,
      alwaysRule:
        tool.mcp === undefined ? alwaysRule(tool.name, subject, cwd) : `${MCP_RULE}(${tool.name})`,
      ...(tool.mcp === undefined ? {} : { mcp: tool.mcp }),
      ...(scope.command === undefined ? {} : { command: scope.command }),
    };
    return askAndRecord(options, request, signal, allowed);
  };
}

/** Asks the face, records question and answer, and answers `allowed` when the user said yes. */
async function askAndRecord(
  options: PermissionGateOptions,
  request: PermissionRequest,
  signal: AbortSignal,
  allowed: PermissionAnswer,
): Promise<PermissionAnswer> {
  const { requestId, toolCallId, toolName, title } = request;
  // Copilot's permission kinds name MCP calls `mcp`; other tools keep their ACP tool kind.
  const kind = request.mcp === undefined ? request.kind : MCP_RULE;
  options.emit({
    type: "permission.requested",
    data: { requestId, toolCallId, toolName, kind, title },
  });
  let reply: PermissionReply;
  if (signal.aborted) {
    reply = { decision: "cancelled" };
  } else {
    reply = await raceAbort(options.ask?.(request, signal), signal).catch(
      (): PermissionReply => ({
        decision: "deny",
        scope: "once",
        reason: "the permission request failed",
      }),
    );
  }
  if (reply.decision === "cancelled") {
    options.emit({
      type: "permission.completed",
      data: { requestId, toolCallId, decision: "cancelled", scope: "once" },
    });
    return { allowed: false, reason: "the request was cancelled" };
  }
  const decision = reply.decision === "allow" ? "allowed" : "denied";
  options.emit({
    type: "permission.completed",
    data: {
      requestId,
      toolCallId,
      decision,
      scope: reply.scope,
      ...(reply.scope === "session" ? { rule: request.alwaysRule } : {}),
      ...(reply.reason === undefined ? {} : { reason: reply.reason }),
    },
  });
  if (reply.decision === "allow") {
    return allowed;
  }
  return {
    allowed: false,
    reason: reply.reason ?? "the user said no",
    ...(reply.rejected === true ? { rejected: true } : {}),
    ...(reply.content === undefined ? {} : { content: reply.content }),
  };
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

/** Settles with `cancelled` as soon as `signal` aborts, even if the face never answers. */
function raceAbort(
  answer: Promise<PermissionReply> | undefined,
  signal: AbortSignal,
): Promise<PermissionReply> {
  return new Promise((resolvePromise, reject) => {
    const onAbort = () => resolvePromise({ decision: "cancelled" });
    signal.addEventListener("abort", onAbort, { once: true });
    (answer ?? Promise.resolve<PermissionReply>({ decision: "cancelled" })).then(
      (reply) => {
        signal.removeEventListener("abort", onAbort);
        resolvePromise(reply);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** The narrowest rule for "always": this exact command, or these exact paths, or the tool. */
function alwaysRule(toolName: string, subject: RuleSubject, cwd: string): string {
  if (subject.command !== undefined) {
    return `${toolName}(${subject.command.trim()})`;
  }
  if (subject.paths.length === 1 && subject.paths[0] !== undefined) {
    const path = subject.paths[0];
    return `${toolName}(${isInside(path, cwd) ? relativeGlob(path, cwd) : path})`;
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
