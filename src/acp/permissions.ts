import * as acp from "@agentclientprotocol/sdk";
import { stillAskedNote } from "../permissions/command-prefix.js";
import {
  type AskPermission,
  type CommandConfinement,
  offersAlwaysAnswers,
  type PermissionReply,
  type PermissionRequest,
  shownConfinement,
} from "../permissions/permission-decision.js";
import { callTitle, changeDiff } from "./tool-call-content.js";

/** What an ACP permission question needs besides the gate's request. */
export interface PermissionAsker {
  client: acp.AgentContext;
  sessionId: string;
  /** The call's `tool_call` fields as already announced, so the question shows the same call. */
  describe: (toolCallId: string) => Omit<acp.ToolCall, "toolCallId"> | undefined;
  /** Cancels the running prompt, as `session/cancel` does. */
  cancelPrompt: () => void;
}

/** Said to the model when the user picks a reject option. */
const DECLINED = "the user declined this call";

/**
 * The gate's way to ask over ACP v1 `session/request_permission` (ACP v1 tool-calls: permission
 * requests). The call's `tool_call` was sent before, when the model listed it. Options map onto
 * the gate's replies: allow_once → allow once, allow_always → allow for the session (recorded,
 * survives `session/load`; a second allow_always option, when offered, records the command's
 * prefix rule), reject_once → deny once, reject_always → deny for the session; a
 * `cancelled` outcome, or the prompt's cancel, → cancelled; a `cancelled` outcome cancels the
 * prompt itself, whether or not `session/cancel` arrived first. On cancel the request is
 * abandoned with `$/cancel_request`, and a late answer is ignored (case 04).
 */
export function acpPermissionAsker(asker: PermissionAsker): AskPermission {
  return async (request, signal) => {
    const described = asker.describe(request.toolCallId) ?? {
      title: request.title,
      kind: request.kind,
      rawInput: request.rawInput,
      locations: request.paths.map((path) => ({ path })),
    };
    const confinement = request.sandbox;
    const params: acp.RequestPermissionRequest = {
      sessionId: asker.sessionId,
      toolCall: {
        toolCallId: request.toolCallId,
        status: "pending",
        ...described,
        ...confinedTitle(request, confinement),
        // ACP lets the question carry the call's content: the change an edit or create would make.
        ...(request.change === undefined ? {} : { content: [changeDiff(request.change)] }),
      },
      options: permissionOptions(request, offersAlwaysAnswers(confinement)),
      ...(confinement === undefined ? {} : { _meta: { "turnloop/sandbox": confinement } }),
    };
    params.toolCall.title = callTitle(params.toolCall.title ?? "");
    try {
      const response = await asker.client.request(
        acp.methods.client.session.requestPermission,
        params,
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      );
      if (response.outcome.outcome === "cancelled") {
        // ACP v1: a client answers `cancelled` because it cancelled the prompt turn. Its
        // `session/cancel` may not have arrived yet: the answer alone cancels (case 04).
        asker.cancelPrompt();
      }
      return permissionReply(response.outcome, request);
    } catch (error) {
      if (signal.aborted) {
        return { decision: "cancelled" };
      }
      throw error;
    }
  };
}

/**
 * The options of a permission request, their names as an editor draws them (`callTitle`); the
 * `_always` ones only when `always` (a sandbox policy may offer none).
 */
function permissionOptions(request: PermissionRequest, always: boolean): acp.PermissionOption[] {
  const options: acp.PermissionOption[] = [
    { optionId: "allow_once", name: "Allow", kind: "allow_once" },
    { optionId: "allow_always", name: `Always allow ${request.alwaysRule}`, kind: "allow_always" },
    ...prefixOption(request),
    { optionId: "reject_once", name: "Reject", kind: "reject_once" },
    {
      optionId: "reject_always",
      name: `Always reject ${request.alwaysRule}`,
      kind: "reject_always",
    },
  ];
  return options
    .filter((option) => always || !option.kind.endsWith("_always"))
    .map((option) => ({ ...option, name: callTitle(option.name) }));
}

/** The id of the option that allows every call with the command's prefix (`bash(npx tape *)`). */
const ALLOW_PREFIX = "allow_always_prefix";

/**
 * A second `allow_always` option when the request offers a command prefix rule
 * (permission-decision.ts `prefix`): ACP v1 lets options share a kind; its name shows the rule.
 */
function prefixOption(request: PermissionRequest): acp.PermissionOption[] {
  if (request.prefix === undefined) {
    return [];
  }
  return [
    {
      optionId: ALLOW_PREFIX,
      // The parts the rule does not cover still ask, as the terminal's question says.
      name: `Always allow ${request.prefix.rule}${stillAskedNote(request.prefix.notCovered)}`,
      kind: "allow_always",
    },
  ];
}

/**
 * The title of a question about a command, with where it runs (issue 23: every permission
 * question shows the sandbox): `Run make test [sandbox: workspace-write, no network]`, or for a
 * command the sandbox stopped `Run outside the sandbox: curl … [outside the sandbox: <reason>]`.
 * A command that runs unconfined anyway (no policy) keeps the title already announced.
 */
function confinedTitle(
  request: PermissionRequest,
  confinement: CommandConfinement | undefined,
): { title?: string } {
  const shown = shownConfinement(confinement);
  return shown === undefined ? {} : { title: `${request.title} [${shown}]` };
}

/** The gate's reply for a `session/request_permission` outcome to `request`. */
export function permissionReply(
  outcome: acp.RequestPermissionOutcome,
  request: PermissionRequest,
): PermissionReply {
  if (outcome.outcome === "cancelled") {
    return { decision: "cancelled" };
  }
  switch (outcome.optionId) {
    case "allow_once":
      return { decision: "allow", scope: "once" };
    case "allow_always":
      return { decision: "allow", scope: "session" };
    case ALLOW_PREFIX:
      if (request.prefix !== undefined) {
        return { decision: "allow", scope: "session", rule: request.prefix.rule };
      }
      break;
    case "reject_once":
      return { decision: "deny", scope: "once", reason: DECLINED };
    case "reject_always":
      return { decision: "deny", scope: "session", reason: DECLINED };
    default:
      break;
  }
  return {
    decision: "deny",
    scope: "once",
    reason: `the client answered with an option we did not offer (${outcome.optionId})`,
  };
}
