/**
 * The leases of every session a worker's clients only follow (issue 22: no prompt of theirs
 * waits, so owner-watch.ts does not run for them): checked every {@link ownerCheckMs} (2 s) for
 * all of them in one read (the inbox's `unheld`: a worker may follow a thousand sessions), and
 * each one nobody holds any more handed to its face, which fences the lease with the inbox's
 * `withdraw` (the prompt case's rule: it decides why the holder is gone), reads what the holder
 * stored and tells its clients (server/remote-followers.ts, acp/remote-session.ts). A new claim
 * by another worker is no death: that session is held, and its followers read the claim's
 * events. No timer runs while nothing is followed; the last follower to leave stops it.
 */

import { ownerCheckMs } from "./owner-watch.js";
import type { LeaseGone, SessionInbox } from "./session-store.js";

/** One followed session, as its face watches it ({@link FollowedLeases.watch}). */
export interface FollowedLease {
  readonly sessionId: string;
  /** Whether its clients are still to be told of the holder's death: checked only then. */
  watching(): boolean;
  /** No live worker held its lease when checked; never rejects. */
  onGone(): Promise<void>;
}

/** The followed leases of one store's inbox, checked together. */
export class FollowedLeases {
  readonly #inbox: Pick<SessionInbox, "unheld">;
  readonly #periodMs: number;
  readonly #leases = new Set<FollowedLease>();
  #timer: NodeJS.Timeout | undefined;
  #checking = false;

  constructor(inbox: Pick<SessionInbox, "unheld">, periodMs: number) {
    this.#inbox = inbox;
    this.#periodMs = periodMs;
  }

  /** Checks `lease` from the next check on. @returns what stops checking it. */
  watch(lease: FollowedLease): () => void {
    this.#leases.add(lease);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#tick(), this.#periodMs);
      this.#timer.unref();
    }
    return () => {
      this.#leases.delete(lease);
      if (this.#leases.size === 0 && this.#timer !== undefined) {
        clearInterval(this.#timer);
        this.#timer = undefined;
      }
    };
  }

  /** One check at a time: a tick during a check is skipped (the next one checks). */
  #tick(): void {
    if (this.#checking) {
      return;
    }
    this.#checking = true;
    this.check()
      .catch(() => undefined) // The database is unreachable: the next check reads again.
      .finally(() => {
        this.#checking = false;
      });
  }

  /** Reads, in one query, which watched sessions nobody holds, and hands each to its face. */
  async check(): Promise<void> {
    const watched = [...this.#leases].filter((lease) => lease.watching());
    if (watched.length === 0) {
      return;
    }
    const sessionIds = [...new Set(watched.map((lease) => lease.sessionId))];
    const unheld = new Set(await this.#inbox.unheld(sessionIds));
    await Promise.all(
      watched.flatMap((lease) =>
        unheld.has(lease.sessionId) && this.#leases.has(lease) ? [lease.onGone()] : [],
      ),
    );
  }
}

const byInbox = new WeakMap<Pick<SessionInbox, "unheld">, FollowedLeases>();

/** The one {@link FollowedLeases} of `inbox` in this process, checked every {@link ownerCheckMs}. */
export function followedLeases(inbox: Pick<SessionInbox, "unheld">): FollowedLeases {
  let leases = byInbox.get(inbox);
  if (leases === undefined) {
    leases = new FollowedLeases(inbox, ownerCheckMs(process.env));
    byInbox.set(inbox, leases);
  }
  return leases;
}

/**
 * Fences the lease of `sessionId`, which no live worker held when checked, as a follower's prompt
 * watch does (the inbox's `withdraw`, here withdrawing nothing), then delivers what the holder
 * stored (`readNow`). @returns why the holder is gone (session-store.ts {@link LeaseGone}), or
 * `undefined` when a live worker holds the session again (another worker claimed it).
 */
export async function fenceGoneHolder(
  inbox: Pick<SessionInbox, "withdraw">,
  sessionId: string,
  readNow: () => Promise<void>,
): Promise<LeaseGone | undefined> {
  const { ownerStopped } = await inbox.withdraw(sessionId, []);
  if (ownerStopped === false) {
    return undefined;
  }
  await readNow();
  return ownerStopped;
}
