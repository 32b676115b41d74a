import type * as acp from "@agentclientprotocol/sdk";
import type { SessionEventData } from "../events/events.js";

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
