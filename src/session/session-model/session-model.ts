/**
 * The session model: the one fold of a session's events that every face renders from (DESIGN.md,
 * "One fold"). Live faces apply one event at a time ({@link SessionFold.apply} says what changed);
 * `sessions show` and `sessions view` fold a whole log ({@link foldSession}).
 *
 * Times are ms since the epoch, from the events' timestamps (an unparsable one keeps the time of
 * the event before it).
 */

import type { SessionEvent } from "../../events/events.js";
import { applyEvent } from "./apply-event.js";
import { FoldState } from "./fold-state.js";
import type { Change, SessionModel } from "./types.js";

export type { ToolCall, ToolCallOutcome, ToolCallStatus } from "./tool-call.js";
export { commandEnding, isFinished, lastLines, outsideSandboxWords } from "./tool-call.js";
export type * from "./types.js";

/**
 * What every view says of a compaction the user started between prompts (types.ts
 * `Compaction.betweenPrompts`) after `compaction · `: the ways to start one, which the log does not
 * tell apart, each passed through `code` (the Markdown export's backticks; as is by default).
 */
export function manualCompactionWords(code = (name: string) => name): string {
  const ways = `${code("turnloop sessions compact")}, ${code("/compact")}`;
  return `manual, between prompts: ${ways} or an app's ${code("session.history.compact")}`;
}

/** Folds events one at a time, in log order; {@link FoldState.model} is the result so far. */
export class SessionFold extends FoldState {
  private lastAt = 0;

  /** Folds one event and says what changed. Never throws on odd data. */
  apply(event: SessionEvent): Change {
    const parsed = Date.parse(event.timestamp);
    const at = Number.isNaN(parsed) ? this.lastAt : parsed;
    this.lastAt = at;
    return applyEvent(this, event, at);
  }
}

/** Folds a whole log. */
export function foldSession(events: Iterable<SessionEvent>): SessionModel {
  const fold = new SessionFold();
  for (const event of events) {
    fold.apply(event);
  }
  return fold.model;
}
