/**
 * The appender of a session whose writer lease is held only while it writes, and the open that
 * waits for such a lease (idle-lease.ts says how and why; it loads this module by `import()` only
 * for a session opened to be let go when idle, the SDK server's).
 */

import { setTimeout as sleep } from "node:timers/promises";
import type { SessionEvent } from "../events/events.js";
import { idleData } from "../events/idle.js";
import { createEnvelope } from "./envelope.js";
import type { OthersListener } from "./idle-lease.js";
import { PromptEnds } from "./prompt-end.js";
import type { SessionSubscription } from "./session-follower.js";
import {
  type CommitOptions,
  type LeaseOptions,
  type OpenedSession,
  type SessionAppender,
  SessionLockedError,
  type SessionStore,
} from "./session-store.js";
import { HeldBackLostError } from "./storage-error.js";

/** Waits between two tries to take a lease another process holds, in milliseconds. */
const RETRY_FIRST_MS = 20;
const RETRY_MAX_MS = 250;

/**
 * Opens `sessionId` under a lease that its holders let go when idle; while another process
 * holds it that way (it runs a prompt), waits until it lets go.
 * `lease`: the store's `LeaseOptions.fromSeq` and `keep` (which events are needed).
 * @throws as `SessionStore.open`; SessionLockedError at once when the holder keeps its lease for
 * as long as it has the session open (the terminal, `-p`, ACP) or when `signal` aborts.
 */
export async function openWhenReleased(
  store: SessionStore,
  sessionId: string,
  signal?: AbortSignal,
  lease: Pick<LeaseOptions, "fromSeq" | "keep"> = {},
): Promise<OpenedSession> {
  for (let wait = RETRY_FIRST_MS; ; wait = Math.min(RETRY_MAX_MS, wait * 2)) {
    try {
      return await store.open(sessionId, { ...lease, releasesWhenIdle: true });
    } catch (error) {
      // An owner not read yet is a lock being written: wait for it to say who it is.
      const waits = error instanceof SessionLockedError && error.owner?.releasesWhenIdle !== false;
      if (!waits || (error.owner !== undefined && error.owner.releasesWhenIdle !== true)) {
        throw error;
      }
      if (signal?.aborted) {
        throw error;
      }
      await sleep(wait, undefined, signal === undefined ? {} : { signal }).catch(() => undefined);
    }
  }
}

/** An appender holding its store's lease only while held or writing (idle-lease.ts says how). */
export class IdleLeaseAppender implements SessionAppender {
  readonly sessionId: string;
  readonly location: string;
  readonly #store: SessionStore;
  /** The store's appender while the lease is held. */
  #inner: SessionAppender | undefined;
  /** The sequence number of the next event in the store. */
  #nextSeq: number;
  /** The id of the last event stored (by anyone), as known here. */
  #storedLastId: string | null;
  /** Appended while the lease was let go, in order. */
  #pending: SessionEvent[] = [];
  /** Pending events written with another `parentId` than appended, by id, until asked for. */
  readonly #rechained = new Map<string, SessionEvent>();
  #holds = 0;
  #following: SessionSubscription | undefined;
  /** Where the prompts of other processes end, read from each of their events. */
  readonly #promptEnds = new PromptEnds();
  /** Lease changes (take, let go, close) run one after another. */
  #tail: Promise<void> = Promise.resolve();
  #releaseScheduled = false;
  #closed = false;
  #onOthers: OthersListener = () => undefined;
  /** While the lease is held idle (the store's `closeIdle`): gives the session up. */
  #giveUp: (() => Promise<void>) | undefined;

  /**
   * @param inner the store's appender, holding the lease (taken with `releasesWhenIdle`).
   * @param nextSeq the sequence number the next event gets; `lastId` the id of the last stored.
   */
  constructor(
    store: SessionStore,
    inner: SessionAppender,
    stored: { nextSeq: number; lastId: string | null },
  ) {
    this.#store = store;
    this.#inner = inner;
    this.sessionId = inner.sessionId;
    this.location = inner.location;
    this.#nextSeq = stored.nextSeq;
    this.#storedLastId = stored.lastId;
  }

  /** Sets who receives the events other processes append (the session). */
  listen(onOthers: OthersListener): void {
    this.#onOthers = onOthers;
  }

  /** The id of the last event of the log as it will be: the next event's `parentId`. */
  get lastEventId(): string | null {
    return this.#pending.at(-1)?.id ?? this.#storedLastId;
  }

  /**
   * True while events appended with the lease let go wait to be written (in no log yet), else the
   * store's appender's (session-store.ts `holdsBack`).
   */
  get holdsBack(): boolean {
    return this.#pending.length > 0 || this.#inner?.holdsBack === true;
  }

  /** `event` as written: with its new `parentId` when it waited while the lease was let go. */
  storedVersion(event: SessionEvent): SessionEvent {
    const stored = this.#rechained.get(event.id);
    this.#rechained.delete(event.id);
    return stored ?? this.#inner?.storedVersion?.(event) ?? event;
  }

  /** The store's appender's while the lease is held. */
  get lastStoredId(): string | null | undefined {
    return this.#inner?.lastStoredId;
  }

  /** Whether this process holds the lease now. */
  get held(): boolean {
    return this.#inner !== undefined;
  }

