/**
 * A write the session store could not make, naming what it was writing: a full disk's `ENOSPC`
 * on an open file names no file itself, and a user must know which file (or database) to look at.
 */

import { errorCode, errorMessage } from "../events/errors.js";

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
  const end = message.indexOf(": ");
  const place = message.slice(0, end);
  return end > 0 && (location === place || location.startsWith(`${place} (`))
    ? message.slice(end + 2)
    : message;
}

/** `error` as a {@link StorageError} of `location`, unless it already names one. */
export function storageError(location: string, error: unknown): StorageError {
  return error instanceof StorageError ? error : new StorageError(location, error);
}

/** `<location> could not be written (<cause>)`: one line, no stack. */
export function storageProblem(error: unknown, fallbackLocation: string): string {
  const location = error instanceof StorageError ? error.location : fallbackLocation;
  return `${location} could not be written (${withoutPlace(errorMessage(error), location)})`;
}

/** A promise rejected with {@link storageError}`(location, error)`, for a `catch` handler. */
export function rejectAs(location: string, error: unknown): Promise<never> {
  return Promise.reject(storageError(location, error));
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
