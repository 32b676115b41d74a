/**
 * How a session hands its events on (session-journal.ts), in order. What a session's subscribers
 * (its faces: an SDK client, an ACP client, `-p`) see of events a store holds back: only what the
 * log holds. The file store writes each event as it is appended
 * (every reader, and a kill of this process, keep it), so its events are handed on at once; the
 * PostgreSQL store holds appended events back until its next commit (`SessionAppender.holdsBack`),
 * and a commit refused because the writer lease was lost leaves them in no log: the log is another
 * worker's, which may hold its own version of the same turn (lane pg, session 37; trial 36 P4-2
 * for a refused append). So does a session that lets its lease go when idle, for an event
 * appended meanwhile, until it takes the lease back (idle-lease.ts; lane pg, session 38): it is
 * then written after what another process appended meanwhile, and told as written
 * (`SessionAppender.storedVersion`: chained to those). Such an event waits here until a commit
 * settles, and every event of this process after it (ephemeral ones too) waits behind it, so a
 * subscriber sees them in order; the events of another process are told at once
 * (session-journal.ts `handOnStored`).
 */

import type { SessionEvent } from "../events/events.js";
import { LeaseLostError } from "./session-locked-error.js";
import type { SessionAppender } from "./session-store.js";

/** One event waiting: `publish` hands it to the subscribers; `held`: the store held it back. */
interface Waiting {
  event: SessionEvent;
  publish: (event: SessionEvent) => void;
  held: boolean;
}

/**
 * Hands events on in order, those a store holds back once a commit made them durable. A commit
 * that fails because the writer lease was lost ({@link LeaseLostError}) drops the held events the
 * log does not hold (a subscriber is never told one: it is told the prompt's storage error); any
 * other failure (the database unreachable past its retries, a batch refused for good) hands them
 * on as before: the store keeps them for its next commit, or names them as lost in the prompt's
 * error and at exit (postgres/appender.ts), so what the subscriber saw is told true. After a
 * failure nothing is held (the prompt is stopped; a commit that waits for a store known down would
 * spend its retries again) until a commit goes through ({@link stored}).
 */
export class HeldDelivery {
  readonly #appender: SessionAppender;
  #waiting: Waiting[] = [];
  #flushing: Promise<void> | undefined;
  /** A commit failed: events are handed on at once until one goes through. */
  #open = false;
  /** Events are being handed on: one passed meanwhile (derived from one of them) goes at once. */
  #publishing = false;
  /** How many events were passed, and how many of them were handed on or dropped since. */
  #passed = 0;
  #settled = 0;
  /** Who waits until the `upTo`th event passed is settled ({@link delivered}), by `upTo`. */
  #waiters: { upTo: number; resolve: () => void }[] = [];

  /** @param appender the session's appender: what it holds back waits for its commits. */
  constructor(appender: SessionAppender) {
    this.#appender = appender;
  }

  /**
   * Hands `event` to `publish` now, unless it was just `appended` to a store that holds it back
   * or an event before it waits: then once the commit after it settles. An event passed while
   * others are handed on (an SDK face's `session.usage_info` after an `assistant.usage`) and not
   * held goes at once, after the one it follows, as when nothing is held.
   */
  pass(event: SessionEvent, publish: (event: SessionEvent) => void, appended: boolean): void {
    const held = appended && !this.#open && this.#appender.holdsBack === true;
    this.#passed += 1;
    if (!held && (this.#waiting.length === 0 || this.#publishing)) {
      this.#settled += 1;
      publish(event);
      return;
    }
    this.#waiting.push({ event, publish, held });
    this.#flushing ??= this.#flush();
  }

  /** A commit of the session went through: appended events are held again until committed. */
  stored(): void {
    this.#open = false;
  }

  /** How many events were passed so far: a count for {@link delivered}. */
  get passed(): number {
    return this.#passed;
  }

  /**
   * Resolves once the first `upTo` events passed (by default every event passed before the call)
   * are handed on or dropped; not later events passed meanwhile.
   */
  delivered(upTo = this.#passed): Promise<void> {
    if (this.#settled >= upTo) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.push({ upTo, resolve }));
  }

  async #flush(): Promise<void> {
    try {
      while (this.#waiting.length > 0) {
        // The session's own commit points (a tool's start, a turn's end) mostly follow within
        // this turn of the event loop: a commit asked for after them sends no statement of its
        // own (bench/notes/pg38.md: 9 statements for a prompt of two turns, 6 after this).
        await new Promise<void>((resolve) => setImmediate(resolve));
        const count = this.#waiting.length;
        let failed = false;
        let lost = false;
        try {
          await this.#appender.commit({ checkpoint: true });
        } catch (error) {
          failed = true;
          lost = error instanceof LeaseLostError;
        }
        this.#open ||= failed;
        // After a failure, what was appended since cannot be stored before it either.
        const settled = this.#waiting.splice(0, failed ? this.#waiting.length : count);
        const stored = lost ? storedUpTo(settled, this.#appender.lastStoredId) : settled.length;
        this.#publish(settled, stored);
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  /** Hands `settled` on, but for held events from the `stored`th on (the log does not hold them). */
  #publish(settled: readonly Waiting[], stored: number): void {
    this.#publishing = true;
    try {
      settled.forEach(({ event, publish, held }, index) => {
        this.#settled += 1;
        // What was never meant for the log (the storage error, an idle, a delta) is still told.
        if (!held) {
          publish(event);
        } else if (index < stored) {
          publish(this.#appender.storedVersion?.(event) ?? event);
        }
      });
    } finally {
      this.#publishing = false;
      this.#wakeWaiters();
    }
  }

  #wakeWaiters(): void {
    const settled = this.#settled;
    const waking = this.#waiters.filter(({ upTo }) => upTo <= settled);
    this.#waiters = this.#waiters.filter(({ upTo }) => upTo > settled);
    for (const { resolve } of waking) {
      resolve();
    }
  }
}

/**
 * How many of `settled` (in append order) the log holds: up to the held one whose id is
 * `lastStoredId` (the last event the store committed), none when it is not among them.
 */
function storedUpTo(settled: readonly Waiting[], lastStoredId: string | null | undefined): number {
  return settled.findLastIndex(({ event, held }) => held && event.id === lastStoredId) + 1;
}
