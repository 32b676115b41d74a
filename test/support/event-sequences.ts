/**
 * The persisted event types of the common model turns, for whole-log assertions:
 * `expect(types).toEqual(["session.start", "user.message", ...TOOL_TURN, ...ANSWER_TURN])`.
 */

/** A model turn that calls one tool: the call's start and result come before the turn's end. */
export const TOOL_TURN = [
  "assistant.turn_start",
  "assistant.message",
  "assistant.usage",
  "tool.execution_start",
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
