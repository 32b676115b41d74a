/**
 * The inbox port of a store shared by workers (issue 22; session-store.ts re-exports it): what a
 * face on one worker sends to the worker holding a session, and what that owner answers on it
 * when the event log holds no end of a prompt: it refused the prompt before storing anything of
 * it, or its store refused the prompt's events.
 */

import type { ErrorType } from "../events/event-parts.js";

/**
 * What a face on one worker sends to the worker holding a session (issue 22): `payload` is the
 * face's own request (the SDK server: `session.send`'s params for a prompt, `null` for an abort,
 * `session.permissions.handlePendingPermissionRequest`'s params for a permission answer).
 */
export interface InboxMessage {
  /**
   * `attach` / `detach`: a follower with a permission handler registers with the owner (payload
   * `{followerId, expiresInMs}`, renewed while it follows) or leaves (`{followerId}`). `warning`:
   * what a follower's request asked that turnloop ignores, for the owner to record (payload a
   * `session.warning`'s data, `{warningType, message}`; the SDK server: `settings_ignored`).
   */
  kind: "prompt" | "abort" | "permission" | "attach" | "detach" | "warning";
  payload: unknown;
}

/**
 * Why no live worker holds a session's lease, as far as the store can tell: its holder ran on
 * this machine and its process is gone (`ended`: seen dead); its holder did not renew it in time
 * (`lapsed`: the process may live on, frozen or cut off, or have died on another machine); nobody
 * held it (`released`: its holder let it go, or a follower fenced it already, or the session is
 * gone).
 */
export type LeaseGone = "ended" | "lapsed" | "released";

/** What {@link SessionInbox.withdraw} settled. */
export interface PromptWithdrawal {
  /** The prompts deleted unread: no worker ever takes them. */
  withdrawn: string[];
  /**
   * Why no live worker held the lease: then it was fenced, and a prompt its holder took but did
   * not store a `user.message` of never runs; `false`: a live worker holds it (its holder came
   * back, or another worker claimed it), the prompts not withdrawn and addressed to its epoch are
   * still followed.
   */
  ownerStopped: LeaseGone | false;
  /**
   * No worker takes a prompt addressed to a lease epoch below this one any more (the current
   * lease's, or the one after a fenced lease); `undefined` when the session is gone. A prompt sent
   * to an earlier epoch, neither withdrawn nor started, was taken by a replaced lease: it never
   * runs.
   */
  epoch: number | undefined;
}

/**
 * The inbox of a store shared by workers (PostgreSQL): messages to a session's owner, each
 * delivered once, oldest first.
 */
export interface SessionInbox {
  /**
   * Sends `message` to the worker holding `sessionId`'s lease.
   * @returns the epoch of the lease it was addressed to (only that lease ever takes it: a prompt
   * its holder took and had not started when another worker's claim replaced the lease never
   * runs, and {@link withdraw}'s `epoch` tells the sender so); `undefined` when no live worker
   * holds it (nothing was sent): open the session instead; `undefined` too for a message other
   * than a prompt to a holder that takes no messages ({@link LeaseHolder.takesInbox}).
   * @throws InboxRefusedError for a prompt to a holder that takes no messages (nothing was sent).
   */
  post(sessionId: string, message: InboxMessage): Promise<number | undefined>;
  /**
   * The worker holding `sessionId` went away, or another lease replaced its own
   * (session/owner-watch.ts), while prompts this follower sent (`promptIds`, their
   * `payload.promptId`) waited: withdraws the ones addressed to an earlier lease than the current
   * one (never taken: only their lease takes them), and when no live worker holds the lease,
   * fences it (the gone worker can store nothing more); a live holder's lease is left as it is.
   * A prompt is either taken by an owner or withdrawn, never both.
   */
  withdraw(sessionId: string, promptIds: readonly string[]): Promise<PromptWithdrawal>;
  /**
   * The sessions among `sessionIds` no live worker holds (by the rule {@link withdraw} fences by),
   * in one read however many they are; held sessions and those the store has not are left out.
   * Fences nothing: a follower that finds its session here calls {@link withdraw}, which fences
   * and says why (session/followed-leases.ts).
   */
  unheld(sessionIds: readonly string[]): Promise<string[]>;
  /**
   * Delivers the messages sent to sessions this store instance holds, until closed; from the call
   * on, the leases this store instance holds and takes say that it takes messages
   * ({@link LeaseHolder.takesInbox}): call it before taking the leases whose messages it serves.
   * A message taken for a session this worker no longer serves is the receiver's to drop.
   */
  receive(
    onMessage: (sessionId: string, message: InboxMessage) => void,
  ): Promise<{ close(): Promise<void> }>;
  /**
   * The owner refuses the prompt `promptId` its follower sent to `sessionId`, before storing
   * anything of it (the log never shows it: README, "A session on another worker"), or tells
   * how it ended when its store refused or could not take the prompt's events (the log holds no
   * end of it, perhaps its start): the refusal waits, unstored
   * in the event log, for the follower's {@link refusals}, at most as long as an unread message
   * (postgres/inbox.ts `INBOX_EXPIRY_MS`). Never throws. @returns `false` when it could not be
   * recorded (the database is unreachable): the follower then waits until its owner is gone.
   */
  refuse(sessionId: string, promptId: string, refusal: PromptRefusal): Promise<boolean>;
  /**
   * Takes the refusals of the prompts among `promptIds` (their ids) that the owner of `sessionId`
   * refused ({@link refuse}), each once, deleting them.
   */
  refusals(sessionId: string, promptIds: readonly string[]): Promise<RefusedPrompt[]>;
}

/**
 * Why an owner refused a follower's prompt before storing anything of it, or how it ended unstored
 * ({@link SessionInbox.refuse}): the `session.error` data a local client of the owner got
 * (`errorType` `storage` when its store refused the prompt's events), and, for a prompt beyond
 * the model's known window, both sizes (tokens; agent/loop-types.ts `PromptTooLarge`).
 */
export interface PromptRefusal {
  error: { errorType: ErrorType; message: string };
  promptTooLarge?: { estimatedTokens: number; contextWindow: number };
}

/** A {@link PromptRefusal} with the id of the prompt it refuses. */
export type RefusedPrompt = PromptRefusal & { promptId: string };
