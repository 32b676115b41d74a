/**
 * Whether the lease a follower's waiting prompts were addressed to is still held (issue 22): the
 * inbox addresses each prompt to the owner's lease epoch (postgres/inbox.ts), and only that lease
 * ever takes it. While prompts a follower sent wait on the owner, the follower checks the lease
 * every {@link OWNER_CHECK_MS} (2 s; tests may set less: {@link ownerCheckMs}), and settles its
 * prompts with the inbox's `withdraw` (session-store.ts) once no live worker holds it (the
 * owner's process is gone, seen on this machine, or its lease lapsed 10 s after its last
 * heartbeat, postgres/lease.ts; `withdraw` says which, and the follower's client is told so:
 * dropped-prompts.ts), once another lease holds it (the epoch changed: another worker claimed the
 * session), or at once when its subscription reads a `session.resume` (the takeover record of a
 * worker that claimed it, possibly between two checks). `withdraw` deletes
 * only prompts addressed to an earlier lease and fences only a lapsed one, so settling while the
 * lease the prompts were sent to still holds the session changes nothing. A prompt the replaced
 * lease's holder took (nothing left to withdraw) and never started is dropped all the same: the
 * follower knows the epoch each prompt was addressed to (the inbox's `post`) and `withdraw` tells
 * the current one (prompt-end.ts `SentPrompts.settle`).
 */

import type { SessionEvent } from "../events/events.js";
import type { RefusedPrompt, SessionStore } from "./session-store.js";

/** How often a follower with waiting prompts checks that their owner holds the lease (ms). */
export const OWNER_CHECK_MS = 2_000;

/**
 * A test-only setting: how often the follower checks (ms), a whole number from 50 to
 * {@link OWNER_CHECK_MS}, so that tests of an owner that dies or lets its lease lapse wait less
 * for the next check. Any other value is ignored. Not documented for users.
 */
export const TEST_OWNER_CHECK_VARIABLE = "TURNLOOP_TEST_OWNER_CHECK_MS";

/** The check period (ms) of `env`: {@link TEST_OWNER_CHECK_VARIABLE}, else {@link OWNER_CHECK_MS}. */
export function ownerCheckMs(env: NodeJS.ProcessEnv): number {
  const value = Number(env[TEST_OWNER_CHECK_VARIABLE]);
  return Number.isInteger(value) && value >= 50 && value <= OWNER_CHECK_MS ? value : OWNER_CHECK_MS;
}

/**
 * The prompts a follower sent whose end it has not read ({@link watchOwner}'s `refusals`), and
 * what to do with the ones whose end the owner told on the inbox instead of storing it.
 */
export interface RefusalWatch {
  /** Their ids: the one running first (its `user.message` read), then those not started. */
  unended(): string[];
  onRefused(refused: RefusedPrompt[]): void;
}

/** A running {@link watchOwner}. */
export interface OwnerWatch {
  /** Settles now when `event` records a new lease (`session.resume`) and prompts wait. */
  stored(event: SessionEvent): void;
  /** Stops the checks. */
  stop(): void;
}

/**
 * Calls `onGone` while `waiting()` when `store` says nobody holds `sessionId`'s lease or a lease
 * of another epoch than the one seen first while waiting holds it, and for every
 * `session.resume` given to {@link OwnerWatch.stored}. One settling or check at a time (one asked
 * meanwhile runs after it); a failed check is tried again at the next. Checks every
 * {@link ownerCheckMs} of `process.env`. Each check first takes the refusals of `refusals`'
 * unended prompts from the inbox (session-store.ts `SessionInbox.refusals`: prompts the owner
 * refused before storing anything of them, or whose events its store refused, which no stored
 * event ends) and hands them over.
 */
export function watchOwner(
  store: Pick<SessionStore, "holder" | "inbox">,
  sessionId: string,
  waiting: () => boolean,
  onGone: () => Promise<void>,
  refusals?: RefusalWatch,
): OwnerWatch {
  let busy = false;
  let settleAfter = false;
  let epochSeen: number | undefined;
  const run = (step: () => Promise<void>) => {
    busy = true;
    step()
      .catch(() => undefined)
      .finally(() => {
        busy = false;
        if (settleAfter) {
          settleAfter = false;
          settle();
        }
      });
  };
  const settle = () => {
    if (!waiting()) {
      return;
    }
    if (busy) {
      settleAfter = true;
      return;
    }
    run(onGone);
  };
  const check = async () => {
    const holder = await store.holder(sessionId);
    const epoch = holder === undefined || holder === "unreadable" ? undefined : holder.epoch;
    const changed = epoch !== undefined && epochSeen !== undefined && epoch !== epochSeen;
    epochSeen = epoch ?? epochSeen;
    if (holder === undefined || changed) {
      epochSeen = undefined;
      await onGone();
    }
  };
  const timer = setInterval(() => {
    if (!waiting()) {
      epochSeen = undefined;
    } else if (!busy) {
      run(() => takeRefusals(store, sessionId, refusals).then(check));
    }
  }, ownerCheckMs(process.env));
  timer.unref();
  return {
    stored: (event) => {
      if (event.type === "session.resume") {
        epochSeen = undefined;
        settle();
      }
    },
    stop: () => clearInterval(timer),
  };
}

/** Hands `refusals` the inbox's refusals of its unended prompts, if any. */
async function takeRefusals(
  store: Pick<SessionStore, "inbox">,
  sessionId: string,
  refusals: RefusalWatch | undefined,
): Promise<void> {
  const unended = refusals?.unended() ?? [];
  const refused = unended.length === 0 ? [] : await store.inbox?.refusals(sessionId, unended);
  if (refused !== undefined && refused.length > 0) {
    refusals?.onRefused(refused);
  }
}
