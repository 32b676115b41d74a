/**
 * The one rule for what turnloop itself says to an ACP client, rather than the model: a session
 * log's repair, a retried model request, an unavailable sandbox, a project's or the
 * instructions' warnings, autopilot's cap, an MCP server's failure, a followed session's prompt
 * that its owner, gone, never ran or left unfinished (remote-session.ts). None of them is part of
 * the agent's reply text (case 17): a `notice` update to a client that offered `session.notices`
 * in `initialize`, an `agent_thought_chunk` to any other (ACP v1 schema, `Notice`: agents MUST
 * only send notices to such clients; SDK 2.4.0 `SessionUpdate`). `session/load` replays a
 * recorded notice the same way it was sent live (replay.ts, case 25); a gone owner's is recorded
 * nowhere (the follower writes no event), so a later load does not say it again.
 */

import type * as acp from "@agentclientprotocol/sdk";
import { abortNote, retryNote, stoppedNote } from "../events/errors.js";
import type { SessionEvent, SessionEventData } from "../events/events.js";
import { randomUUID } from "../events/random-id.js";
import type { SessionHost } from "../session/host.js";
import { isProjectWarning } from "../session/project-warnings.js";
import { describeAutoMode, type HostSandbox, permissionModeOf } from "../session/sandbox-setup.js";
import type { Session } from "../session/session.js";
import type { SandboxPolicy } from "../tools/sandbox/policy.js";
import type { ModeId } from "./modes.js";

/** A notice of turnloop's own, before it is shaped for a client ({@link noticeUpdate}). */
export interface TurnloopNotice {
  /** ACP's `NoticeSeverity`. */
  severity: "info" | "warning" | "error";
  /** The `notice`'s title: a few words, never empty. */
  title: string;
  /** What happened, without a mark or a trailing line break. */
  text: string;
  /** The thought's mark: `⚠`, or `⟳` for a retry. */
  mark?: string;
  /** The id of the event that recorded it, so live and replayed thoughts share a `messageId`. */
  id?: string;
}

/** Whether the client offered `session.notices` in `initialize` (ACP v1 `ClientCapabilities`). */
export function offersNotices(offered: acp.ClientCapabilities | undefined): boolean {
  return offered?.session?.notices != null;
}

/**
 * `notice` as the update its client is sent: a `notice` (severity, title, the text as its
 * `description`) when `notices` ({@link offersNotices}), else an `agent_thought_chunk` of
 * `"<mark> <text>\n"` with its own `messageId`, never an `agent_message_chunk`.
 */
export function noticeUpdate(notice: TurnloopNotice, notices: boolean): acp.SessionUpdate {
  if (notices) {
    return {
      sessionUpdate: "notice",
      severity: notice.severity,
      title: notice.title,
      description: notice.text,
    };
  }
  return {
    sessionUpdate: "agent_thought_chunk",
    content: { type: "text", text: `${notice.mark ?? "⚠"} ${notice.text}\n` },
    messageId: notice.id ?? randomUUID(),
  };
}

/**
 * A recorded notice as a {@link TurnloopNotice}: a `session.warning` (an untrusted project's,
 * the instructions', an empty answer's, …), autopilot's cap (`session.autopilot_stopped`, before
 * the model called `task_complete`), a failed model request about to be tried again
 * (`assistant.retry`: a retry can keep a prompt silent for half a minute, README "each retry is
 * shown"; editors hide the agent's stderr, which says it too).
 */
