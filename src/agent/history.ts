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
  private openCalls: ToolRequest[] = [];
  private callOrder = new Map<string, number>();
  /** Index in `messages` of the latest assistant message with tool calls. */
  private assistantIndex = -1;

  /** Folds one event. Events that do not change the conversation are ignored. */
  apply(event: SessionEvent): void {
    switch (event.type) {
      case "user.message":
        this.messages.push({ role: "user", content: event.data.content });
        return;
      case "assistant.message": {
        const { content, reasoningParts, toolRequests, providerMetadata } = event.data;
        this.messages.push({
          role: "assistant",
          content,
          toolCalls: toolRequests,
          ...(reasoningParts === undefined ? {} : { reasoningParts }),
          ...(providerMetadata === undefined ? {} : { providerMetadata }),
        });
        this.openCalls = [...toolRequests];
        this.callOrder = new Map(toolRequests.map((call, index) => [call.toolCallId, index]));
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

  /** Tool calls of the latest assistant message that have no result yet, in call order. */
  get pendingToolCalls(): readonly ToolRequest[] {
    return this.openCalls;
  }

  private addResult(data: Extract<SessionEvent, { type: "tool.execution_complete" }>["data"]) {
    const order = this.callOrder.get(data.toolCallId);
    if (
      order === undefined ||
      !this.openCalls.some((call) => call.toolCallId === data.toolCallId)
    ) {
      // A result for no open call (duplicate, or damage in the log) would make the request invalid.
      return;
    }
    this.openCalls = this.openCalls.filter((call) => call.toolCallId !== data.toolCallId);
    const message: HistoryMessage = {
      role: "tool",
      toolCallId: data.toolCallId,
      toolName: data.toolName,
      content: data.result.content,
      isError: !data.success,
      ...(data.result.images === undefined ? {} : { images: data.result.images }),
    };
    let position = this.assistantIndex + 1;
    while (position < this.messages.length) {
      const existing = this.messages[position];
      if (existing?.role !== "tool" || (this.callOrder.get(existing.toolCallId) ?? 0) > order) {
        break;
      }
      position++;
    }
    this.messages.splice(position, 0, message);
  }
}
