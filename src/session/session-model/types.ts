/** The shapes of the session model (the fold: session-model.ts). Times in ms since the epoch. */

import type {
  ErrorType,
  FinishReason,
  PlanEntry,
  StopReason,
  TurnPurpose,
  UserMessageSource,
} from "../../events/events.js";
import type { UsageTotals } from "../usage-totals.js";
import type { ToolCall } from "./tool-call.js";

/** One `user.message`: a prompt, or autopilot's nudge, or a hook's message. */
export interface Prompt {
  eventId: string;
  at: number;
  content: string;
  source: UserMessageSource;
  imageCount: number;
  /**
   * The `@file`s it attached, by their paths as shown (prompt-attachments.ts
   * `attachedFileNames`): every view names them under the prompt (`attachedFilesLine`).
   */
  attachedFiles: string[];
  /**
   * Set on a prompt the log lost: a conversation turn started while no prompt was being answered
   * (none given yet, or the latest one had recorded its stop), so the `user.message` before it was
   * on a damaged line the reader skipped (event-log-reading.ts). Its `content` is empty and its
   * `eventId` is the `assistant.turn_start`'s; every view says it was lost with a damaged line.
   */
  lost?: true;
  /**
   * How the loop answering it stopped ({@link PromptStop}), on the prompt the user (or a hook)
   * gave; an autopilot nudge continues that prompt and never holds a stop. `undefined` while it
   * runs, and for an older log that does not say it.
   */
  stop?: PromptStop;
}

/**
 * How a prompt stopped, the one answer every reader gives (DESIGN.md, "One fold"): the
 * `stopReason` its loop recorded on the `assistant.turn_end` after which it stopped (ACP v1's
 * names, `max_turn_requests` for `--max-turns`) or a live `session.idle`'s; `cancelled` at its
 * `abort`; `error` at its `session.error`; `interrupted` when its process ended mid-turn and a
 * reopen closed the turn (session/open-work.ts). A log of an earlier version, whose turn ends
 * carry no `stopReason`, gets the stop its last conversation turn's finish reason implies
 * (`stop` → `end_turn`, `length` → `max_tokens`, `content-filter` → `refusal`; a
 * `task_complete` → `end_turn`); a turn the loop made for itself (a compaction, a title) never
 * decides it.
 */
export type PromptStop = StopReason | "error" | "interrupted";

/** One model request. `failed` stands for the `error` older logs wrote; `interrupted`: its process ended first. */
export interface Turn {
  turnId: string;
  /**
   * The turn it is, 1-based in the session, by the rule every face counts turns by
   * (usage-totals.ts): a failed attempt sent again is no turn of its own, so the request that
   * retries it has its number.
   */
  number: number;
  /** 1-based: which request of turn {@link number} it is (2 and on: a retry of the one before). */
  attempt: number;
  purpose?: TurnPurpose;
  /**
   * The request of a compaction the user started between prompts ({@link
   * Compaction.betweenPrompts}): it answers no prompt, though {@link prompt} is the one before.
   */
  betweenPrompts?: true;
  status: "running" | "completed" | "cancelled" | "failed" | "interrupted";
  startedAt: number;
  endedAt?: number;
  finishReason?: FinishReason;
  errorType?: ErrorType;
  /** Index in {@link SessionModel.prompts} of the prompt the turn answers; -1 before any. */
  prompt: number;
}

/** One reply of the model (`assistant.message`), or the deltas of one still streaming. */
export interface Message {
  messageId: string;
  /** The turn that was open when the reply came, when one was. */
  turnId?: string;
  content: string;
  reasoning: string;
  toolCallIds: string[];
  /** `streaming` until the whole reply (`assistant.message`) arrives. */
  state: "streaming" | "complete" | "interrupted";
  error?: { errorType: ErrorType; message: string };
}

/** A compaction of the model's view, from its start/complete pair. */
export interface Compaction {
  startedAt?: number;
  endedAt?: number;
  trigger: string;
  /**
   * Started by the user between prompts (trigger `manual`: `turnloop sessions compact`,
   * `/compact` or an app's `session.history.compact`, which the log does not tell apart;
   * session.ts `compact` refuses while a prompt runs), not by a prompt's loop.
   */
  betweenPrompts: boolean;
  success?: boolean;
  tokensBefore?: number;
  tokensAfter?: number;
  messagesRemoved?: number;
  summary?: string;
  error?: string;
}

/** Something that happened that is not a message or a tool call. */
export type Mark =
  | {
      kind: "retry";
      at: number;
      turnId: string;
      attempt: number;
      message: string;
      delayMs: number;
      statusCode?: number;
    }
  | { kind: "error"; at: number; errorType: ErrorType; message: string }
  | { kind: "abort"; at: number; reason: string }
  | { kind: "autopilot_stopped"; at: number; continues: number }
  | { kind: "task_complete"; at: number; summary: string }
  | { kind: "warning"; at: number; warningType: string; message: string }
  | { kind: "info"; at: number; message: string }
  | { kind: "resume"; at: number; damagedLines: number; notice?: string }
  | { kind: "mcp_server_failed"; at: number; serverName: string; error?: string };

/** One entry of the plan, with its 1-based position: a checklist line as is. */
export interface PlanItem extends PlanEntry {
  position: number;
}

/** Everything faces show about a session, folded from its events. */
export interface SessionModel {
  sessionId?: string;
  cwd?: string;
  /** The model of `session.start`, then of each `session.model_change`. */
  model?: string;
  prompts: Prompt[];
  turns: Turn[];
  messages: Message[];
  /** In the order the calls were first seen. */
  toolCalls: ToolCall[];
  /** The latest plan (empty before any). */
  plan: PlanItem[];
  usage: UsageTotals;
  compactions: Compaction[];
  marks: Mark[];
  /** Instruction files in the system prompt, as last recorded. */
  instructionFiles: string[];
}

/** What one event changed, for live faces to redraw only that. */
export type Change =
  | { kind: "none" }
  /** `session.start` / `session.resume` (with its mark). */
  | { kind: "opened"; abandoned: ToolCall[]; mark?: Mark }
  | { kind: "prompt"; prompt: Prompt }
  /** `turn` is undefined for a `turn_end` whose start is not in the log. */
  | { kind: "turn"; turn: Turn | undefined; abandoned: ToolCall[] }
  | { kind: "message"; message: Message; toolCalls: ToolCall[]; abandoned: ToolCall[] }
  | { kind: "tool_call"; toolCall: ToolCall }
  | { kind: "plan" }
  | { kind: "usage" }
  | { kind: "compaction"; compaction: Compaction }
  | { kind: "mark"; mark: Mark };
