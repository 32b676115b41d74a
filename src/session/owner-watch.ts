/**
 * Whether the worker holding a followed session is still there (issue 22): while prompts a
 * follower sent wait on the owner, the follower checks the lease every {@link OWNER_CHECK_MS}.
 * Once no live worker holds it (the owner died: its lease lapsed 10 s after its last heartbeat,
 * postgres/lease.ts), the follower settles its prompts with the inbox's `withdraw`
 * (session-store.ts): the ones the owner never took are withdrawn, and its lease is fenced.
 */

import type { SessionStore } from "./session-store.js";

/** How often a follower with waiting prompts checks that their owner holds the lease (ms). */
export const OWNER_CHECK_MS = 2_000;

/**
 * Calls `onGone` when, while `waiting()`, `store` says nobody holds `sessionId`'s lease (checks
 * one at a time; a failed check is tried again at the next). @returns what stops the checks.
 */
export function watchOwner(
  store: Pick<SessionStore, "holder">,
  sessionId: string,
  waiting: () => boolean,
  onGone: () => Promise<void>,
): () => void {
  let checking = false;
  const timer = setInterval(() => {
    if (checking || !waiting()) {
      return;
    }
    checking = true;
    store
      .holder(sessionId)
      .then((holder) => (holder === undefined ? onGone() : undefined))
      .catch(() => undefined)
      .finally(() => {
        checking = false;
      });
  }, OWNER_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