  append(event: SessionEvent): void {
    if (this.#closed) {
      throw new Error(`session ${this.sessionId} is closed`);
    }
    if (this.#inner !== undefined && this.#pending.length === 0) {
      this.#inner.append(event);
      this.#nextSeq += 1;
      this.#storedLastId = event.id;
      return;
    }
    this.#pending.push(event);
    // Its failure is reported by the next commit, which tries again.
    this.#run(() => this.#take()).catch(() => undefined);
  }

  async commit(options?: CommitOptions): Promise<void> {
    // Once closing, the close writes what is pending: a take queued after it would take the
    // lease again, and keep it, after the close.
    if (this.#pending.length > 0 && !this.#closed) {
      await this.#run(() => this.#take());
    }
    await this.#tail.catch(() => undefined);
    await this.#inner?.commit(options);
    this.#scheduleRelease();
  }

  /**
   * Takes the lease (waiting while another process's prompt holds it; the events it appended
   * are delivered first) and keeps it until the returned function is called.
   * @throws as {@link openWhenReleased}.
   */
  async hold(): Promise<() => void> {
    this.#holds += 1;
    try {
      await this.#run(() => this.#take());
    } catch (error) {
      this.#holds -= 1;
      throw error;
    }
    let held = true;
    return () => {
      if (held) {
        held = false;
        this.#holds -= 1;
        this.#scheduleRelease();
      }
    };
  }

  /**
   * Writes what waits (taking the lease back), stops following and gives the lease up.
   * @throws HeldBackLostError when what waited could still not be written (a disk still full):
   * those events are lost, named by type; the lease is given up all the same.
   */
  async close(): Promise<void> {
    if (this.#closed) {
      return;
    }
    this.#closed = true;
    let lost: HeldBackLostError | undefined;
    await this.#run(async () => {
      if (this.#pending.length > 0) {
        await this.#take().catch((error: unknown) => {
          const types = this.#pending.map((event) => event.type);
          lost = new HeldBackLostError(this.location, types, error);
          this.#pending = [];
        });
      }
      await this.#following?.close();
      this.#following = undefined;
      await this.#inner?.close();
      this.#inner = undefined;
      await this.#giveUp?.();
      this.#giveUp = undefined;
    });
    if (lost !== undefined) {
      throw lost;
    }
  }

  #run(step: () => Promise<void>): Promise<void> {
    const next = this.#tail.catch(() => undefined).then(step);
    this.#tail = next;
    return next;
  }

  #scheduleRelease(): void {
    if (this.#releaseScheduled || this.#holds > 0 || this.#inner === undefined) {
      return;
    }
    this.#releaseScheduled = true;
    // After the current job's continuations: a queued prompt takes its hold before this runs.
    setImmediate(() => {
      this.#releaseScheduled = false;
      this.#run(() => this.#release()).catch(() => undefined);
    });
  }

  async #take(): Promise<void> {
    if (this.#inner === undefined) {
      // No delivery from the following after this: what it missed is in the open's log.
      await this.#following?.close();
      this.#following = undefined;
      // Only what was appended since is needed (the file store reads just that).
      const { appender, log } = await openWhenReleased(this.#store, this.sessionId, undefined, {
        fromSeq: this.#nextSeq,
      });
      for (const [index, event] of log.events.entries()) {
        const seq = log.seqs[index] ?? 0;
        if (seq >= this.#nextSeq) {
          this.#arrived(event, seq);
        }
      }
      this.#nextSeq = Math.max(this.#nextSeq, log.nextSeq);
      this.#inner = appender;
      // The lease taken gives the session up when closed.
      this.#giveUp = undefined;
    }
    // Each leaves the queue once written: one the store refuses (a full disk) waits with those
    // after it for the next commit, which tries again, as a PostgreSQL batch does.
    for (let first = true, event = this.#pending[0]; event !== undefined; first = false) {
      const parentId = first ? this.#storedLastId : event.parentId;
      const stored = parentId === event.parentId ? event : { ...event, parentId };
      this.#inner.append(stored);
      if (stored !== event) {
        this.#rechained.set(event.id, stored);
      }
      this.#pending.shift();
      this.#nextSeq += 1;
      this.#storedLastId = event.id;
      event = this.#pending[0];
    }
  }

  async #release(): Promise<void> {
    const inner = this.#inner;
    if (inner === undefined || this.#holds > 0 || this.#pending.length > 0 || this.#closed) {
      return;
    }
    this.#inner = undefined;
    if (inner.closeIdle === undefined) {
      await inner.close();
    } else {
      this.#giveUp = await inner.closeIdle();
    }
    // A session deleted meanwhile is not followed; the next take reports it.
    this.#following = await this.#store
      .subscribe(this.sessionId, this.#nextSeq, (event, seq) => this.#arrived(event, seq))
      .catch(() => undefined);
  }

  #arrived(event: SessionEvent, seq: number): void {
    this.#nextSeq = seq + 1;
    this.#storedLastId = event.id;
    this.#onOthers(event);
    const end = this.#promptEnds.read(event);
    if (end !== undefined) {
      // As the loop ends its own (agent/loop.ts): events/idle.ts.
      this.#onOthers(createEnvelope({ type: "session.idle", data: idleData(end) }, event.id));
    }
  }
}
