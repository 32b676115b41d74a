/**
 * Where a prompt's persisted events end, for a face following a session another worker runs
 * (issue 22): the owner's `session.idle` is ephemeral and never stored, so a follower finds the end
 * of a prompt in the stored events themselves.
 */

import { MODEL_CALL_SKIPPED } from "../agent/decide-next.js";
import type { StopReason } from "../events/event-parts.js";
import type { SessionEvent, SessionEventData } from "../events/events.js";
import { randomUUID } from "../events/random-id.js";
import { INTERRUPTED, PROMPT_INTERRUPTED } from "./open-work.js";
import type { LeaseGone, PromptWithdrawal, RefusedPrompt } from "./session-store.js";

/**
 * How a prompt ended: a stop reason (ACP's names), or the error it failed with: its stored
 * `session.error`, or (`stored: false`) {@link PROMPT_INTERRUPTED}, which no event of the log
 * holds (a reader tells it: the log's end of the prompt is its reopen's interrupted turn).
 */
export type PromptEnd =
  | { stopReason: StopReason }
  | { error: SessionEventData["session.error"]; stored?: false };

/**
 * The error of a prompt whose process ended while it ran (open-work.ts), read where the reopen
 * that followed closed its open turn or compaction as interrupted, or stored by that reopen when
 * no turn of it was open.
 */
export { PROMPT_INTERRUPTED };

/**
 * Reads where each prompt ends out of a session's stored events, given in log order (a follower
 * reads them as the owner stores them). The owner's loop records its decision (agent/loop.ts): a
 * prompt ends at the `assistant.turn_end` that carries a `stopReason` (every stop after a turn:
 * the model's answer, `--max-turns`, autopilot's end, the repetition guard, …), at an `abort`
 * (`cancelled`) or at a `session.error`; the loop stores a stop's notes (`session.warning`,
 * `session.autopilot_stopped`) inside the turn it ends. Logs of earlier versions, whose turn ends
 * carry no stop reason, end a prompt at an `abort`, a `session.error`, and a
 * `session.autopilot_stopped` (`end_turn`) or the repetition guard's `session.warning`
 * (`max_turn_requests`) stored after its last turn; their other ends are not seen. A model
 * failure an SDK app's `errorOccurred` hook skipped ends its prompt at its `session.warning`
 * `model_call_skipped` (`end_turn`), stored after the failed turn. A prompt whose process ended
 * while it ran ends where the next open of the log closed the last of its open turns and its
 * compaction as interrupted (open-work.ts `closingEvents`: {@link PROMPT_INTERRUPTED}), as the
 * session model reads it (session-model/fold-state.ts).
 */
export class PromptEnds {
  /** The turns started and not ended: a stop's notes stored inside one are not its end. */
  readonly #open = new Set<string>();
  /** A compaction started and not ended. */
  #compacting = false;
  /** A prompt's `user.message` was read and no end after it. */
  #promptOpen = false;

  /**
   * Whether the last prompt read started (its `user.message`) and no end of it was read: the
   * holder was running it (a follower told of the holder's death says so: followed-leases.ts).
   */
  get promptOpen(): boolean {
    return this.#promptOpen;
  }

  /** @returns how the prompt ended when `event` is its last stored event, else `undefined`. */
  read(event: SessionEvent): PromptEnd | undefined {
    const end = this.#read(event);
    if (end !== undefined) {
      this.#promptOpen = false;
    }
    return end;
  }

  #read(event: SessionEvent): PromptEnd | undefined {
    switch (event.type) {
      case "user.message":
        if (event.data.source !== "autopilot") {
          this.#open.clear();
          this.#compacting = false;
          this.#promptOpen = true;
        }
        return undefined;
      case "assistant.turn_start":
        this.#open.add(event.data.turnId);
        return undefined;
      case "assistant.turn_end": {
        this.#open.delete(event.data.turnId);
        const { stopReason } = event.data;
        if (stopReason !== undefined) {
          return { stopReason };
        }
        return event.data.status === "interrupted" ? this.#interrupted() : undefined;
      }
      case "session.compaction_start":
        this.#compacting = true;
        return undefined;
      case "session.compaction_complete":
        this.#compacting = false;
        return event.data.success === false && event.data.error === INTERRUPTED
          ? this.#interrupted()
          : undefined;
      case "session.autopilot_stopped":
        return this.#open.size === 0 ? { stopReason: "end_turn" } : undefined;
      case "session.warning":
        return this.#open.size === 0 ? warningEnd(event.data.warningType) : undefined;
      case "abort":
        return { stopReason: "cancelled" };
      case "session.error":
        return { error: event.data };
      default:
        return undefined;
    }
  }

  /**
   * After a reopen's closing event (an interrupted turn or compaction: open-work.ts): the
   * prompt's end once nothing of it is left open, when a prompt was open.
   */
  #interrupted(): PromptEnd | undefined {
    return this.#promptOpen && this.#open.size === 0 && !this.#compacting
      ? { error: PROMPT_INTERRUPTED, stored: false }
      : undefined;
  }
}

