import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { HistoryMessage } from "./provider.js";

/**
 * A fresh tool-call id: `call_` and 24 hex digits. Letters, digits and `_` only, so every wire
 * takes it back in later requests (Anthropic requires `tool_use.id` to match `^[a-zA-Z0-9_-]+$`;
 * OpenAI Chat's `tool_call_id` and the Responses API's `call_id` take any string).
 */
export function freshToolCallId(): string {
  // The global Web Crypto object loads on first use, not with this module (see newSessionId).
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(12));
  return `call_${Buffer.from(bytes).toString("hex")}`;
}

/** Every tool-call id the history already holds (calls and results). */
export function toolCallIdsIn(messages: readonly HistoryMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") {
      for (const call of message.toolCalls) {
        ids.add(call.toolCallId);
      }
    } else if (message.role === "tool") {
      ids.add(message.toolCallId);
    }
  }
  return ids;
}

/**
 * Gives every tool call of one reply an id unique in the whole session (issue 11). Providers and
 * proxies reuse ids: `call_0` on every turn (common with local servers), the same id twice in one
 * reply, an empty id. A provider id that is empty or already used (earlier in the history or
 * earlier in this reply) is replaced by a {@link freshToolCallId}; others are kept as they are.
 * The replacement is what the log, the client and later requests see, so all three agree: our
 * requests carry the whole history (Responses with `store: false`), so no wire needs its own id
 * back.
 *
 * One instance per attempt: a retried attempt starts over. Parts of a call are matched to it by
 * the provider's id, the latest call started with that id first (calls stream one after another).
 */
export class ToolCallIdAssigner {
  private readonly used: Set<string>;
  /** Provider id → our id, for calls started but not yet complete. */
  private readonly open = new Map<string, string>();

  constructor(history: readonly HistoryMessage[]) {
    this.used = toolCallIdsIn(history);
  }

  /** The part with its tool-call id replaced where needed; other parts unchanged. */
  assign(part: LanguageModelV3StreamPart): LanguageModelV3StreamPart {
    switch (part.type) {
      case "tool-input-start":
        return { ...part, id: this.start(part.id) };
      case "tool-input-delta":
      case "tool-input-end":
        return { ...part, id: this.open.get(part.id) ?? part.id };
      case "tool-call": {
        const id = this.open.get(part.toolCallId) ?? this.start(part.toolCallId);
        this.open.delete(part.toolCallId);
        return { ...part, toolCallId: id };
      }
      default:
        return part;
    }
  }

  private start(providerId: string): string {
    const id = providerId.trim() === "" || this.used.has(providerId) ? this.fresh() : providerId;
    this.used.add(id);
    this.open.set(providerId, id);
    return id;
  }

  private fresh(): string {
    let id = freshToolCallId();
    while (this.used.has(id)) {
      id = freshToolCallId();
    }
    return id;
  }
}
