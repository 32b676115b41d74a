import { errorMessage, whenAborted } from "../events/errors.js";
import type { EventInput, JsonObject, ToolRequest } from "../events/events.js";
import { randomUUID } from "../events/random-id.js";
import type { AnyTool, ToolCheck } from "../tools/define-tool.js";
import {
  type AskPermission,
  type CommandConfinement,
  type PermissionDecision,
  type PermissionPolicy,
  type PermissionQuestion,
  type PermissionReply,
  type PermissionRequest,
  permissionDecider,
} from "./permission-decision.js";
import { outsideConfinement } from "./permission-mode.js";
import { MCP_RULE } from "./permission-rules.js";

/**
 * The gate's answer for one tool call. An allowed call runs with `input` and is logged with
 * `arguments` (its JSON): the request's own, or what a hook rewrote them to (SDK `preToolUse`
 * `modifiedArgs`), so `tool.execution_start` shows what ran. A refusal may be `rejected` (the
 * user said no, rather than a rule, a hook or nobody to ask) and carry the face's own `content`
 * for the model; a call `failed` before the question (its tool's check refused it: `reason` is the
 * tool's error result) was not asked about. `hidden` names the files an allowed search must leave out of its result
 * (tools/define-tool.ts `ToolContext.hidden`).
 */
export type PermissionAnswer =
  | { allowed: true; input: unknown; arguments: JsonObject; hidden?: (path: string) => boolean }
  | { allowed: false; reason: string; rejected?: boolean; content?: string; failed?: boolean };

/**
 * Asks whether a validated call may run (the permission gate). `start` records
 * `tool.execution_start` with the arguments that would run; an authorizer that asks anyone calls
 * it first, so the start precedes `permission.requested` (the Copilot CLI's order). Calls after
 * the first are ignored, and the loop calls it itself when the authorizer did not.
 */
export type Authorize = (request: {
  tool: AnyTool;
  input: unknown;
  toolCall: ToolRequest;
  signal: AbortSignal;
  start: (toolArguments: JsonObject) => void;
  /**
   * The tool's check of the call (tools/define-tool.ts `Tool.check`), run only when the user is
   * about to be asked, after the rules (a path they deny is never read), with the input that would
   * run (a hook may have rewritten it): a refused call fails
   * without a question; a ready one's change is shown in it.
   */
  check?: (input: unknown, hidden: ((path: string) => boolean) | undefined) => Promise<ToolCheck>;
}) => Promise<PermissionAnswer>;

export interface PermissionGateOptions {
  cwd: string;
  /** Read at each decision, so grants recorded during the session apply at once. */
  policy: () => PermissionPolicy | Promise<PermissionPolicy>;
  /** The face's way to ask; absent means nobody can be asked (e.g. `-p` without a terminal). */
  ask?: AskPermission;
  /**
   * Said to the model (and on a face's tool line) when a call needs asking and nobody can be
   * asked: a fixed text, or one made for the call (the way to allow it that fits the case).
   */
  noAskReason?: string | ((situation: NoAskSituation) => string);
  /** Records `permission.requested` / `permission.completed`. */
  emit: (event: EventInput) => void;
}

/** A call that needs asking when nobody can be asked, for a face to say why it was refused. */
export interface NoAskSituation {
  question: PermissionQuestion;
  /** Why a command is asked about even under `--allow-all-tools` (permission-decision.ts). */
  unclear?: string;
  /** Whether permission mode `auto` is in force (it is not where no sandbox can run). */
  auto: boolean;
  /** Where commands run (the sandbox policy in force). */
  confinement?: CommandConfinement;
  /** Why `auto` asks about an edit of what configures later runs ({@link PermissionDecision}). */
  laterRun?: string;
}

/**
 * The permission gate: the rules of src/permissions/permission-decision.ts decide; a call they
 * do not settle is asked through the face, and every question and answer is logged. Records
 * `tool.execution_start` before anything is asked (the Copilot CLI's order).
 */
export function createPermissionGate(options: PermissionGateOptions): Authorize {
  const decide = permissionDecider(options.cwd, options.policy, {
    asks: options.ask !== undefined,
  });
  return async ({ tool, input, toolCall, signal, start, check }): Promise<PermissionAnswer> => {
    start(toolCall.arguments);
    const decision = await decide({ tool, input, toolCall });
    const { hidden } = decision.kind === "deny" ? {} : decision;
    const allowed: PermissionAnswer = {
      allowed: true,
      input,
      arguments: toolCall.arguments,
      ...(hidden === undefined ? {} : { hidden }),
    };
    switch (decision.kind) {
      case "allow":
        return allowed;
      case "deny":
        return { allowed: false, reason: decision.reason };
      case "ask": {
        if (options.ask === undefined) {
          const noAsk = await noAskReason(options, decision);
          const { unclear } = decision;
          return {
            allowed: false,
            reason: unclear === undefined ? noAsk : `${unclear}, so it needs asking; ${noAsk}`,
          };
        }
        const checked = (await check?.(input, hidden)) ?? { kind: "ready" };
        if (checked.kind === "refused") {
          return { allowed: false, failed: true, reason: checked.result.content };
        }
        const request: PermissionRequest = {
          requestId: randomUUID(),
          ...decision.question,
          ...(checked.change === undefined ? {} : { change: checked.change }),
        };
        return askAndRecord(options, request, signal, allowed);
      }
      default: {
        const unhandled: never = decision;
        return unhandled;
      }
    }
  };
}

