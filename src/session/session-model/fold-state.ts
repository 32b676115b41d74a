/** The fold's state: the model being built and the indexes that find its parts. */

import type { FinishReason, SessionEventData } from "../../events/events.js";
import { UsageTotals } from "../usage-totals.js";
import type { ToolCall } from "./tool-call.js";
import { ToolCalls } from "./tool-calls.js";
import type { Change, Mark, Message, Prompt, PromptStop, SessionModel, Turn } from "./types.js";

/** The stop an older log's last conversation turn implies by its finish reason (types.ts PromptStop). */
const STOP_BY_FINISH: Partial<Record<FinishReason, PromptStop>> = {
  stop: "end_turn",
  length: "max_tokens",
  "content-filter": "refusal",
};

/** The fold's state between two events. */
export class FoldState {
  readonly model: SessionModel = {
    prompts: [],
    turns: [],
    messages: [],
    toolCalls: [],
    plan: [],
    usage: new UsageTotals(),
    compactions: [],
    marks: [],
    instructionFiles: [],
  };
  readonly calls = new ToolCalls();
  readonly turnsById = new Map<string, Turn>();
  readonly messagesById = new Map<string, Message>();

  constructor() {
    this.model.toolCalls = this.calls.all;
  }

  toolCall(toolCallId: string): ToolCall | undefined {
    return this.calls.get(toolCallId);
  }

  /** The turn still running, if any (the latest one). */
  get openTurn(): Turn | undefined {
    const turn = this.model.turns.at(-1);
    return turn?.status === "running" ? turn : undefined;
  }

  /** The message `messageId`, created streaming when first seen. */
  message(messageId: string): Message {
    let message = this.messagesById.get(messageId);
    if (message === undefined) {
      message = { messageId, content: "", reasoning: "", toolCallIds: [], state: "streaming" };
      const turnId = this.openTurn?.turnId;
      if (turnId !== undefined) {
        message.turnId = turnId;
      }
      this.messagesById.set(messageId, message);
      this.model.messages.push(message);
    }
    return message;
  }

  /** Whether the stop of the prompt being answered was recorded (not inferred): it stopped once. */
  private stopRecorded = false;
  /** Whether the prompt being answered called `task_complete` (an older log's `end_turn`). */
  private taskCompleted = false;

  /** The prompt a stop belongs to: the latest one not an autopilot nudge (which continues it). */
  get answeredPrompt(): Prompt | undefined {
    return this.model.prompts.findLast((prompt) => prompt.source !== "autopilot");
  }

  /**
   * Whether no prompt is being answered: none was given yet, or the latest one (not a nudge)
   * recorded its stop ({@link recordStop}; a stop an older log's finish reason implies does not
   * count, since an autopilot nudge may follow it). A conversation turn starting then answers a
   * prompt the log lost ({@link promptLost}).
   */
  get betweenPrompts(): boolean {
    return this.answeredPrompt === undefined || this.stopRecorded;
  }

  /**
   * The `user.message` before the conversation turn starting at `at` (`eventId`: its
   * `assistant.turn_start`) was lost with a damaged line: a prompt stands for it (types.ts
   * `Prompt.lost`), so that the turn answers a prompt and every view says what happened.
   */
  promptLost(eventId: string, at: number): Prompt {
    const prompt: Prompt = {
      eventId,
      at,
      content: "",
      source: "user",
      imageCount: 0,
      attachedFiles: [],
      lost: true,
    };
    this.model.prompts.push(prompt);
    this.promptGiven();
    return prompt;
  }

  /** A new prompt (not a nudge) is being answered: nothing is known of its stop. */
  promptGiven(): void {
    this.stopRecorded = false;
    this.taskCompleted = false;
  }

  /**
   * Records how the prompt being answered stopped, as the log says it (a turn end's
   * `stopReason`, an `abort`, a `session.error`, a reopen's `interrupted`, a live idle): the
   * first recorded stop stands; an inferred one never replaces it.
   */
  recordStop(stop: PromptStop): void {
    const prompt = this.answeredPrompt;
    if (prompt === undefined || this.stopRecorded) {
      return;
    }
    prompt.stop = stop;
    this.stopRecorded = true;
  }

  /** `task_complete` was called: an older log's prompt then ended `end_turn`. */
  taskComplete(): void {
    this.taskCompleted = true;
    const prompt = this.answeredPrompt;
    if (prompt !== undefined && !this.stopRecorded) {
      prompt.stop = "end_turn";
    }
  }

  /** What a turn's end says of its prompt's stop (types.ts {@link PromptStop}). */
  turnEnded(turn: Turn, data: SessionEventData["assistant.turn_end"]): void {
    if (data.stopReason !== undefined) {
      this.recordStop(data.stopReason);
    } else if (turn.purpose === undefined && data.status === "interrupted") {
      this.recordStop("interrupted");
    } else if (turn.purpose === undefined) {
      this.inferStop(data.finishReason, data.status === "cancelled");
    }
  }

  /**
   * An older log's conversation turn ended without a recorded stop: the prompt's stop is what
   * its finish reason implies, until a later turn says otherwise.
   */
  private inferStop(finishReason: FinishReason | undefined, cancelled: boolean): void {
    const prompt = this.answeredPrompt;
    if (prompt === undefined || this.stopRecorded) {
      return;
    }
    const byFinish = cancelled ? "cancelled" : STOP_BY_FINISH[finishReason ?? "other"];
    const stop = byFinish ?? (this.taskCompleted ? "end_turn" : undefined);
    if (stop === undefined) {
      delete prompt.stop;
    } else {
      prompt.stop = stop;
    }
  }

  mark(mark: Mark): Change {
    this.model.marks.push(mark);
    return { kind: "mark", mark };
  }
}
