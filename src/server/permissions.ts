/**
 * Permissions through the app (Copilot protocol v3, broadcast-event pattern): the permission
 * gate records `permission.requested`; the app answers with
 * `session.permissions.handlePendingPermissionRequest {requestId, result: {kind}}`; the gate then
 * records `permission.completed`. On the wire, `permission.requested` also carries a Copilot
 * `permissionRequest` object, so a Copilot SDK app's `onPermissionRequest` gets what it expects.
 */

import { whenAborted } from "../events/errors.js";
import type { SessionEvent, SessionEventOf } from "../events/events.js";
import type { AskPermission, PermissionReply } from "../permissions/permission-decision.js";
import type { Authorize, NoAskSituation } from "../permissions/permission-gate.js";
import {
  type CommandConfinement,
  outsideConfinement,
  type PermissionMode,
} from "../permissions/permission-mode.js";
import type { SessionMode, WirePermissionRequest } from "../protocol/copilot.js";
import type { PermissionCallbacks } from "../session/agent-settings.js";
import type { RunConfig } from "../session/run-config.js";
import { type LimitSettings, liftingSetting, sandboxLimit } from "../session/sandbox-limit.js";
import { type HostSandbox, permissionModeOf } from "../session/sandbox-setup.js";
import type { AnyTool } from "../tools/define-tool.js";
import type { SandboxPolicy } from "../tools/sandbox/policy.js";
import type { Gates, HookRunner } from "./hooks.js";
import { type CallDetails, wirePermissionRequest } from "./permission-request.js";
import { behindPreToolUse } from "./pre-tool-hook.js";
import { sessionConfinement } from "./session-sandbox.js";
import type { SessionConfig } from "./session-settings.js";

/** Said to the model when a call needs approval and the app has no permission handler. */
const NO_HANDLER_REASON =
  "it needs approval and the app registered no permission handler (onPermissionRequest)";

/**
 * The SDK face's equivalents of `-p`'s `--sandbox-network`, `--sandbox workspace-write`,
 * `--add-dir` and `--sandbox danger-full-access`: the session config's `sandbox`
 * (session-sandbox.ts), else the server's own flags (its run config).
 */
const LIMIT_SETTINGS: LimitSettings = {
  network: "start the server with --sandbox-network",
  "unix-socket": "start the server with sandbox.allowUnixSockets: true in its config file",
  "read-only": 'create or resume the session with sandbox: "workspace-write"',
  "outside-workspace": "start the server with --add-dir <folder>",
  protected: 'create or resume the session with sandbox: "danger-full-access"',
  folders: "the server's --add-dir",
};

/**
 * Why a call that needs approval was refused without a handler. For a command the sandbox
 * stopped, whose run outside it nobody could approve, with the setting that lets the sandbox
 * allow what it hit (permissions/permission-mode.ts, as `-p` says it with its flags). Given to the
 * session's gates and to its sandbox's question about running a command outside it.
 */
function noHandlerReason(situation: NoAskSituation): string {
  const stopped = situation.question.sandbox?.outsideReason;
  if (stopped === undefined) {
    return NO_HANDLER_REASON;
  }
  const limit = sandboxLimit(stopped, situation.confinement?.policy);
  const setting = liftingSetting(limit, LIMIT_SETTINGS);
  return `nobody could be asked (the app registered no handler of requests to leave the sandbox, onSandboxBypassRequest); ${setting}, or register one to be asked`;
}

/**
 * The session's sandbox callbacks for the host's agent settings: the app's `sandbox` policy, and
 * for a command the sandbox stopped, `ask` or why it is not run outside ({@link noHandlerReason}).
 * Only an app that registered a handler of such questions (`requestSandboxBypass`, the SDK's
 * `onSandboxBypassRequest`) is asked: leaving the sandbox is a decision per command, as the
 * terminal and ACP ask it (no "always"), which an `onPermissionRequest` that approves everything
 * (`approveAll`) or `allowAllTools` must not take by the way.
 */
export function sandboxCallbacks(
  config: SessionConfig,
  ask: AskPermission,
  permissionMode: PermissionMode,
): Pick<PermissionCallbacks, "sandboxPolicy" | "noAskReason" | "ask" | "permissionMode"> {
  return {
    permissionMode: () => permissionMode,
    ...(config.sandbox === undefined ? {} : { sandboxPolicy: config.sandbox }),
    ...(config.requestSandboxBypass === true ? { ask } : { noAskReason: noHandlerReason }),
  };
}

