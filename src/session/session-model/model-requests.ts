/**
 * How the model requests' events change the session model: `assistant.turn_start`,
 * `assistant.turn_end` and `assistant.usage` (apply-event.ts dispatches them).
 */

import type { SessionEvent } from "../../events/events.js";
import type { FoldState } from "./fold-state.js";
import type { Change, Turn } from "./types.js";

/**
 * A model request begins; every request counts in the usage (usage-totals.ts), and it takes the
 * number of the turn it is by that rule: a request after a retried failure has that turn's number.
 * A conversation request while no prompt is being answered answers one the log lost (the stop
 * rule made it before: prompt-stops.ts).
 */
export function turnStart(
  state: FoldState,
  event: Extract<SessionEvent, { type: "assistant.turn_start" }>,
  at: number,
): Change {
  state.model.usage.apply(event);
  const data = event.data;
  const number = state.model.usage.turns;
  const previous = state.model.turns.at(-1);
  const compaction = state.model.compactions.at(-1);
  // A compaction's request comes after its start (agent/compaction.ts), before its end.
  const betweenPrompts =
    data.purpose === "compaction" &&
    compaction?.betweenPrompts === true &&
    compaction.endedAt === undefined;
  const turn: Turn = {
    turnId: data.turnId,
    number,
    attempt: previous?.number === number ? previous.attempt + 1 : 1,
    status: "running" as const,
    startedAt: at,
    prompt: state.model.prompts.length - 1,
    ...(data.purpose === undefined ? {} : { purpose: data.purpose }),
    ...(betweenPrompts ? { betweenPrompts: true as const } : {}),
  };
  state.model.turns.push(turn);
  state.turnsById.set(turn.turnId, turn);
  return { kind: "turn", turn, abandoned: [] };
}

/** A model request ends: its status, finish reason and error type; a stop it records stands. */
export function turnEnd(
  state: FoldState,
  event: Extract<SessionEvent, { type: "assistant.turn_end" }>,
  at: number,
): Change {
  state.model.usage.apply(event);
  const data = event.data;
  const abandoned = state.calls.abandonAnnounced(at);
  const turn = state.turnsById.get(data.turnId);
  if (turn === undefined) {
    // Its `assistant.turn_start` was lost (a damaged line): the stop it records still stands
    // (prompt-stops.ts).
    return { kind: "turn", turn, abandoned };
  }
  turn.status = data.status === "error" ? "failed" : data.status;
  turn.endedAt = at;
  if (data.finishReason !== undefined) {
    turn.finishReason = data.finishReason;
  }
  if (data.errorType !== undefined) {
    turn.errorType = data.errorType;
  }
  return { kind: "turn", turn, abandoned };
}

/** `assistant.usage`: the request's tokens and cost, summed in the usage (usage-totals.ts). */
export function usage(
  state: FoldState,
  event: Extract<SessionEvent, { type: "assistant.usage" }>,
): Change {
  state.model.usage.apply(event);
  return { kind: "usage" };
}
