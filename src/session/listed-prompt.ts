/**
 * Whether a session's last prompt has an end, as its listing metadata keeps it (session-metadata.ts
 * `LogScan.prompt`): the session model's stop rule (session-model/prompt-stops.ts, what every view
 * shows without a stop and what a reopen ends) folded over the log an event at a time, its state
 * kept as plain data between the pieces of the log a listing scans.
 */

import type { SessionEvent } from "../events/events.js";
import {
  PromptStops,
  type PromptStopsState,
  type StoppablePrompt,
} from "./session-model/prompt-stops.js";

/** The events {@link PromptStops.apply} reads; the others leave its state as it is. */
const PROMPT_STOP_EVENTS: ReadonlySet<SessionEvent["type"]> = new Set<SessionEvent["type"]>([
  "user.message",
  "assistant.turn_start",
  "assistant.turn_end",
  "session.task_complete",
  "session.error",
  "abort",
  "session.idle",
]);

/** `state` (`null`: nothing folded yet) with `event` folded in. */
export function foldPrompt(
  state: PromptStopsState | null,
  event: SessionEvent,
): PromptStopsState | null {
  if (!PROMPT_STOP_EVENTS.has(event.type)) {
    return state;
  }
  const stops = state === null ? new PromptStops<StoppablePrompt>() : PromptStops.from(state);
  // A turn starting between prompts answers one the log lost: a user's (fold-state.ts).
  stops.apply(event, (given) => ({
    source: given.type === "user.message" ? given.data.source : "user",
  }));
  return stops.state;
}

/** Whether a prompt is being answered that nothing in the log ended (`PromptStops.open`). */
export function promptOpen(state: PromptStopsState | null): boolean {
  return state !== null && PromptStops.from(state).open;
}

/** Whether `value`, read from a stored file, is a {@link PromptStopsState} (or `null`). */
export function isPromptState(value: unknown): value is PromptStopsState | null {
  if (value === null) {
    return true;
  }
  if (typeof value !== "object") {
    return false;
  }
  const state = value as Partial<Record<keyof PromptStopsState, unknown>>;
  const answered = state.answered as Partial<StoppablePrompt> | null | undefined;
  return (
    (answered === null ||
      (typeof answered === "object" &&
        typeof answered.source === "string" &&
        (answered.stop === undefined || typeof answered.stop === "string"))) &&
    [state.stopRecorded, state.taskCompleted, state.answeredByTurn].every(
      (flag) => typeof flag === "boolean",
    ) &&
    Array.isArray(state.turns) &&
    state.turns.every(
      (turn) =>
        Array.isArray(turn) &&
        typeof turn[0] === "string" &&
        (turn[1] === null || typeof turn[1] === "string"),
    )
  );
}