/**
 * The permission mode of an SDK session's prompt in session mode `mode` (README, "Permission
 * modes"): in `autopilot`, `auto` (commands run in the sandbox without asking; `full-access` when
 * the server runs so), as `--autopilot` and ACP's mode `autopilot` have it; in the other modes
 * (`interactive`, `plan`, `shell`), the server's (`--permission-mode`, config; default `ask`).
 */
export function permissionModeFor(
  mode: SessionMode,
  config: Pick<RunConfig, "permissionMode">,
): PermissionMode {
  return mode === "autopilot" ? permissionModeOf("autopilot", config) : config.permissionMode.value;
}

/** What the gates of one session are built from: the app's choices and callbacks. */
export interface GateSettings {
  /** A gate of the session under the run config (the host's `permissionGate`). */
  gateOf: (callbacks: PermissionCallbacks) => Authorize;
  /** The app's `allowAllTools` (`session.create`); absent: the run config's. */
  allowAllTools?: boolean;
  /** The app's handler; absent: calls that need approval are denied (the default policy). */
  ask?: AskPermission;
  /** Custom tools declared with `skipPermission`: run without asking (deny rules still apply). */
  skipPermission: ReadonlySet<string>;
  /** The app's `sandbox` for the session (session-sandbox.ts); absent: the run config's. */
  sandboxPolicy?: SandboxPolicy;
  /** The prompt's permission mode ({@link permissionModeFor}). */
  permissionMode: PermissionMode;
}

/**
 * The session's permission gates (DESIGN.md, tools): the normal one (rules, session grants, then
 * the app or the default policy), one that allows all but what deny rules forbid, and one that
 * asks about everything (no allow rules). Each records its questions and answers in the log.
 */
export function createGates(settings: GateSettings): Gates {
  const { allowAllTools } = settings;
  const asking = {
    ...(settings.ask === undefined ? {} : { ask: settings.ask }),
    ...(settings.sandboxPolicy === undefined ? {} : { sandboxPolicy: settings.sandboxPolicy }),
    noAskReason: noHandlerReason,
    permissionMode: () => settings.permissionMode,
  };
  const allowed = settings.gateOf({ ...asking, allowAllTools: () => true });
  const normal = settings.gateOf(
    allowAllTools === undefined ? asking : { ...asking, allowAllTools: () => allowAllTools },
  );
  return {
    normal: (request) =>
      (settings.skipPermission.has(request.tool.name) ? allowed : normal)(request),
    allowed,
    ask: settings.gateOf({ ...asking, allowAllTools: () => false, ignoreAllowRules: true }),
  };
}

/** What a session's permission path is built from. */
export interface PermissionPathSettings {
  gateOf: GateSettings["gateOf"];
  /** The attached apps' registrations (session-clients.ts). */
  config: SessionConfig;
  permissions: PendingPermissions;
  hooks: HookRunner;
  /** The apps' custom tools, described as `custom-tool` requests. */
  externalTools: readonly AnyTool[];
}

/**
 * The session's permission path: the app's `preToolUse` hook (hooks.ts), then the gate its
 * decision picks ({@link createGates}) under the running prompt's permission mode
 * ({@link PendingPermissions.mode}), each recording the calls it judges for the wire.
 */
export function permissionPath(settings: PermissionPathSettings): Authorize {
  const { config, permissions, externalTools } = settings;
  const skipPermission = new Set(
    (config.tools ?? []).filter((tool) => tool.skipPermission).map((tool) => tool.name),
  );
  const byMode = new Map<PermissionMode, Gates>();
  const gatesOf = (permissionMode: PermissionMode): Gates => {
    let gates = byMode.get(permissionMode);
    if (gates === undefined) {
      gates = createGates({
        gateOf: settings.gateOf,
        ...(config.sandbox === undefined ? {} : { sandboxPolicy: config.sandbox }),
        ...(config.allowAllTools === undefined ? {} : { allowAllTools: config.allowAllTools }),
        ...(config.requestPermission === true ? { ask: permissions.ask } : {}),
        skipPermission,
        permissionMode,
      });
      byMode.set(permissionMode, gates);
    }
    return gates;
  };
  const isExternal = (tool: AnyTool) => externalTools.some((each) => each.name === tool.name);
  const current = (gate: keyof Gates): Authorize =>
    permissions.recording((request) => gatesOf(permissions.mode)[gate](request), isExternal);
  return behindPreToolUse(settings.hooks, {
    normal: current("normal"),
    allowed: current("allowed"),
    ask: current("ask"),
  });
}

