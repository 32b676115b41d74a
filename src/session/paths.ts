/**
 * Where sessions live on disk: `$TURNLOOP_HOME/session-state/<sessionId>/events.jsonl`.
 *
 * Session ids come from users (`--resume <id>`, `session/load`, `turnloop sessions rm <id>`) and
 * become directory names, so every id is checked against {@link SESSION_ID_PATTERN} before it
 * touches a path.
 */

import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { randomUUID, SESSION_ID_PATTERN } from "../events/random-id.js";

/** A session id that is not safe to use as a directory name. */
export class InvalidSessionIdError extends Error {
  override readonly name = "InvalidSessionIdError";
  readonly sessionId: string;

  constructor(sessionId: string) {
    super(
      `Invalid session id ${JSON.stringify(sessionId)}: expected letters, digits, "-" or "_" ` +
        "(at most 128 characters), such as a UUID.",
    );
    this.sessionId = sessionId;
  }
}

/** A fresh session id (a random UUID, src/events/random-id.ts: no `node:crypto` loaded). */
export function newSessionId(): string {
  return randomUUID();
}

/** Whether `sessionId` matches {@link SESSION_ID_PATTERN}. */
export function isValidSessionId(sessionId: string): boolean {
  return SESSION_ID_PATTERN.test(sessionId);
}

/**
 * Returns `sessionId` unchanged when it is safe to use in a path.
 * @throws InvalidSessionIdError otherwise (e.g. `../../etc`).
 */
export function validateSessionId(sessionId: string): string {
  if (!isValidSessionId(sessionId)) {
    throw new InvalidSessionIdError(sessionId);
  }
  return sessionId;
}

/**
 * The turnloop home directory, absolute: `$TURNLOOP_HOME` when set and non-empty (resolved against
 * the current directory; the CLI refuses a relative one before a face runs: cli/home-variable.ts),
 * else `~/.turnloop`.
 */
export function turnloopHome(environment: NodeJS.ProcessEnv = process.env): string {
  const configured = environment.TURNLOOP_HOME;
  if (configured !== undefined && configured !== "") {
    return resolve(configured);
  }
  return join(homedir(), ".turnloop");
}

/** `<home>/session-state`: the folder holding one folder per session. */
export function sessionsRoot(home: string): string {
  return join(home, "session-state");
}

/**
 * `<home>/session-state/<sessionId>`.
 * @throws InvalidSessionIdError when `sessionId` is not safe in a path.
 */
export function sessionDirectory(home: string, sessionId: string): string {
  return join(sessionsRoot(home), validateSessionId(sessionId));
}

/**
 * `<home>/session-state/<sessionId>/events.jsonl`.
 * @throws InvalidSessionIdError when `sessionId` is not safe in a path.
 */
export function eventsPath(home: string, sessionId: string): string {
  return join(sessionDirectory(home, sessionId), "events.jsonl");
}

/**
 * `<home>/session-files/<sessionId>`: the local files (saved tool outputs, uploads) of a session
 * whose events are in a database (the file store keeps them in the session's own folder).
 * @throws InvalidSessionIdError when `sessionId` is not safe in a path.
 */
export function sessionFilesFolder(home: string, sessionId: string): string {
  return join(home, "session-files", validateSessionId(sessionId));
}

/**
 * Whether the folders `a` and `b` are one: the same absolute path, or (through symbolic links)
 * the same real one. A folder that cannot be resolved (gone) compares by its path alone.
 */
export function sameFolder(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) {
    return true;
  }
  try {
    return realpathSync.native(a) === realpathSync.native(b);
  } catch {
    return false;
  }
}
