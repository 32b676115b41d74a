import type { SessionEvent, ToolRequest } from "../events/events.js";
import type { HistoryMessage } from "../llm/provider.js";

/**
 * The conversation as the model sees it, folded from session events one at a time.
 *
 * Results of parallel tool calls complete in any order but are kept in call order right after
 * their assistant message (case 11), so every request pairs each call with its result.
 */
export class History {
  readonly messages: HistoryMessage[] = [];
  /** Calls of the latest assistant message still waiting for a result, in call order. */
  private openCalls: OpenCall[] = [];
  /** Ids the model has been sent, so that none is sent for two calls. */
  private readonly idsSent = new Set<string>();
  /** Index in `messages` of the latest assistant message with tool calls. */
  private assistantIndex = -1;

  /** Folds one event. Events that do not change the conversation are ignored. */
  apply(event: SessionEvent): void {
    switch (event.type) {
      case "user.message":
        this.messages.push({
          role: "user",
          content: event.data.content,
          ...(event.data.images === undefined ? {} : { images: event.data.images }),
        });
        return;
      case "assistant.message": {
        const { content, reasoningParts, toolRequests, providerMetadata } = event.data;
        this.openCalls = toolRequests.map((call, order) => ({
          call,
          order,
          modelId: this.uniqueId(call.toolCallId),
        }));
        this.messages.push({
          role: "assistant",
          content,
          toolCalls: this.openCalls.map(({ call, modelId }) =>
            modelId === call.toolCallId ? call : { ...call, toolCallId: modelId },
          ),
          ...(reasoningParts === undefined ? {} : { reasoningParts }),
          ...(providerMetadata === undefined ? {} : { providerMetadata }),
        });
        this.assistantIndex = this.messages.length - 1;
        return;
      }
      case "tool.execution_complete":
        this.addResult(event.data);
        return;
      default:
        return;
    }
  }

  /** Tool calls of the latest assistant message that have no result yet, in call order, as logged. */
  get pendingToolCalls(): readonly ToolRequest[] {
    return this.openCalls.map((open) => open.call);
  }

  /**
   * The id the model is sent for a logged call id: the same unless it was empty or already sent
   * for another call. Logs written before ids were made unique (issue 11) can hold `call_0` on
   * every turn, which Anthropic rejects ("tool_use ids must be unique"); the replacement is
   * derived from the position, so every request of the session replays the same ids.
   */
  private uniqueId(loggedId: string): string {
    let id = loggedId;
    for (let suffix = 2; id.trim() === "" || this.idsSent.has(id); suffix++) {
      id = `${loggedId.trim() === "" ? "call" : loggedId}_${suffix}`;
    }
    this.idsSent.add(id);
    return id;
  }

  private addResult(data: Extract<SessionEvent, { type: "tool.execution_complete" }>["data"]) {
    // The first open call with the logged id: a reply may have repeated an id in old logs.
    const open = this.openCalls.find((entry) => entry.call.toolCallId === data.toolCallId);
    if (open === undefined) {
      // A result for no open call (duplicate, or damage in the log) would make the request invalid.
      return;
    }
    this.openCalls = this.openCalls.filter((entry) => entry !== open);
    const message: HistoryMessage = {
      role: "tool",
      toolCallId: open.modelId,
      toolName: data.toolName,
      content: data.result.content,
      isError: !data.success,
      ...(data.result.images === undefined ? {} : { images: data.result.images }),
    };
    const orderOf = new Map(this.resultOrder());
    let position = this.assistantIndex + 1;
    while (position < this.messages.length) {
      const existing = this.messages[position];
      if (existing?.role !== "tool" || (orderOf.get(existing.toolCallId) ?? 0) > open.order) {
        break;
      }
      position++;
    }
    this.messages.splice(position, 0, message);
  }

  /** Model id → call position, for the calls of the latest assistant message. */
  private *resultOrder(): Iterable<[string, number]> {
    const assistant = this.messages[this.assistantIndex];
    if (assistant?.role === "assistant") {
      for (const [order, call] of assistant.toolCalls.entries()) {
        yield [call.toolCallId, order];
      }
    }
  }
}

interface OpenCall {
  /** The call as logged. */
  call: ToolRequest;
  /** Its position in the assistant message. */
  order: number;
  /** The id the model is sent for it. */
  modelId: string;
}