/**
 * The end a warning stored after a prompt's last turn marks: the repetition guard's, and a model
 * failure the SDK app's `errorOccurred` hook skipped (agent/decide-next.ts, `end_turn`).
 */
function warningEnd(warningType: string): PromptEnd | undefined {
  switch (warningType) {
    case "repetition":
      return { stopReason: "max_turn_requests" };
    case MODEL_CALL_SKIPPED:
      return { stopReason: "end_turn" };
    default:
      return undefined;
  }
}

/**
 * Why a follower's prompts lost their owner ({@link SentPrompts.settle}): no live worker holds
 * the lease (session-store.ts {@link LeaseGone}), or another worker's claim replaced the lease
 * they were sent to (`replaced`).
 */
export type OwnerGone = LeaseGone | "replaced";

/** What a stored event means for the prompts a follower sent ({@link SentPrompts.stored}). */
export type SentPromptNews =
  | { kind: "started"; promptId: string }
  /** A prompt ended; `promptId` when it was one of the follower's, `idle` when none is left. */
  | { kind: "ended"; end: PromptEnd; promptId: string | undefined; idle: boolean }
  /**
   * The owner dropped these prompts before they ended: it closed the session (`shutdown`:
   * `session.shutdown`), its own client aborted while they were queued (`abort`: an `abort`
   * naming them), or it was gone before starting them ({@link OwnerGone}, owner-watch.ts; never
   * from `stored`; `interrupted` the prompt it was running then, which ran and ended unfinished:
   * `promptIds` may then be empty).
   */
  | {
      kind: "dropped";
      promptIds: string[];
      cause: "shutdown" | "abort" | OwnerGone;
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
   * The end of the prompt the owner ran when it died was told already ({@link ownerGone}): the
   * reopen's interrupted end of it ({@link PROMPT_INTERRUPTED}) is not told again.
   */
  #interruptedTold = false;

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

  /** The ids of the prompts sent and not ended: the one running first, then {@link unstarted}. */
  unended(): string[] {
    return [...(this.#running === undefined ? [] : [this.#running]), ...this.#waiting];
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
   * @returns the dropped prompts, oldest first, the one interrupted (only when fenced) and why
   * (`released` without an inbox).
   */
  settle(settled: PromptWithdrawal | undefined): {
    dropped: string[];
    interrupted: string | undefined;
    cause: OwnerGone;
  } {
    if (settled === undefined) {
      return { ...this.ownerGone(), cause: "released" };
    }
    if (settled.ownerStopped !== false) {
      return { ...this.ownerGone(), cause: settled.ownerStopped };
    }
    const { epoch } = settled;
    const replaced = this.#waiting.filter((promptId) => {
      const addressed = this.#epochs.get(promptId);
      return addressed !== undefined && epoch !== undefined && addressed < epoch;
    });
    return {
      dropped: this.withdrawn([...settled.withdrawn, ...replaced]),
      interrupted: undefined,
      cause: "replaced",
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
    this.#interruptedTold = true;
    const interrupted = this.#running;
    this.#running = undefined;
    const dropped = [...this.#waiting];
    this.#waiting.length = 0;
    this.#epochs.clear();
    return { dropped, interrupted };
  }

  /**
   * Forgets the prompts among `refused` that have not ended: their owner told their end on the
   * inbox, as the store holds none (session-store.ts `SessionInbox.refusals`: refused before
   * anything of them was stored, or their events refused by the store). @returns those refusals.
   */
  refused(refused: readonly RefusedPrompt[]): RefusedPrompt[] {
    const promptIds = refused.map((refusal) => refusal.promptId);
    const unended = new Set(this.withdrawn(promptIds));
    if (this.#running !== undefined && promptIds.includes(this.#running)) {
      unended.add(this.#running);
      this.#running = undefined;
    }
    return refused.filter((refusal) => unended.has(refusal.promptId));
  }

  /** Whether `promptId` was sent and has not ended. */
  has(promptId: string): boolean {
    return this.#running === promptId || this.#waiting.includes(promptId);
  }

  /** What the persisted `event` means for the prompts sent, if anything. */
  stored(event: SessionEvent): SentPromptNews | undefined {
    const end = this.#ends.read(event);
    if (event.type === "user.message" && event.data.source !== "autopilot") {
      this.#interruptedTold = false;
    }
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
    if (end === undefined || (this.#interruptedTold && "stored" in end)) {
      return undefined;
    }
    const promptId = this.#running;
    this.#running = undefined;
    return { kind: "ended", end, promptId, idle: this.#waiting.length === 0 };
  }
}