/** Open permission questions of one session, answered by the app. */
export class PendingPermissions {
  private readonly pending = new Map<string, (reply: PermissionReply) => void>();
  /** Questions kept for a resume (pending work): {@link answerUnavailable} leaves them. */
  private readonly held = new Set<string>();
  /** The open questions to run a command outside the sandbox, by request id. */
  private readonly bypass = new Set<string>();
  /** Copilot's `permissionRequest` of each question asked and not answered yet, by request id. */
  private readonly open = new Map<string, WirePermissionRequest>();
  /** Calls at the gate by tool call id, so `permission.requested` can be described. */
  readonly calls = new Map<string, CallDetails>();
  /** Where the session's commands run (set before each prompt), shown with each question about one. */
  confinement: CommandConfinement | undefined;
  /** The running prompt's permission mode ({@link prepare}); `ask` until the first prompt. */
  mode: PermissionMode = "ask";

  /**
   * Sets {@link mode} and {@link confinement} for a prompt in session mode `sessionMode` under the
   * app's `sandbox` choice.
   */
  async prepare(
    host: { sandbox: HostSandbox; config: Pick<RunConfig, "permissionMode"> },
    sessionMode: SessionMode,
    chosen: SandboxPolicy | undefined,
  ): Promise<void> {
    this.mode = permissionModeFor(sessionMode, host.config);
    this.confinement = await sessionConfinement(host.sandbox, this.mode, chosen);
  }

  /**
   * `gate`, recording each call in {@link calls} as it reaches the gate (after `preToolUse`), so
   * that a question describes the arguments that would run.
   */
  recording(gate: Authorize, isExternal: (tool: AnyTool) => boolean): Authorize {
    return (request) => {
      const details: CallDetails = {
        tool: request.tool,
        input: request.input,
        arguments: request.toolCall.arguments,
        external: isExternal(request.tool),
      };
      this.calls.set(request.toolCall.toolCallId, details);
      const { check } = request;
      if (check === undefined) {
        return gate(request);
      }
      // The change the tool's check found is the one the question shows (write-request.ts).
      return gate({
        ...request,
        check: async (input, hidden) => {
          const checked = await check(input, hidden);
          details.change = checked.kind === "ready" ? checked.change : undefined;
          return checked;
        },
      });
    };
  }

  /**
   * `wire` (`event` as the wire shows it), for a permission event with the wire-only fields
   * Copilot SDK apps read (`src/protocol/copilot.ts`).
   */
  wireEvent(event: SessionEvent, cwd: string, wire: object): object {
    switch (event.type) {
      case "permission.requested": {
        const details = this.calls.get(event.data.toolCallId);
        const outside = event.data.outsideSandbox;
        const where = outside === undefined ? this.confinement : outsideConfinement(outside);
        const permissionRequest = wirePermissionRequest(event.data, details, cwd, where);
        this.open.set(event.data.requestId, permissionRequest);
        return { ...event, data: { ...event.data, permissionRequest } };
      }
      case "permission.completed":
        this.open.delete(event.data.requestId);
        return { ...event, data: { ...event.data, result: { kind: completedKind(event.data) } } };
      default:
        return wire;
    }
  }

  /** The gate's `ask`: waits for the app's answer; the gate settles it as cancelled on abort. */
  readonly ask: AskPermission = (request, signal) =>
    new Promise<PermissionReply>((settle) => {
      let stop = (): void => {};
      if (request.sandbox?.outsideReason !== undefined) {
        this.bypass.add(request.requestId);
      }
      this.pending.set(request.requestId, (reply) => {
        stop();
        settle(reply);
      });
      stop = whenAborted(signal, () => {
        this.forget(request.requestId);
      });
    });

