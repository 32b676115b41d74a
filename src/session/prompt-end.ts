/**
 * Where a prompt's persisted events end, for a face following a session another worker runs
 * (issue 22): the owner's `session.idle` is ephemeral and never stored, so a follower finds the end
 * of a prompt in the stored events themselves.
 */

import { decideNext } from "../agent/decide-next.js";
import type { ToolCallOutcome } from "../agent/tool-calls.js";
import type { FinishReason, StopReason, TurnPurpose } from "../events/event-parts.js";
import type { SessionEvent, SessionEventData, SessionEventOf } from "../events/events.js";
import { randomUUID } from "../events/random-id.js";
import type { AssistantReply } from "../llm/provider.js";
import type { PromptWithdrawal } from "./session-store.js";

/** How a prompt ended: a stop reason (ACP's names), or the error it failed with. */
export type PromptEnd = { stopReason: StopReason } | { error: SessionEventData["session.error"] };

/**
 * Reads where each prompt ends out of a session's stored events, given in log order (a follower
 * reads them as the owner stores them). A prompt ends where the owner's loop stopped, by the
 * loop's own rule (agent/decide-next.ts `decideNext`) applied to each turn of the conversation as
 * stored: its reply (`assistant.message`), its tool results (`tool.execution_complete`, a
 * `session.task_complete`) and how it ended (`assistant.turn_end`); or at an `abort`
 * (`cancelled`), a `session.error`, a `session.autopilot_stopped` (`end_turn`) or the repetition
 * guard's `session.warning` (`max_turn_requests`). A turn with a `purpose` (a compaction's
 * summary request) never ends a prompt; in autopilot (the prompt's `agentMode`, or a nudge read)
 * a reply without tool calls does not either (the nudge or `session.autopilot_stopped` follows).
 * What is not stored stays unknown: a prompt that stopped at `--max-turns` has no end here.
 */
export class PromptEnds {
  /** The turns started and not ended, innermost last. */
  readonly #open: StoredTurn[] = [];
  /** Whether the prompt runs in autopilot (a reply without tool calls is nudged). */
  #autopilot = false;
  /** Whether a rejected tool call ends the prompt (the SDK server's, whose prompts have an `agentMode`). */
  #endsAfterRejection = false;

  /** @returns how the prompt ended when `event` is its last stored event, else `undefined`. */
  read(event: SessionEvent): PromptEnd | undefined {
    switch (event.type) {
      case "user.message":
        this.#started(event.data);
        return undefined;
      case "assistant.turn_start":
        this.#open.push({ purpose: event.data.purpose, turnId: event.data.turnId, outcomes: [] });
        return undefined;
      case "assistant.message": {
        const turn = this.#open.at(-1);
        if (turn !== undefined) {
          turn.reply = { ...event.data, reasoningParts: [], toolCalls: event.data.toolRequests };
        }
        return undefined;
      }
      case "tool.execution_complete":
      case "session.task_complete":
        this.#conversationTurn()?.outcomes.push(outcomeOf(event));
        return undefined;
      case "assistant.turn_end":
        return this.#turnEnded(event.data);
      case "session.autopilot_stopped":
        return { stopReason: "end_turn" };
      case "session.warning":
        return event.data.warningType === "repetition"
          ? { stopReason: "max_turn_requests" }
          : undefined;
      case "abort":
        return { stopReason: "cancelled" };
      case "session.error":
        return { error: event.data };
      default:
        return undefined;
    }
  }

  #started(data: SessionEventData["user.message"]): void {
    if (data.source === "autopilot") {
      this.#autopilot = true;
      return;
    }
    this.#open.length = 0;
    this.#autopilot = data.agentMode === "autopilot";
    this.#endsAfterRejection = data.agentMode !== undefined;
  }

  /** The innermost open turn of the conversation (not a request the loop makes for itself). */
  #conversationTurn(): StoredTurn | undefined {
    return this.#open.findLast((turn) => turn.purpose === undefined);
  }

  #turnEnded(data: SessionEventData["assistant.turn_end"]): PromptEnd | undefined {
    const index = this.#open.findLastIndex((turn) => turn.turnId === data.turnId);
    const [turn] = index < 0 ? [] : this.#open.splice(index, 1);
    if (turn?.purpose !== undefined || data.status !== "completed") {
      return undefined;
    }
    if (turn?.reply === undefined) {
      // Its start was stored before this reader began (a follower joined mid-turn): its reply is
      // unknown, so a reply without tool calls is taken to end it.
      return data.finishReason === "tool-calls" ? undefined : stopOf(data.finishReason);
    }
    const step = decideNext(turn.reply, turn.outcomes, UNCOUNTED, {
      maxTurns: Number.POSITIVE_INFINITY,
      autopilot: this.#autopilot,
      maxAutopilotContinues: Number.POSITIVE_INFINITY,
      endAfterRejection: this.#endsAfterRejection,
    });
    // `fail`: the `session.error` that follows ends the prompt.
    return step.kind === "stop" ? { stopReason: step.stopReason } : undefined;
  }
}

