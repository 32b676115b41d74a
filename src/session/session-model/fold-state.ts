/** The fold's state: the model being built and the indexes that find its parts. */

import { UsageTotals } from "../usage-totals.js";
import type { ToolCall } from "./tool-call.js";
import { ToolCalls } from "./tool-calls.js";
import type { Change, Mark, Message, SessionModel, Turn } from "./types.js";

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

  mark(mark: Mark): Change {
    this.model.marks.push(mark);
    return { kind: "mark", mark };
  }
}
