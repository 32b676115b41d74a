import type { EventInput, SessionEventData, StopReason } from "../../src/events/events.js";

/** The stored events that start and end prompts (prompt-end.test.ts, sent-prompts.test.ts). */

/** An `assistant.turn_end` of turn t1, completed, with `data`. */
export const turnEnd = (data: Partial<SessionEventData["assistant.turn_end"]>): EventInput => ({
  type: "assistant.turn_end",
  data: { turnId: "t1", status: "completed", ...data },
});
/** A user's `user.message` sent as prompt `promptId`. */
export const prompt = (content: string, promptId: string): EventInput => ({
  type: "user.message",
  data: { content, source: "user", promptId },
});
/** A `session.error`'s data: the model failed. */
export const failure = { errorType: "server", message: "the model is unavailable" } as const;
/** The end of turn `turnId`, with the stop reason the owner's loop stores on a prompt's last turn. */
export const ended = (
  turnId: string,
  finishReason: "stop" | "tool-calls" | "other" = "stop",
  stopReason?: StopReason,
) => turnEnd({ turnId, finishReason, ...(stopReason === undefined ? {} : { stopReason }) });