/** A turn as stored so far. */
interface StoredTurn {
  turnId: string;
  purpose: TurnPurpose | undefined;
  reply?: AssistantReply;
  outcomes: ToolCallOutcome[];
}

/**
 * The loop's counters as a follower knows them: none (it may have joined mid-prompt), so the
 * limits it cannot see (`--max-turns`, the nudges allowed) are never taken as reached; the
 * owner stores `session.autopilot_stopped` when the nudges ran out.
 */
const UNCOUNTED = { turns: 0, nudges: 0, repeating: false, cancelled: false } as const;

/** What `decideNext` reads of a stored tool result: its error code, or the stop of `task_complete`. */
function outcomeOf(
  event: SessionEventOf<"tool.execution_complete"> | SessionEventOf<"session.task_complete">,
): ToolCallOutcome {
  if (event.type === "session.task_complete") {
    const toolCall = { toolCallId: "", name: "task_complete", arguments: {} };
    return { toolCall, content: event.data.summary, isError: false, effects: [{ type: "stop" }] };
  }
  const { toolCallId, toolName, success, result, error } = event.data;
  return {
    toolCall: { toolCallId, name: toolName, arguments: {} },
    content: result.content,
    isError: !success,
    ...(error === undefined ? {} : { errorCode: error.code }),
  };
}

/** The stop of a reply without tool calls, by its finish reason alone. */
function stopOf(finishReason: FinishReason | undefined): PromptEnd {
  if (finishReason === "length") {
    return { stopReason: "max_tokens" };
  }
  return { stopReason: finishReason === "content-filter" ? "refusal" : "end_turn" };
}

/** What a stored event means for the prompts a follower sent ({@link SentPrompts.stored}). */
export type SentPromptNews =
  | { kind: "started"; promptId: string }
  /** A prompt ended; `promptId` when it was one of the follower's, `idle` when none is left. */
  | { kind: "ended"; end: PromptEnd; promptId: string | undefined; idle: boolean }
  /**
   * The owner dropped these prompts before they ended: it closed the session (`shutdown`:
   * `session.shutdown`), its own client aborted while they were queued (`abort`: an `abort`
   * naming them), or it died before starting them (`lapsed`: its lease lapsed, owner-watch.ts;
   * never from `stored`; `interrupted` the prompt it was running then, which ran and ended
   * unfinished: `promptIds` may then be empty).
   */
  | {
      kind: "dropped";
      promptIds: string[];
      cause: "shutdown" | "abort" | "lapsed";
      interrupted?: string;
    };

/**
 * The prompts one follower sent to a session's owner through the inbox (issue 22), each with an
 * id the owner records on its `user.message` (`promptId`), from sending until their stored events
 * end. The owner runs prompts one at a time in the order it takes them, and drops every one not
 * run when it closes the session (`session.shutdown`) or aborts (server-session.ts, which names
 * the dropped ones on its `abort`): the sender's own abort drops its waiting prompts
 * ({@link cancelWaiting}).
 */
export class SentPrompts {
  /** Sent and not stored yet, oldest first. */
  readonly #waiting: string[] = [];
  /** The lease epoch each waiting prompt was addressed to, once its post returned it. */
  readonly #epochs = new Map<string, number>();
  /** Where the owner's prompts end, read from every stored event. */
  readonly #ends = new PromptEnds();
  #running: string | undefined;
  #ownerClosed = false;

  /**
   * Whether the last owner closed the session (`session.shutdown` read) or died
   * ({@link ownerGone}), and no `session.resume` since: a prompt sent now would be dropped, so
   * the sender claims the session instead.
   */
  get ownerClosed(): boolean {
    return this.#ownerClosed;
  }

  /** Notes a prompt about to be sent. @returns its id. */
  add(): string {
    const promptId = randomUUID();
    this.#waiting.push(promptId);
    return promptId;
  }

  /** Notes the lease epoch `promptId` was addressed to (the inbox's `post` result). */
  addressed(promptId: string, epoch: number): void {
    if (this.#waiting.includes(promptId)) {
      this.#epochs.set(promptId, epoch);
    }
  }

