import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { randomBytes } from "../events/random-id.js";
import type { HistoryMessage } from "./provider.js";

/**
 * A fresh tool-call id: `call_` and 24 hex digits. Letters, digits and `_` only, so every wire
 * takes it back in later requests (Anthropic requires `tool_use.id` to match `^[a-zA-Z0-9_-]+$`;
 * OpenAI Chat's `tool_call_id` and the Responses API's `call_id` take any string).
 */
export function freshToolCallId(): string {
  return `call_${Buffer.from(randomBytes(12)).toString("hex")}`;
}

/** The ids a message adds: its calls' (assistant) or its result's (tool). */
function addIdsOf(message: HistoryMessage, ids: Set<string>): void {
  if (message.role === "assistant") {
    for (const call of message.toolCalls) {
      ids.add(call.toolCallId);
    }
  } else if (message.role === "tool") {
    ids.add(message.toolCallId);
  }
}

/**
 * The id set last computed for a history ending with the key message. A request's history is the
 * previous request's plus a few messages (the agent's `History` appends message objects and never
 * changes one; a tool result may be inserted among its turn's results, but its id is its call's,
 * already in the set), so {@link toolCallIdsIn} walks back only to the last message it has seen and adds
 * the newer ones to that set: O(new messages) per request instead of O(history) (issue 26). The set
 * is shared and grows, so it may also hold ids of messages a rewind or a compaction has since
 * dropped: a superset, which only makes a reused provider id get a fresh one.
 */
const idsThrough = new WeakMap<HistoryMessage, Set<string>>();

/**
 * Every tool-call id the history already holds (calls and results), and possibly ids of messages
 * that followed a message of it in an earlier request (see {@link idsThrough}). Read-only: the set
 * is shared with later calls.
 */
export function toolCallIdsIn(messages: readonly HistoryMessage[]): ReadonlySet<string> {
  let from = messages.length;
  let ids: Set<string> | undefined;
  while (from > 0 && ids === undefined) {
    const message = messages[from - 1];
    ids = message === undefined ? undefined : idsThrough.get(message);
    if (ids === undefined) {
      from--;
    }
  }
  const known = ids ?? new Set<string>();
  for (const message of messages.slice(from)) {
    addIdsOf(message, known);
    idsThrough.set(message, known);
  }
  return known;
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
  /** Ids of the history (shared, read-only here; see {@link toolCallIdsIn}). */
  private readonly history: ReadonlySet<string>;
  /** Ids given out by this attempt. */
  private readonly used = new Set<string>();
  /** Provider id → our id, for calls started but not yet complete. */
  private readonly open = new Map<string, string>();

  constructor(history: readonly HistoryMessage[]) {
    this.history = toolCallIdsIn(history);
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
    const id = providerId.trim() === "" || this.taken(providerId) ? this.fresh() : providerId;
    this.used.add(id);
    this.open.set(providerId, id);
    return id;
  }

  private taken(id: string): boolean {
    return this.used.has(id) || this.history.has(id);
  }

  private fresh(): string {
    let id = freshToolCallId();
    while (this.taken(id)) {
      id = freshToolCallId();
    }
    return id;
  }
}