/** {@link PermissionGateOptions.noAskReason} for `decision`. */
async function noAskReason(
  options: PermissionGateOptions,
  decision: Extract<PermissionDecision, { kind: "ask" }>,
): Promise<string> {
  const reason = options.noAskReason ?? "nobody could be asked for permission";
  if (typeof reason === "string") {
    return reason;
  }
  const { auto, confinement } = await options.policy();
  return reason({
    question: decision.question,
    auto: auto === true,
    ...(decision.unclear === undefined ? {} : { unclear: decision.unclear }),
    ...(confinement === undefined ? {} : { confinement }),
    ...(decision.laterRun === undefined ? {} : { laterRun: decision.laterRun }),
  });
}

/** A command the sandbox stopped, and why: what {@link createSandboxExitAsker} asks about. */
export interface SandboxExitRequest {
  toolCallId: string;
  command: string;
  /** Why the sandbox stopped it, e.g. `it has no network (Could not resolve host)`. */
  reason: string;
  signal: AbortSignal;
}

/**
 * Asks, through the face and with question and answer logged like every other, whether a command
 * the sandbox stopped may run again outside it (issue 23). Resolves `allowed` only when the user
 * agreed; else with the reason: the face's {@link PermissionGateOptions.noAskReason} when nobody
 * can be asked (for `-p`, what would allow the command), the user's no, or the cancel. An
 * "always" answer counts once: it must not stand for later commands.
 */
export function createSandboxExitAsker(
  options: PermissionGateOptions,
): (
  request: SandboxExitRequest,
) => Promise<{ allowed: true } | { allowed: false; reason: string }> {
  return async ({ toolCallId, command, reason, signal }) => {
    const request: PermissionRequest = {
      requestId: randomUUID(),
      toolCallId,
      toolName: "bash",
      kind: "execute",
      title: `Run outside the sandbox: ${command}`,
      rawInput: { command },
      paths: [options.cwd],
      command,
      alwaysRule: `bash(${command.trim()})`,
      sandbox: outsideConfinement(reason),
    };
    const ask = options.ask;
    if (ask === undefined) {
      return {
        allowed: false,
        reason: await noAskReason(options, { kind: "ask", question: request }),
      };
    }
    const once: AskPermission = async (question, abort) => {
      const reply = await ask(question, abort);
      return reply.decision === "cancelled" ? reply : { ...reply, scope: "once" };
    };
    const answer = await askAndRecord({ ...options, ask: once }, request, signal, {
      allowed: true,
      input: { command },
      arguments: { command },
    });
    return answer.allowed ? { allowed: true } : { allowed: false, reason: answer.reason };
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
  const outside = request.sandbox?.outsideReason;
  options.emit({
    type: "permission.requested",
    data: {
      ...{ requestId, toolCallId, toolName, kind, title },
      ...(outside === undefined ? {} : { outsideSandbox: outside }),
    },
  });
  let reply: PermissionReply;
  if (signal.aborted) {
    reply = { decision: "cancelled" };
  } else {
    // The failure's own words (an ACP client's answer over the size limit says its size).
    reply = await raceAbort(options.ask?.(request, signal), signal).catch(
      (error: unknown): PermissionReply => ({
        decision: "deny",
        scope: "once",
        reason: `the permission request failed: ${errorMessage(error)}`,
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
      ...(reply.scope === "session" ? { rule: grantedRule(request, reply) } : {}),
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
 * The rule a "for the session" answer records: the request's prefix rule when the answer allows
 * and names it, else its exact `alwaysRule` (a face cannot grant a rule it was not offered).
 */
function grantedRule(request: PermissionRequest, reply: PermissionReply): string {
  return reply.decision === "allow" &&
    reply.rule !== undefined &&
    reply.rule === request.prefix?.rule
    ? reply.rule
    : request.alwaysRule;
}

/** Settles with `cancelled` as soon as `signal` aborts, even if the face never answers. */
function raceAbort(
  answer: Promise<PermissionReply> | undefined,
  signal: AbortSignal,
): Promise<PermissionReply> {
  return new Promise((resolvePromise, reject) => {
    const stop = whenAborted(signal, () => resolvePromise({ decision: "cancelled" }));
    (answer ?? Promise.resolve<PermissionReply>({ decision: "cancelled" })).then(
      (reply) => {
        stop();
        resolvePromise(reply);
      },
      (error: unknown) => {
        stop();
        reject(error);
      },
    );
  });
}
