/** The fold's state: the model being built and the indexes that find its parts. */

import { attachedFileNames } from "../prompt-attachments.js";
import { UsageTotals } from "../usage-totals.js";
import { type PromptEvent, PromptStops } from "./prompt-stops.js";
import type { ToolCall } from "./tool-call.js";
import { ToolCalls } from "./tool-calls.js";
import type { Change, Mark, Message, Prompt, SessionModel, Turn } from "./types.js";

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

  /** The prompt being answered and its stop: the one rule (prompt-stops.ts). */
  readonly stops = new PromptStops<Prompt>();

  /** The prompt a stop belongs to: the latest one not an autopilot nudge (which continues it). */
  get answeredPrompt(): Prompt | undefined {
    return this.stops.answered;
  }

  /** Whether no prompt is being answered (prompt-stops.ts `PromptStops.betweenPrompts`). */
  get betweenPrompts(): boolean {
    return this.stops.betweenPrompts;
  }

  /**
   * The prompt of `event` at time `at`, added to the model: a `user.message`'s, or, for a
   * conversation turn starting while no prompt is being answered, one standing for the
   * `user.message` before it that was lost with a damaged line (types.ts `Prompt.lost`): its
   * `eventId` is the `assistant.turn_start`'s, so that the turn answers a prompt and every view
   * says what happened.
   */
  newPrompt(event: PromptEvent, at: number): Prompt {
    const prompt: Prompt =
      event.type === "user.message"
        ? {
            eventId: event.id,
            at,
            content: event.data.content,
            source: event.data.source,
            imageCount: event.data.images?.length ?? 0,
            attachedFiles: attachedFileNames(event.data),
          }
        : {
            eventId: event.id,
            at,
            content: "",
            source: "user",
            imageCount: 0,
            attachedFiles: [],
            lost: true,
          };
    this.model.prompts.push(prompt);
    return prompt;
  }

  mark(mark: Mark): Change {
    this.model.marks.push(mark);
    return { kind: "mark", mark };
  }
}