export function recordedNotice(
  event: Extract<
    SessionEvent,
    { type: "session.warning" | "session.autopilot_stopped" | "assistant.retry" }
  >,
): TurnloopNotice {
  switch (event.type) {
    case "session.warning":
      return {
        severity: "warning",
        title: isProjectWarning(event) ? "This project is not trusted" : "Warning",
        text: event.data.message,
        id: event.id,
      };
    case "session.autopilot_stopped":
      return {
        severity: "warning",
        title: "Autopilot stopped",
        text: autopilotText(event.data),
        id: event.id,
      };
    case "assistant.retry":
      return {
        severity: "info",
        title: "Retrying",
        text: retryNote(event.data),
        mark: "⟳",
        id: event.id,
      };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/**
 * How a replayed prompt ended, when not with its answer: a `session.error` (`error: <message>`),
 * an `abort` (`cancelled`, or who stopped it), a turn end whose recorded `stopReason` is a limit
 * or a refusal (`stopped: max_turn_requests`): in the words the terminal draws a reopened session
 * with (cli/interactive/transcript.ts). Live, the prompt's answer says it (a JSON-RPC error, its
 * `stopReason`), so only `session/load` sends these (replay.ts, case 25); undefined otherwise.
 */
export function promptEndNotice(
  event: Extract<SessionEvent, { type: "session.error" | "abort" | "assistant.turn_end" }>,
): TurnloopNotice | undefined {
  switch (event.type) {
    case "session.error":
      return {
        severity: "error",
        title: "Failed",
        text: `error: ${event.data.message}`,
        mark: "✗",
        id: event.id,
      };
    case "abort":
      return {
        severity: "info",
        title: "Cancelled",
        text: abortNote(event.data.reason),
        mark: "⊘",
        id: event.id,
      };
    case "assistant.turn_end": {
      const text =
        event.data.stopReason === undefined ? undefined : stoppedNote(event.data.stopReason);
      return text === undefined
        ? undefined
        : { severity: "warning", title: "Stopped", text, id: event.id };
    }
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

function autopilotText(data: SessionEventData["session.autopilot_stopped"]): string {
  const continues = `${data.continues} continuation${data.continues === 1 ? "" : "s"}`;
  return `Autopilot stopped after ${continues}: the model did not call task_complete, so the task was not marked complete.`;
}

/**
 * What an ACP session tells its client when its commands should run in the sandbox and
 * bubblewrap cannot run here (README, "Sandbox": permission mode `auto` says so once and falls
 * back to asking; never silently unconfined, as `-p`'s warning says it). The `sandbox` config
 * option then reads `unavailable` with the reason (modes.ts `configOptions`), and the warning is
 * said once per session, as every notice is ({@link noticeUpdate}).
 */
export class SandboxNotice {
  private warned = false;

  constructor(
    private readonly sandbox: () => HostSandbox,
    private readonly offered: acp.ClientCapabilities | undefined,
    private readonly send: (update: acp.SessionUpdate) => void,
  ) {}

  /** Probes bubblewrap (once per host) when `policy` confines; never rejects. */
  async probe(policy: SandboxPolicy): Promise<void> {
    if (policy !== "danger-full-access") {
      await this.sandbox().availability();
    }
  }

  /** Why `policy` cannot confine here, once the probe said so; `undefined` else. */
  unavailable(policy: SandboxPolicy): string | undefined {
    return policy === "danger-full-access" ? undefined : this.sandbox().unavailableReason();
  }

  /** Sends the warning the first time {@link unavailable} has a reason for `policy`. */
  warnOnce(policy: SandboxPolicy): void {
    const reason = this.unavailable(policy);
    if (reason === undefined || this.warned) {
      return;
    }
    this.warned = true;
    const message = `No sandbox can run here, so commands and edits ask first and run unconfined once allowed: ${reason}`;
    const notice = { severity: "warning", title: "Sandbox unavailable", text: message } as const;
    this.send(noticeUpdate(notice, offersNotices(this.offered)));
  }

  /**
   * The policy of `session`'s commands in `mode` (`chosen`: its `sandbox` option), what mode
   * `auto` lets run without asking, and why no sandbox can run here, once probed.
   */
  view(host: SessionHost, session: Session, mode: ModeId, chosen: SandboxPolicy | undefined) {
    const config = host.configOf(session);
    const policyIn = (which: ModeId) =>
      host.sandboxOf(session).policyFor(permissionModeOf(which, config), chosen);
    const policy = policyIn(mode);
    const available = this.unavailable(policyIn("auto")) === undefined;
    const auto = describeAutoMode(config, chosen, available);
    return { policy, auto, unavailable: this.unavailable(policy) };
  }
}
