/**
 * Following a session's log (the port's `SessionStore.subscribe`): catch up by sequence number,
 * then re-read from the next expected sequence number on every wake-up. A store says when to wake
 * (the file store: its own commits in this process; PostgreSQL: `LISTEN/NOTIFY` and a slow poll);
 * a wake-up that finds nothing new costs one read, a missed one costs latency, never an event, as
 * every read starts where the last delivered event ended (issue 22).
 */

import { errorCode } from "../events/errors.js";
import type { SessionEvent } from "../events/events.js";

/**
 * Called with each persisted event and its sequence number, in order, once each. It should not
 * throw; an event whose call threw counts as delivered.
 */
export type SessionEventListener = (event: SessionEvent, seq: number) => void;

/** A live {@link SessionStore.subscribe}. */
export interface SessionSubscription {
  /**
   * Reads and delivers what is stored now without waiting for a notification (e.g. before
   * taking over a session whose writer died). Read errors are kept for the next wake-up.
   */
  readNow(): Promise<void>;
  /** Stops following: no `onEvent` call after this resolves. Closing twice is a no-op. */
  close(): Promise<void>;
}

/** Events read from a sequence number on (a {@link StoredLog}'s fields that following needs). */
export interface FollowedLog {
  events: SessionEvent[];
  /** `seqs[i]` is the sequence number of `events[i]`. */
  seqs: number[];
  /** The sequence number after the last complete stored line (a torn tail is read again). */
  nextSeq: number;
}

/** Reads the session's events from sequence number `fromSeq` on. */
export type ReadFrom = (fromSeq: number) => Promise<FollowedLog>;

/**
 * One subscriber's cursor. Reads never overlap: a wake-up during a read makes one more read after
 * it. A read that fails (the database unreachable) is tried again at the next wake-up; a session
 * that no longer exists (deleted) ends the following.
 */
export class SessionFollower implements SessionSubscription {
  readonly sessionId: string;
  readonly #read: ReadFrom;
  readonly #onEvent: SessionEventListener;
  readonly #onClose: () => void;
  #nextSeq: number;
  #reading: Promise<void> | undefined;
  #again = false;
  #closed = false;

  /**
   * @param fromSeq the first sequence number to deliver (1: the whole log).
   * @param onClose called once when following ends (closed, or the session was deleted).
   */
  constructor(
    sessionId: string,
    fromSeq: number,
    read: ReadFrom,
    onEvent: SessionEventListener,
    onClose: () => void,
  ) {
    this.sessionId = sessionId;
    this.#nextSeq = Math.max(1, Math.floor(fromSeq));
    this.#read = read;
    this.#onEvent = onEvent;
    this.#onClose = onClose;
  }

  /**
   * Delivers every event stored now from the start sequence number on.
   * @throws the store's read error (`code: "ENOENT"`: no such session); following then ends.
   */
  async catchUp(): Promise<void> {
    const first = this.#deliver();
    // A wake-up during the catch-up reads once more after it, never beside it.
    this.#reading = first
      .catch(() => undefined)
      .finally(() => {
        this.#reading = undefined;
        if (this.#again) {
          this.wake();
        }
      });
    try {
      await first;
    } catch (error) {
      this.#end();
      throw error;
    }
  }

  /** Reads what was stored since the last delivered event (coalesced with a read in flight). */
  wake(): void {
    if (this.#closed) {
      return;
    }
    if (this.#reading !== undefined) {
      this.#again = true;
      return;
    }
    this.#reading = this.#readUntilQuiet().finally(() => {
      this.#reading = undefined;
    });
  }

  async readNow(): Promise<void> {
    this.wake();
    await this.#reading;
  }

  async close(): Promise<void> {
    this.#end();
    await this.#reading;
  }

  async #readUntilQuiet(): Promise<void> {
    do {
      this.#again = false;
      try {
        await this.#deliver();
      } catch (error) {
        if (errorCode(error) === "ENOENT") {
          this.#end();
        }
        // Anything else: the next wake-up (or the store's poll) reads again from the same place.
        return;
      }
    } while (this.#again && !this.#closed);
  }

  async #deliver(): Promise<void> {
    const log = await this.#read(this.#nextSeq);
    for (const [index, event] of log.events.entries()) {
      const seq = log.seqs[index];
      if (this.#closed) {
        return;
      }
      if (seq !== undefined && seq >= this.#nextSeq) {
        this.#nextSeq = seq + 1;
        this.#onEvent(event, seq);
      }
    }
    if (!this.#closed) {
      this.#nextSeq = Math.max(this.#nextSeq, log.nextSeq);
    }
  }

  #end(): void {
    if (!this.#closed) {
      this.#closed = true;
      this.#onClose();
    }
  }
}

/**
 * The followers of one store instance by session id, for the store to wake. `key` lets stores
 * that share sessions in one process (two file stores on one home) share one registry.
 */
export class FollowerRegistry {
  readonly #followers = new Map<string, Set<SessionFollower>>();

  /** Number of sessions followed. */
  get size(): number {
    return this.#followers.size;
  }

  /**
   * Starts following `sessionId` from `fromSeq`: resolves once the catch-up was delivered.
   * @throws as {@link SessionFollower.catchUp}.
   */
  async follow(
    key: string,
    sessionId: string,
    fromSeq: number,
    read: ReadFrom,
    onEvent: SessionEventListener,
    onEmpty: () => void = () => undefined,
  ): Promise<SessionSubscription> {
    const follower = new SessionFollower(sessionId, fromSeq, read, onEvent, () => {
      const set = this.#followers.get(key);
      set?.delete(follower);
      if (set?.size === 0) {
        this.#followers.delete(key);
        if (this.#followers.size === 0) {
          onEmpty();
        }
      }
    });
    // Registered before the catch-up read, so a commit during it wakes the follower.
    const set = this.#followers.get(key) ?? new Set();
    set.add(follower);
    this.#followers.set(key, set);
    await follower.catchUp();
    return follower;
  }

  /** Wakes the followers of `key`. */
  wake(key: string): void {
    for (const follower of this.#followers.get(key) ?? []) {
      follower.wake();
    }
  }

  /** Wakes every follower (a poll, or a lost notification channel back). */
  wakeAll(): void {
    for (const set of this.#followers.values()) {
      for (const follower of set) {
        follower.wake();
      }
    }
  }
}
