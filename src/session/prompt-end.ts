/**
 * Where a prompt's persisted events end, for a face following a session another worker runs
 * (issue 22): the owner's `session.idle` is ephemeral and never stored, so a follower finds the end
 * of a prompt in the stored events themselves.
 */

import type { StopReason } from "../events/event-parts.js";
import type { SessionEvent, SessionEventData } from "../events/events.js";

/** How a prompt ended: a stop reason (ACP's names), or the error it failed with. */
export type PromptEnd = { stopReason: StopReason } | { error: SessionEventData["session.error"] };

/**
 * How the prompt ended when `event` (persisted) is its last: a turn that completed without asking
 * for tools (`end_turn`; `max_tokens` when the model was cut off by its length limit, `refusal`
 * when filtered), an `abort` (`cancelled`) or a `session.error`.
 * @returns `undefined` when the prompt goes on after `event`.
 */
export function promptEnd(event: SessionEvent): PromptEnd | undefined {
  switch (event.type) {
    case "assistant.turn_end": {
      const { status, finishReason } = event.data;
      if (status !== "completed" || finishReason === "tool-calls") {
        return undefined;
      }
      if (finishReason === "length") {
        return { stopReason: "max_tokens" };
      }
      return { stopReason: finishReason === "content-filter" ? "refusal" : "end_turn" };
    }
    case "abort":
      return { stopReason: "cancelled" };
    case "session.error":
      return { error: event.data };
    default:
      return undefined;
  }
}
