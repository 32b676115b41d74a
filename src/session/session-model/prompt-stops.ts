/**
 * The session model's stop rule (DESIGN.md, "One fold"): which prompt is being answered and how it
 * stopped, as the log says it (types.ts {@link PromptStop}). The fold (fold-state.ts) keeps its
 * prompts' stops by it, and a reopen (open-work.ts) asks it whether the prompt being answered has
 * no end, so that what a reopen ends is exactly what every view shows without a stop.
 */

import type {
  FinishReason,
  SessionEvent,
  SessionEventData,
  SessionEventOf,
  TurnPurpose,
  UserMessageSource,
} from "../../events/events.js";
import { isPromptInterrupted } from "../interrupted-work.js";
import type { PromptStop } from "./types.js";

/** The stop an older log's last conversation turn implies by its finish reason (types.ts PromptStop). */
const STOP_BY_FINISH: Partial<Record<FinishReason, PromptStop>> = {
  stop: "end_turn",
  length: "max_tokens",
  "content-filter": "refusal",
};

/** What the rule needs of a prompt: who gave it, and its stop once known. */
export interface StoppablePrompt {
  source: UserMessageSource;
  stop?: PromptStop;
}

/**
 * {@link PromptStops}' state as plain JSON data, for a reader that folds a log in pieces and keeps
 * what it folded in between (session-metadata.ts: a listing's `metadata.json`).
 */
export interface PromptStopsState {
  /** The prompt being answered (who gave it, its stop once known); `null` before any. */
  answered: StoppablePrompt | null;
  stopRecorded: boolean;
  taskCompleted: boolean;
  answeredByTurn: boolean;
  /** The turns started and not ended, `[turnId, purpose]` (`null`: a conversation turn). */
  turns: Array<[string, TurnPurpose | null]>;
}

/**
 * The event a prompt is made for: its `user.message` (not an autopilot nudge), or the
 * conversation turn that answers a prompt the log lost with a damaged line ({@link PromptStops.apply}).
 */
export type PromptEvent = SessionEventOf<"user.message"> | SessionEventOf<"assistant.turn_start">;

/** The prompt being answered and its stop, folded an event at a time. */
export class PromptStops<P extends StoppablePrompt> {
  /** The latest prompt that is not an autopilot nudge (which continues it). */
  #answered: P | undefined;
  /** Whether its stop was recorded (not inferred): it stopped once. */
  #stopRecorded = false;
  /** Whether it called `task_complete` (an older log's `end_turn`). */
  #taskCompleted = false;
  /** Whether a conversation turn answered it (an app's `sessionStart` context has none). */
  #answeredByTurn = false;
  /** The purpose of each turn started and not ended, by `turnId` (a compaction's never decides). */
  readonly #purposes = new Map<string, TurnPurpose | undefined>();

  /** The prompt a stop belongs to: the latest one not an autopilot nudge. */
  get answered(): P | undefined {
    return this.#answered;
  }

  /**
   * Whether no prompt is being answered: none was given yet, or the latest one recorded its stop
   * (a stop an older log's finish reason implies does not count, since an autopilot nudge may
   * follow it). A conversation turn starting then answers a prompt the log lost.
   */
  get betweenPrompts(): boolean {
    return this.#answered === undefined || this.#stopRecorded;
  }

  /**
   * Whether a prompt is being answered that nothing in the log ended: a user's (or one the log
   * lost), or a hook's that a conversation turn answered (an `agentStop` follow-up; a
   * `sessionStart` context no turn answers is no prompt waiting for an end).
   */
  get open(): boolean {
    const prompt = this.#answered;
    if (prompt === undefined || prompt.stop !== undefined) {
      return false;
    }
    return prompt.source === "user" || this.#answeredByTurn;
  }

  /**
   * Folds one event. `promptFor` makes the prompt of a `user.message` that is not a nudge, and of
   * a conversation turn starting between prompts (its `user.message` was lost).
   */
  apply(event: SessionEvent, promptFor: (event: PromptEvent) => P): void {
    switch (event.type) {
      case "user.message":
        if (event.data.source !== "autopilot") {
          this.#given(promptFor(event));
        }
        return;
      case "assistant.turn_start":
        this.#purposes.set(event.data.turnId, event.data.purpose);
        if (event.data.purpose === undefined) {
          if (this.betweenPrompts) {
            this.#given(promptFor(event));
          }
          this.#answeredByTurn = true;
        }
        return;
      case "assistant.turn_end":
        this.#turnEnded(event.data);
        return;
      case "session.task_complete":
        this.#taskComplete();
        return;
      case "session.error":
        // A reopen's end of a prompt its process left between two turns (open-work.ts).
        this.#recordStop(isPromptInterrupted(event.data) ? "interrupted" : "error");
        return;
      case "abort":
        this.#recordStop("cancelled");
        return;
      case "session.idle":
        if (event.data.stopReason !== undefined) {
          this.#recordStop(event.data.stopReason);
        }
        return;
      default:
        return;
    }
  }

