/**
 * Whether the prompt a log is answering was left without an end (README, "Where sessions are
 * kept"): a process killed between two turns of a prompt (after one turn's end, before the next
 * turn's start: while it waited to retry, ran the hooks between turns, …) left no turn open for a
 * reopen to close, so nothing in the log ended that prompt. The rule is the session model's
 * (session-model/fold-state.ts: the stop recorded first stands; an older log's stop is inferred
 * from its last conversation turn's finish reason or a `task_complete`), so that what the reopen
 * ends is exactly what every view would show running.
 */

import type { FinishReason, SessionEvent } from "../events/events.js";

/** The finish reasons that imply an older log's stop (fold-state.ts `STOP_BY_FINISH`). */
const STOPPING_FINISHES: ReadonlySet<FinishReason> = new Set(["stop", "length", "content-filter"]);

/** The prompt being answered, folded an event at a time: whether it has an end. */
export class OpenPrompt {
  /** A prompt (a `user.message` of source `user`) was given. */
  #given = false;
  /** Its stop was recorded (a turn end's `stopReason`, an interrupted turn, `abort`, `session.error`). */
  #recorded = false;
  /** Its stop is inferred (an older log): from the last conversation turn, or `task_complete`. */
  #inferred = false;
  #taskCompleted = false;
  /** The purpose of each turn started, by `turnId` (a compaction's or a title's never decides). */
  readonly #purposes = new Map<string, string | undefined>();

  /** Whether a prompt was given and nothing in the log ended it. */
  get open(): boolean {
    return this.#given && !this.#recorded && !this.#inferred;
  }

  /** Folds one event of the log. */
  apply(event: SessionEvent): void {
    switch (event.type) {
      case "user.message":
        // A prompt: not an autopilot nudge, which continues one, nor a hook's context (an SDK
        // app's `sessionStart` writes one before the first prompt, then the session is idle).
        if (event.data.source === "user") {
          this.#given = true;
          this.#recorded = false;
          this.#inferred = false;
          this.#taskCompleted = false;
        }
        return;
      case "assistant.turn_start":
        this.#purposes.set(event.data.turnId, event.data.purpose);
        return;
      case "assistant.turn_end": {
        const { turnId, stopReason, status, finishReason } = event.data;
        const purpose = this.#purposes.get(turnId);
        this.#purposes.delete(turnId);
        if (stopReason !== undefined || (purpose === undefined && status === "interrupted")) {
          this.#recorded = true;
        } else if (purpose === undefined) {
          const byFinish = finishReason !== undefined && STOPPING_FINISHES.has(finishReason);
          this.#inferred = status === "cancelled" || byFinish || this.#taskCompleted;
        }
        return;
      }
      case "session.task_complete":
        this.#taskCompleted = true;
        this.#inferred = true;
        return;
      case "abort":
      case "session.error":
        this.#recorded = true;
        return;
      default:
        return;
    }
  }

  /** Forgets everything folded (a rewound conversation is folded again). */
  clear(): void {
    this.#given = false;
    this.#recorded = false;
    this.#inferred = false;
    this.#taskCompleted = false;
    this.#purposes.clear();
  }
}
