/**
 * A new session saved at its first prompt (issue 24 item 7): an interactive session opened and
 * closed without a prompt, or a `-p` run that fails before sending one, leaves nothing in the
 * store. Events are kept in memory until a `user.message` is appended; that append asks the store
 * to create the session (taking its writer lease) and the kept events follow in order.
 *
 * The session's first write is all or nothing: its lock, folder, log, first events and their
 * sync. When any of it fails (a disk that fills after the lock was written), what was made is
 * removed again (the store's `delete`), so every face says the same: the file and the error, and
 * that the session was not saved; a removal that fails is said too (`StorageError.leftBehind`).
 */

import { errorMessage } from "../events/errors.js";
import type { SessionEvent } from "../events/events.js";
import type { CommitOptions, SessionAppender, SessionStore, StoredLog } from "./session-store.js";
import { StorageError, storageError } from "./storage-error.js";

/**
 * A {@link SessionAppender} that creates its session in `store` when the first `user.message` is
 * appended. Before that, `commit` and `close` do nothing (nothing is stored, no lease is held);
 * after it, every method goes to the store's appender once the kept events are in the store and
 * committed. A store refusing the creation (an I/O error, an id taken meanwhile) or those first
 * events or their commit rejects the next `commit` with a {@link StorageError} naming the file
 * (or database), as a failed write does, and leaves the session unsaved (`saved` still false, its
 * events kept, anything created removed): the next `user.message` tries again, and `close` has
 * nothing to close.
 */
export class DeferredAppender implements SessionAppender {
  private kept: SessionEvent[] = [];
  private created: Promise<SessionAppender> | undefined;
  private inner: SessionAppender | undefined;
  private closed = false;
  /** Forwards the store appender's `lost` once there is one (a session is created mid-prompt). */
  private readonly lease = new AbortController();

  /**
   * @param morePrompts more prompts may follow in this process (the interactive face): a prompt
   *   whose first write storage refused is then saved with the next one storage accepts (its
   *   events are kept, as the model's history holds them), and its error says so
   *   ({@link unsavedNote}); without it (`-p`: one prompt) the session ends unsaved.
   */
  constructor(
    private readonly store: SessionStore,
    readonly sessionId: string,
    readonly morePrompts = false,
  ) {}

  /** The store's location of the log once created; before, a note that it is not saved yet. */
  get location(): string {
    return this.inner?.location ?? `${this.store.location} (not saved until the first prompt)`;
  }

  /** Aborted when the created session's writer lease is lost (see `SessionAppender.lost`). */
  get lost(): AbortSignal {
    return this.lease.signal;
  }

  /** The store's appender's, once the session is created (before, the events are kept here). */
  get holdsBack(): boolean {
    return this.inner?.holdsBack === true;
  }

  /** The store's appender's, once the session is created. */
  get lastStoredId(): string | null | undefined {
    return this.inner?.lastStoredId;
  }

  /**
   * Whether the session is in the store: its first write (the kept events, committed) went
   * through. While it is being created, not yet.
   */
  get saved(): boolean {
    return this.inner !== undefined;
  }

  /** The events appended while nothing is stored, in order. */
  get unsaved(): readonly SessionEvent[] {
    return this.inner === undefined ? this.kept : [];
  }

  append(event: SessionEvent): void {
    if (this.closed) {
      throw new Error(`session ${this.sessionId} is closed`);
    }
    if (this.inner !== undefined) {
      this.inner.append(event);
      return;
    }
    this.kept.push(event);
    if (this.created === undefined && event.type === "user.message") {
      this.created = this.create();
      // Its failure is reported by the next commit.
      this.created.catch(() => undefined);
    }
  }

  async commit(options?: CommitOptions): Promise<void> {
    if (this.created !== undefined) {
      await (await this.created).commit(options);
    }
  }

  async close(): Promise<void> {
    if (this.closed) {
      return;
    }
    this.closed = true;
    // A failed creation was reported by the commit that met it, and left nothing to close.
    const appender = await this.created?.catch(() => undefined);
    await appender?.close();
  }