  /** Forgets `promptId`: it was not sent after all. */
  remove(promptId: string): void {
    const index = this.#waiting.indexOf(promptId);
    if (index >= 0) {
      this.#waiting.splice(index, 1);
    }
    this.#epochs.delete(promptId);
  }

  /** Forgets the prompts sent and not started: the sender aborted, which drops them. */
  cancelWaiting(): void {
    this.#waiting.length = 0;
    this.#epochs.clear();
  }

  /** Whether a prompt sent has not ended. */
  get waiting(): boolean {
    return this.#running !== undefined || this.#waiting.length > 0;
  }

  /** Forgets every prompt sent and not ended: their owner is gone. @returns their ids. */
  abandon(): string[] {
    const promptIds = [...(this.#running === undefined ? [] : [this.#running]), ...this.#waiting];
    this.#running = undefined;
    this.#waiting.length = 0;
    this.#epochs.clear();
    return promptIds;
  }

  /** The ids of the prompts sent and not started (their `user.message` not read), oldest first. */
  unstarted(): string[] {
    return [...this.#waiting];
  }

  /** Forgets the prompts among `promptIds` that wait: they were withdrawn unread. @returns those. */
  withdrawn(promptIds: readonly string[]): string[] {
    const removed = this.#waiting.filter((promptId) => promptIds.includes(promptId));
    for (const promptId of removed) {
      this.remove(promptId);
    }
    return removed;
  }

  /**
   * What the inbox's `withdraw` (`settled`; `undefined` without an inbox) means once every event
   * stored before it was read (owner-watch.ts): when the lease was fenced, {@link ownerGone};
   * else the prompts it withdrew, and those addressed to an earlier lease epoch than
   * `settled.epoch` and not started, are dropped: the replaced lease's holder took them and none
   * will ever run them (only the lease a prompt was addressed to takes it).
   * @returns the dropped prompts, oldest first, and the one interrupted (only when fenced).
   */
  settle(settled: PromptWithdrawal | undefined): {
    dropped: string[];
    interrupted: string | undefined;
  } {
    if (settled === undefined || settled.ownerStopped) {
      return this.ownerGone();
    }
    const { epoch } = settled;
    const replaced = this.#waiting.filter((promptId) => {
      const addressed = this.#epochs.get(promptId);
      return addressed !== undefined && epoch !== undefined && addressed < epoch;
    });
    return {
      dropped: this.withdrawn([...settled.withdrawn, ...replaced]),
      interrupted: undefined,
    };
  }

  /**
   * The owner died and its lease is fenced (owner-watch.ts, the inbox's `withdraw`), every event
   * it stored read: as after its `session.shutdown`, a prompt sent now would be lost, so
   * {@link ownerClosed}. @returns the prompts that never started (dropped: none ever will) and
   * the one it was running (`interrupted`: it ran, and ended there unfinished).
   */
  ownerGone(): { dropped: string[]; interrupted: string | undefined } {
    this.#ownerClosed = true;
    const interrupted = this.#running;
    this.#running = undefined;
    const dropped = [...this.#waiting];
    this.#waiting.length = 0;
    this.#epochs.clear();
    return { dropped, interrupted };
  }

  /** Whether `promptId` was sent and has not ended. */
  has(promptId: string): boolean {
    return this.#running === promptId || this.#waiting.includes(promptId);
  }

  /** What the persisted `event` means for the prompts sent, if anything. */
  stored(event: SessionEvent): SentPromptNews | undefined {
    const end = this.#ends.read(event);
    if (event.type === "user.message" && event.data.promptId !== undefined) {
      const promptId = event.data.promptId;
      if (!this.#waiting.includes(promptId)) {
        return undefined;
      }
      this.remove(promptId);
      this.#running = promptId;
      return { kind: "started", promptId };
    }
    if (event.type === "abort" && event.data.droppedPromptIds !== undefined) {
      // The abort ended the running prompt too (one idle answers every send).
      const promptIds = this.withdrawn(event.data.droppedPromptIds);
      if (promptIds.length > 0) {
        this.#running = undefined;
        return { kind: "dropped", promptIds, cause: "abort" };
      }
    }
    if (event.type === "session.resume" || event.type === "session.shutdown") {
      this.#ownerClosed = event.type === "session.shutdown";
    }
    if (event.type === "session.shutdown") {
      const promptIds = this.abandon();
      return promptIds.length === 0 ? undefined : { kind: "dropped", promptIds, cause: "shutdown" };
    }
    if (end === undefined) {
      return undefined;
    }
    const promptId = this.#running;
    this.#running = undefined;
    return { kind: "ended", end, promptId, idle: this.#waiting.length === 0 };
  }
}
