/**
 * A write the session store could not make, naming what it was writing: a full disk's `ENOSPC`
 * on an open file names no file itself, and a user must know which file (or database) to look at.
 * And how such a failure reaches the commits queued behind it ({@link CommitQueue}).
 */

import { errorCode, errorMessage } from "../events/errors.js";
import type { CommitOptions } from "./session-store.js";

/**
 * A store could not write `location` (the file store: the file it was writing; the PostgreSQL
 * store: the database, password redacted); `message` is the cause's (`ENOSPC: no space left on
 * device, write`; `connect ECONNREFUSED 127.0.0.1:5432`).
 */
export class StorageError extends Error {
  override readonly name = "StorageError";
  /** The cause's system error code (`ENOSPC`), so that `errorCode` reads through. */
  readonly code: string | undefined;

  /**
   * @param leftBehind what a failed first write of a session left in the store because removing
   * it failed too (`session <id> could not be removed from <home> (<error>)`, deferred-appender.ts).
   */
  constructor(
    readonly location: string,
    override readonly cause: unknown,
    readonly leftBehind?: string,
  ) {
    super(withoutPlace(errorMessage(cause), location));
    this.code = errorCode(cause);
  }
}

/**
 * `message` without the place it starts with when `location` names that place already: a database
 * error starts with the database (postgres/database.ts, `postgres://u:***@host/db: …`), which a
 * session's location names too (`postgres://u:***@host/db (session <id>)`), so it is said once.
 */
function withoutPlace(message: string, location: string): string {
  // The place itself may hold ": " (a database URL's hint: "… user part: write them …").
  const place = `${location.replace(/ \(session [^)]*\)$/, "")}: `;
  return message.startsWith(place) ? message.slice(place.length) : message;
}

/** `error` as a {@link StorageError} of `location`, unless it already names one. */
export function storageError(location: string, error: unknown): StorageError {
  return error instanceof StorageError ? error : new StorageError(location, error);
}

/**
 * `<location> could not be written (<cause>)`: one line, no stack. A database store that could
 * not connect at all wrote nothing: `could not connect to the session store <location> (<cause>,
 * code <SQLSTATE>)` (postgres/database.ts `DatabaseError.unconnected`, read by its shape: this
 * module loads no database code).
 */
export function storageProblem(error: unknown, fallbackLocation: string): string {
  const location = error instanceof StorageError ? error.location : fallbackLocation;
  const { unconnected } = Object(error instanceof StorageError ? error.cause : error) as {
    unconnected?: unknown;
  };
  return typeof unconnected === "string"
    ? `could not connect to the session store ${location} (${unconnected})`
    : `${location} could not be written (${withoutPlace(errorMessage(error), location)})`;
}

/** A promise rejected with {@link storageError}`(location, error)`, for a `catch` handler. */
export function rejectAs(location: string, error: unknown): Promise<never> {
  return Promise.reject(storageError(location, error));
}

/**
 * Closing the session (its face exiting), the events held back since the store could not write
 * them (the database unreachable: postgres/appender.ts, tried once more within the retry budget;
 * a full disk while the idle lease was let go: idle-lease.ts) were tried once more and could
 * still not be written: they are lost. The message names them and the last try's error; what
 * was stored before is whole, and a resume goes on from there.
 */
export class HeldBackLostError extends Error {
  override readonly name = "HeldBackLostError";

  constructor(location: string, types: readonly string[], cause: unknown) {
    const reason = withoutPlace(errorMessage(cause), location);
    super(
      `${location} could not be written at exit (${reason}): ${eventCount(types)} held back since then ${types.length === 1 ? "is" : "are"} lost (${listedTypes(types)}); a resume goes on after the last stored event`,
    );
  }
}

/** `1 event`, `3 events`. */
export function eventCount(types: readonly string[]): string {
  return types.length === 1 ? "1 event" : `${types.length} events`;
}

/** Event types in order, the first eight then how many more. */
export function listedTypes(types: readonly string[]): string {
  const listed = types.length > 8 ? [...types.slice(0, 8), `${types.length - 8} more`] : types;
  return listed.join(", ");
}

/**
 * What a failed store operation says to a user: {@link storageProblem} for a
 * {@link StorageError} (the file or database and the cause), else the error's message.
 */
export function storeFailure(error: unknown): string {
  return error instanceof StorageError
    ? storageProblem(error, error.location)
    : errorMessage(error);
}

/**
 * Runs an appender's commits one after another in call order, each whether the one before failed
 * or not (a failed commit is reported to its caller only), checkpoints apart: a checkpoint (a
 * turn's end, before a request or a tool: session-store.ts `CommitOptions`) queued behind a commit
 * that failed fails at once with its error, without a try of its own. The store gave up on that
 * commit (its retry budget spent: postgres/database.ts), which stops the running prompt
 * (session-journal.ts), and each such checkpoint would only spend the whole budget again (a `-p`
 * in an outage took many seconds more to exit). The prompt's end (`endOfPrompt`) tries only once
 * while the last commit failed: the store is known down, and the user waited a whole budget
 * already, but an outage that just ended must not fail the prompt. Another full commit (the next
 * prompt's, a close) tries its whole budget again: what was held back is stored in order then.
 */
export class CommitQueue {
  #last: Promise<void> = Promise.resolve();
  /** Commits called and not settled yet. */
  #waiting = 0;
  /** Whether the last commit settled failed: the store is known down. */
  #down = false;

  /**
   * Runs `commit` after every commit queued before; resolves or rejects with it. `checkpoint`:
   * see the class. `endOfPrompt` (session-store.ts `CommitOptions`): when the last commit settled
   * before it failed, `commit` is told to try once (`once`), without its retry budget; what the
   * store holds back stays for the next commit.
   */
  run(commit: (once: boolean) => Promise<void>, options: CommitOptions = {}): Promise<void> {
    const behind = options.checkpoint === true && this.#waiting > 0;
    const attempt = () => commit(options.endOfPrompt === true && this.#down);
    const next = behind ? this.#last.then(attempt) : this.#last.then(attempt, attempt);
    this.#waiting += 1;
    this.#last = next;
    void next.then(
      () => {
        this.#waiting--;
        this.#down = false;
      },
      () => {
        this.#waiting--;
        this.#down = true;
      },
    );
    return next;
  }
}