  private async create(): Promise<SessionAppender> {
    const appender = await this.store.create(this.sessionId).catch((error: unknown) => {
      // Nothing was stored: the session stays unsaved, and the next prompt tries again.
      this.created = undefined;
      throw storageError(this.store.location, error);
    });
    try {
      await this.writeKept(appender);
    } catch (error) {
      this.created = undefined;
      throw await this.undo(appender, storageError(appender.location, error));
    }
    const lost = appender.lost;
    if (lost?.aborted) {
      this.lease.abort(lost.reason);
    } else {
      lost?.addEventListener("abort", () => this.lease.abort(lost.reason), { once: true });
    }
    return appender;
  }

  /**
   * Appends the kept events to `appender` and commits them, again while more were kept meanwhile;
   * then, at once (no event can slip in between), `appender` takes every later one.
   * @throws the append's or the commit's error.
   */
  private async writeKept(appender: SessionAppender): Promise<void> {
    let written = 0;
    do {
      for (const event of this.kept.slice(written)) {
        appender.append(event);
        written++;
      }
      await appender.commit();
    } while (written < this.kept.length);
    this.kept = [];
    this.inner = appender;
  }

  private undo(appender: SessionAppender, error: StorageError): Promise<StorageError> {
    return undoCreation(this.store, this.sessionId, appender, error);
  }
}

/**
 * Closes `appender` and deletes session `sessionId` it created in `store`, after its first write
 * failed with `error`: @returns `error`, with what could not be removed when the deletion failed.
 */
async function undoCreation(
  store: SessionStore,
  sessionId: string,
  appender: SessionAppender,
  error: StorageError,
): Promise<StorageError> {
  await appender.close().catch(() => undefined);
  try {
    await store.delete(sessionId);
    return error;
  } catch (failure) {
    const where = `session ${sessionId} could not be removed from ${store.location}`;
    return new StorageError(error.location, error.cause, `${where} (${errorMessage(failure)})`);
  }
}

/**
 * Runs `write`, the first write (`session.start`, committed) of session `sessionId` just created
 * in `store` through `appender`; when it fails, the session is removed as a
 * {@link DeferredAppender}'s is (whose own `write` stores nothing and runs as is).
 * @throws a {@link StorageError} naming the file (or database), with what could not be removed.
 */
export async function firstWrite(
  store: SessionStore,
  sessionId: string,
  appender: SessionAppender,
  write: () => Promise<void>,
): Promise<void> {
  if (appender instanceof DeferredAppender) {
    return write();
  }
  try {
    await write();
  } catch (error) {
    throw await undoCreation(store, sessionId, appender, storageError(appender.location, error));
  }
}

/**
 * What a prompt's storage error says of the session when `appender` has stored nothing of it
 * (`leftBehind`: what of it could not be removed): that it was not saved, or, when more prompts
 * may follow ({@link DeferredAppender.morePrompts}), that the next prompt storage accepts saves
 * it with this one, which is what happens.
 */
export function unsavedNote(appender: SessionAppender, leftBehind: string | undefined): string {
  const left = leftBehind === undefined ? "" : `; ${leftBehind}`;
  return appender instanceof DeferredAppender && appender.morePrompts
    ? `the session is not saved yet: the next prompt that storage accepts saves it, this one included${left}`
    : `the session was not saved${left}`;
}

/**
 * The events of a session not stored yet (`appender` a {@link DeferredAppender} before its first
 * prompt's first write went through), as a log read from memory; `undefined` once (or when) the
 * session is in the store.
 */
export function unsavedLog(appender: SessionAppender): StoredLog | undefined {
  if (!(appender instanceof DeferredAppender) || appender.saved) {
    return undefined;
  }
  const events = [...appender.unsaved];
  return {
    events,
    seqs: events.map((_event, index) => index + 1),
    repaired: [],
    nextSeq: events.length + 1,
  };
}
