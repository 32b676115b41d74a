import type * as acp from "@agentclientprotocol/sdk";
import { retryNote } from "../events/errors.js";
import type { SessionEvent, SessionEventData } from "../events/events.js";

/** Title of the `tool_call` that shows a compaction. */
export const COMPACTION_TITLE = "Compacting conversation";

/**
 * A compaction as ACP v1 updates: a `tool_call` of kind `think` titled "Compacting conversation"
 * (in progress at `session.compaction_start`), then its `tool_call_update` with the before and
 * after token counts, and on success a `usage_update` with the smaller context use. The call id
 * is derived from the start event's id, so live and replayed updates agree.
 */
export class CompactionUpdates {
  private toolCallId: string | undefined;
  private tokenLimit = 0;
  /** Turns that were summary requests: their usage is not the conversation's context use. */
  private readonly turns = new Set<string>();

  /** Notes a turn's purpose from `assistant.turn_start`. */
  turnStarted(data: SessionEventData["assistant.turn_start"]): acp.SessionUpdate[] {
    if (data.purpose === "compaction") {
      this.turns.add(data.turnId);
    }
    // Nothing to show yet: the summary's updates come with compaction_start and _complete.
    return [];
  }

  /** Whether `turnId` was a summary request. */
  isCompactionTurn(turnId: string): boolean {
    return this.turns.has(turnId);
  }

  start(data: SessionEventData["session.compaction_start"], eventId: string): acp.SessionUpdate[] {
    this.toolCallId = `compaction-${eventId}`;
    this.tokenLimit = data.tokenLimit;
    return [
      {
        sessionUpdate: "tool_call",
        toolCallId: this.toolCallId,
        title: COMPACTION_TITLE,
        kind: "think",
        status: "in_progress",
        rawInput: { ...data },
      },
    ];
  }

  complete(
    data: SessionEventData["session.compaction_complete"],
    eventId: string,
  ): acp.SessionUpdate[] {
    const toolCallId = this.toolCallId ?? `compaction-${eventId}`;
    this.toolCallId = undefined;
    const text = data.success
      ? `Compacted the conversation from about ${data.preCompactionTokens} to ${data.postCompactionTokens ?? "?"} tokens (${data.messagesRemoved ?? 0} messages summarised).`
      : `Compaction failed: ${data.error ?? "unknown error"}`;
    const updates: acp.SessionUpdate[] = [
      {
        sessionUpdate: "tool_call_update",
        toolCallId,
        status: data.success ? "completed" : "failed",
        content: [{ type: "content", content: { type: "text", text } }],
        rawOutput: {
          success: data.success,
          preCompactionTokens: data.preCompactionTokens,
          ...(data.postCompactionTokens === undefined
            ? {}
            : { postCompactionTokens: data.postCompactionTokens }),
        },
      },
    ];
    if (data.success && data.postCompactionTokens !== undefined && this.tokenLimit > 0) {
      updates.push({
        sessionUpdate: "usage_update",
        used: data.postCompactionTokens,
        size: this.tokenLimit,
      });
    }
    return updates;
  }
}

/**
 * A `session.warning` as a message of the agent itself: every client shows those (ACP's `notice`
 * update is only for clients that offer `session.notices`; session-setup.ts sends an untrusted
 * project's warning as one to them). `afterText`: whether agent text of the same reply came
 * before, which the warning then leaves with a line break; none when it is the reply's first text.
 */
export function warningUpdate(
  data: SessionEventData["session.warning"],
  eventId: string,
  afterText = true,
): acp.SessionUpdate {
  return {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text: `${afterText ? "\n" : ""}⚠ ${data.message}\n` },
    messageId: eventId,
  };
}

/**
 * A failed model request about to be tried again (`assistant.retry`), as a thought of the agent
 * (`agent_thought_chunk`): editors hide the agent's stderr (which says it too), and a retry can
 * keep a prompt silent for half a minute (README: "each retry is shown"); a thought is not the
 * reply, so the notice never joins the answer's text (case 17), and a `session/load` replays it the
 * same way (case 25).
 */
export function retryUpdate(
  data: SessionEventData["assistant.retry"],
  eventId: string,
): acp.SessionUpdate {
  return {
    sessionUpdate: "agent_thought_chunk",
    content: { type: "text", text: `⟳ ${retryNote(data)}\n` },
    messageId: eventId,
  };
}

/**
 * Autopilot reached its cap (`session.autopilot_stopped`) before the model called
 * `task_complete`: said as an agent message, since every client shows those (`-p` prints a line).
 */
export function autopilotStoppedUpdate(
  data: SessionEventData["session.autopilot_stopped"],
  eventId: string,
  afterText = true,
): acp.SessionUpdate {
  const continues = `${data.continues} continuation${data.continues === 1 ? "" : "s"}`;
  return {
    sessionUpdate: "agent_message_chunk",
    content: {
      type: "text",
      text: `${afterText ? "\n" : ""}⚠ Autopilot stopped after ${continues}: the model did not call task_complete, so the task was not marked complete.\n`,
    },
    messageId: eventId,
  };
}

/** A notice a user of any client should see (a warning, autopilot's cap), as an agent message. */
export function noticeUpdate(
  event: Extract<SessionEvent, { type: "session.warning" | "session.autopilot_stopped" }>,
  afterText: boolean,
): acp.SessionUpdate {
  return event.type === "session.warning"
    ? warningUpdate(event.data, event.id, afterText)
    : autopilotStoppedUpdate(event.data, event.id, afterText);
}