  /**
   * Answers open questions as Copilot's `user-not-available` (the model goes on with "Permission
   * denied and could not request permission from user"): those no attached app has a handler of
   * any more, by the session's registrations (`requestPermission`, `requestSandboxBypass`).
   */
  answerUnavailable(
    config: Pick<SessionConfig, "requestPermission" | "requestSandboxBypass">,
  ): void {
    for (const requestId of [...this.pending.keys()]) {
      const handled = this.bypass.has(requestId)
        ? config.requestSandboxBypass === true
        : config.requestPermission === true;
      if (!handled && !this.held.has(requestId)) {
        this.answer(requestId, { kind: "user-not-available" });
      }
    }
  }

  private forget(requestId: string): void {
    this.pending.delete(requestId);
    this.held.delete(requestId);
    this.bypass.delete(requestId);
  }

  /**
   * Keeps every open question for a resume (pending work): it waits for an answer by request id.
   * @returns how many questions are open.
   */
  holdAll(): number {
    for (const requestId of this.pending.keys()) {
      this.held.add(requestId);
    }
    return this.pending.size;
  }

  /**
   * `session.permissions.pendingRequests`: the questions asked (`permission.requested`) and not
   * answered yet (no `permission.completed`), as Copilot's `PendingPermissionRequestList` items.
   */
  pendingRequests(): Array<{ requestId: string; request: WirePermissionRequest }> {
    return [...this.open].map(([requestId, request]) => ({ requestId, request }));
  }

  /**
   * Applies the app's answer.
   * @returns false when no such question is open (answered already, cancelled, unknown id).
   * @throws Error naming the result kind when it is not one of Copilot's decision kinds.
   */
  answer(requestId: string, result: { kind: string; feedback?: string | undefined }): boolean {
    const reply = replyFor(result);
    const settle = this.pending.get(requestId);
    if (settle === undefined) {
      return false;
    }
    this.forget(requestId);
    settle(reply);
    return true;
  }
}

/** Why a call was denied when no user could be asked (Copilot's `user-not-available`). */
const NO_USER_REASON = "no user was available to approve it";

/**
 * Maps a Copilot decision (`PermissionDecision.kind`, legacy spellings included) to the gate's
 * reply. `-for-session`, `-for-location` and `permanently` record a rule for the session.
 * @throws Error for an unknown kind.
 */
export function replyFor(result: { kind: string; feedback?: string | undefined }): PermissionReply {
  const { kind, feedback } = result;
  switch (kind) {
    case "approve-once":
    case "approved":
      return { decision: "allow", scope: "once" };
    case "approve-for-session":
    case "approved-for-session":
    case "approve-for-location":
    case "approved-for-location":
    case "approve-permanently":
      return { decision: "allow", scope: "session" };
    case "user-not-available":
    case "denied-no-approval-rule-and-could-not-request-from-user":
      // Copilot's wording; the model goes on with it.
      return {
        decision: "deny",
        scope: "once",
        reason: NO_USER_REASON,
        content: "Permission denied and could not request permission from user",
      };
    default:
      if (kind === "reject" || kind.startsWith("denied")) {
        // The user said no: as with Copilot, the prompt ends after this reply's tool calls.
        const reason = feedback ?? "the user rejected it";
        return { decision: "deny", scope: "once", reason, rejected: true };
      }
      throw new Error(
        `unknown permission decision "${kind}": use approve-once, approve-for-session, reject or user-not-available`,
      );
  }
}

/**
 * Copilot's `permission.completed.result.kind` for a recorded decision: a denial because no user
 * could be asked is `denied-no-approval-rule-and-could-not-request-from-user`, as Copilot words
 * it (the Copilot SDK's `PermissionResult` kinds, `dist/generated/session-events.d.ts`), not the
 * user's own denial.
 */
export function completedKind(data: SessionEventOf<"permission.completed">["data"]): string {
  if (data.decision === "allowed") {
    return data.scope === "session" ? "approved-for-session" : "approved";
  }
  if (data.decision === "denied" && data.reason === NO_USER_REASON) {
    return "denied-no-approval-rule-and-could-not-request-from-user";
  }
  return data.decision === "denied" ? "denied-interactively-by-user" : "cancelled";
}
