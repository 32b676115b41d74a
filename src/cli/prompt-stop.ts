/**
 * How a prompt of a log ended, for `sessions show` (render.ts): what the log said of it, and the
 * stop it implies when no `session.idle` says it (a crash, the turn limit).
 */

import type { SessionEventOf, StopReason } from "../events/events.js";

/** What is known about the prompt being rendered, to close it with its stop. */
export interface PromptState {
  open: boolean;
  /** A `session.idle` was rendered: the stop is known, nothing to infer. */
  stopped: boolean;
  aborted: boolean;
  failed: boolean;
  taskCompleted: boolean;
  lastTurnEnd: SessionEventOf<"assistant.turn_end">["data"] | undefined;
}

/** The stop the log implies when no `session.idle` says it. */
export function inferStop(prompt: PromptState): StopReason | "error" | "interrupted" | undefined {
  if (prompt.lastTurnEnd?.status === "interrupted") {
    // Its process ended mid-turn; reopening the session closed the turn (session/open-work.ts).
    return "interrupted";
  }
  if (prompt.aborted || prompt.lastTurnEnd?.status === "cancelled") {
    return "cancelled";
  }
  if (
    prompt.failed ||
    prompt.lastTurnEnd?.status === "failed" ||
    prompt.lastTurnEnd?.status === "error"
  ) {
    return "error";
  }
  if (prompt.taskCompleted) {
    return "end_turn";
  }
  switch (prompt.lastTurnEnd?.finishReason) {
    case "stop":
      return "end_turn";
    case "length":
      return "max_tokens";
    case "content-filter":
      return "refusal";
    default:
      return undefined;
  }
}

export function closedPrompt(): PromptState {
  return {
    open: false,
    stopped: false,
    aborted: false,
    failed: false,
    taskCompleted: false,
    lastTurnEnd: undefined,
  };
}