  /** What it folded, as plain data ({@link PromptStopsState}: `P`'s other fields left out). */
  get state(): PromptStopsState {
    const answered = this.#answered;
    return {
      answered:
        answered === undefined
          ? null
          : {
              source: answered.source,
              ...(answered.stop === undefined ? {} : { stop: answered.stop }),
            },
      stopRecorded: this.#stopRecorded,
      taskCompleted: this.#taskCompleted,
      answeredByTurn: this.#answeredByTurn,
      turns: Array.from(this.#purposes, ([turnId, purpose]) => [turnId, purpose ?? null]),
    };
  }

  /** A fold that goes on from `state` (what {@link state} gave). */
  static from(state: PromptStopsState): PromptStops<StoppablePrompt> {
    const stops = new PromptStops<StoppablePrompt>();
    stops.#answered = state.answered === null ? undefined : { ...state.answered };
    stops.#stopRecorded = state.stopRecorded;
    stops.#taskCompleted = state.taskCompleted;
    stops.#answeredByTurn = state.answeredByTurn;
    for (const [turnId, purpose] of state.turns) {
      stops.#purposes.set(turnId, purpose ?? undefined);
    }
    return stops;
  }

  /** Forgets everything folded (a rewound conversation is folded again). */
  clear(): void {
    this.#answered = undefined;
    this.#stopRecorded = false;
    this.#taskCompleted = false;
    this.#answeredByTurn = false;
    this.#purposes.clear();
  }

  /** A new prompt (not a nudge) is being answered: nothing is known of its stop. */
  #given(prompt: P): void {
    this.#answered = prompt;
    this.#stopRecorded = false;
    this.#taskCompleted = false;
    this.#answeredByTurn = false;
  }

  /**
   * Records how the prompt being answered stopped, as the log says it (a turn end's
   * `stopReason`, an `abort`, a `session.error`, a reopen's `interrupted`, a live idle): the
   * first recorded stop stands; an inferred one never replaces it.
   */
  #recordStop(stop: PromptStop): void {
    const prompt = this.#answered;
    if (prompt === undefined || this.#stopRecorded) {
      return;
    }
    prompt.stop = stop;
    this.#stopRecorded = true;
  }

  /** `task_complete` was called: an older log's prompt then ended `end_turn`. */
  #taskComplete(): void {
    this.#taskCompleted = true;
    const prompt = this.#answered;
    if (prompt !== undefined && !this.#stopRecorded) {
      prompt.stop = "end_turn";
    }
  }

  /**
   * What a turn's end says of its prompt's stop. A turn whose start was lost (a damaged line)
   * still records the stop it carries.
   */
  #turnEnded(data: SessionEventData["assistant.turn_end"]): void {
    const started = this.#purposes.has(data.turnId);
    const purpose = this.#purposes.get(data.turnId);
    this.#purposes.delete(data.turnId);
    if (data.stopReason !== undefined) {
      this.#recordStop(data.stopReason);
    } else if (!started) {
      return;
    } else if (purpose === undefined && data.status === "interrupted") {
      this.#recordStop("interrupted");
    } else if (purpose === undefined) {
      this.#inferStop(data.finishReason, data.status === "cancelled");
    }
  }

  /**
   * An older log's conversation turn ended without a recorded stop: the prompt's stop is what
   * its finish reason implies, until a later turn says otherwise.
   */
  #inferStop(finishReason: FinishReason | undefined, cancelled: boolean): void {
    const prompt = this.#answered;
    if (prompt === undefined || this.#stopRecorded) {
      return;
    }
    const byFinish = cancelled ? "cancelled" : STOP_BY_FINISH[finishReason ?? "other"];
    const stop = byFinish ?? (this.#taskCompleted ? "end_turn" : undefined);
    if (stop === undefined) {
      delete prompt.stop;
    } else {
      prompt.stop = stop;
    }
  }
}
