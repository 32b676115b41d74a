/**
 * Turns and compactions a log leaves open (README, "Where sessions are kept"): a process killed
 * while the model replied, or while it summarised the conversation, wrote `assistant.turn_start`
 * or `session.compaction_start` and never their end. Reopening the session closes them as
 * interrupted, after the interrupted results of its open tool calls (interrupted-results.ts), so
 * that every reader sees the prompt over and the model is told its reply was cut off.
 */

import type { EventInput, SessionEvent, SessionEventData, ToolRequest } from "../events/events.js";
import { interruptedResults } from "./interrupted-results.js";
import type { ClosedWork } from "./repair-notice.js";

/** What the closing events say of work a process that ended left open. */
const INTERRUPTED = "interrupted: the process running it ended before it finished";

/** The turns and the compaction of a log not ended yet, folded an event at a time. */
export class OpenWork {
  /** Open turns by `turnId`, in the order they started. */
  readonly #turns = new Map<string, SessionEventData["assistant.turn_start"]>();
  #compaction: SessionEventData["session.compaction_start"] | undefined;

  /** Folds one event of the log. */
  apply(event: SessionEvent): void {
    switch (event.type) {
      case "assistant.turn_start":
        this.#turns.set(event.data.turnId, event.data);
        return;
      case "assistant.turn_end":
        this.#turns.delete(event.data.turnId);
        return;
      case "session.compaction_start":
        this.#compaction = event.data;
        return;
      case "session.compaction_complete":
        this.#compaction = undefined;
        return;
      default:
        return;
    }
  }

  /** Forgets everything folded (a rewound conversation is folded again). */
  clear(): void {
    this.#turns.clear();
    this.#compaction = undefined;
  }

  /** What {@link closingEvents} closes, with `toolCalls` calls left without a result. */
  closed(toolCalls: number): ClosedWork {
    return { toolCalls, turns: this.#turns.size, compactions: this.#compaction ? 1 : 0 };
  }

  /**
   * The events that close what is open, in the order the loop would have written them: an
   * interrupted result for each call of `pendingCalls`, then an `assistant.turn_end` with status
   * `interrupted` for each open turn, then a failed `session.compaction_complete`.
   */
  closingEvents(pendingCalls: readonly ToolRequest[]): EventInput[] {
    const turnEnds: EventInput[] = [...this.#turns.keys()].map((turnId) => ({
      type: "assistant.turn_end",
      data: { turnId, status: "interrupted" },
    }));
    const compaction = this.#compaction;
    const compactionEnd: EventInput[] =
      compaction === undefined
        ? []
        : [
            {
              type: "session.compaction_complete",
              data: {
                success: false,
                trigger: compaction.trigger,
                preCompactionTokens: compaction.currentTokens,
                error: INTERRUPTED,
              },
            },
          ];
    return [...interruptedResults(pendingCalls), ...turnEnds, ...compactionEnd];
  }
}
