/**
 * The persisted event types of the common model turns, for whole-log assertions:
 * `expect(types).toEqual(["session.start", "user.message", ...TOOL_TURN, ...ANSWER_TURN])`.
 */

/**
 * The first events of a session and of a tool turn up to its call's start, where a permission
 * question, a cancel or a failed write comes in: `session.start`, the prompt, then the turn.
 */
export const UNTIL_TOOL_START = [
  "session.start",
  "user.message",
  "assistant.turn_start",
  "assistant.message",
  "assistant.usage",
  "tool.execution_start",
] as const;

/**
 * A prompt cancelled while its tool call waits at a permission question, from the call's start:
 * the question, its `cancelled` answer, the call's result, the turn's end, the `abort`.
 */
export const CANCELLED_AT_QUESTION = [
  "tool.execution_start",
  "permission.requested",
  "permission.completed",
  "tool.execution_complete",
  "assistant.turn_end",
  "abort",
] as const;

/** A model turn that calls one tool: the call's start and result come before the turn's end. */
export const TOOL_TURN = [
  ...UNTIL_TOOL_START.slice(2),
  "tool.execution_complete",
  "assistant.turn_end",
] as const;

/** A model turn that answers without a tool call. */
export const ANSWER_TURN = [
  "assistant.turn_start",
  "assistant.message",
  "assistant.usage",
  "assistant.turn_end",
] as const;

/** A model turn whose request failed, so without a reply: its start, then its failed end. */
export const FAILED_TURN = ["assistant.turn_start", "assistant.turn_end"] as const;

/** A request that failed three times (the first try and two retries), then the prompt's error. */
export const FAILED_AFTER_RETRIES = [
  ...FAILED_TURN,
  "assistant.retry",
  ...FAILED_TURN,
  "assistant.retry",
  ...FAILED_TURN,
  "session.error",
] as const;

/** The log of a session whose one prompt was answered in one turn without a tool call. */
export const ANSWERED_SESSION = ["session.start", "user.message", ...ANSWER_TURN] as const;

/**
 * What an SDK client sees live of a prompt answered in one turn without deltas (streaming off, or
 * a prompt another process ran): the usage derived as `session.usage_info` and the request's
 * usage before the reply (Copilot's order: src/server/usage-order.ts), then Copilot's
 * `assistant.idle` and `session.idle`.
 */
export const LIVE_UNSTREAMED_PROMPT = [
  "user.message",
  "assistant.turn_start",
  "session.usage_info",
  "assistant.usage",
  "assistant.message",
  "assistant.turn_end",
  "assistant.idle",
  "session.idle",
] as const;

/**
 * What subscribers see live (ephemeral events included) of a model turn's one tool call, from its
 * announcement to the turn's end: `assistant.tool_call_start` … `tool.execution_running` ….
 */
export const LIVE_TOOL_CALL = [
  "assistant.tool_call_start",
  "assistant.message",
  "assistant.usage",
  "tool.execution_start",
  "tool.execution_running",
  "tool.execution_complete",
  "assistant.turn_end",
] as const;

/** What subscribers see live of a model turn that answers with streamed text. */
export const LIVE_ANSWER_TURN = [
  "assistant.turn_start",
  "assistant.message_delta",
  "assistant.message",
  "assistant.usage",
  "assistant.turn_end",
] as const;

/**
 * A model's request of one tool call as a turn's events show it (ids as `shape` in
 * test/support/harness.ts names them): the call's announcement, then the message that holds it,
 * without text, finished for `tool-calls`.
 */
export function requestedToolCall(
  messageId: string,
  toolCallId: string,
  toolName: string,
  input: Record<string, unknown>,
) {
  return [
    { type: "assistant.tool_call_start", data: { messageId, toolCallId, toolName } },
    {
      type: "assistant.message",
      data: {
        messageId,
        content: "",
        toolRequests: [{ toolCallId, name: toolName, arguments: input }],
        finishReason: "tool-calls",
      },
    },
  ];
}

/** Just the event types, for a compact whole-sequence assertion. */
export function types(events: readonly { type: string }[]): string[] {
  return events.map((event) => event.type);
}
