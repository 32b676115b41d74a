/**
 * The refusal of a session's writer lease held elsewhere, naming the holder (session-lock.ts for
 * the file store's lock, postgres/lease.ts for the database's lease).
 */

import { hostname } from "node:os";
import type { LeaseHolder } from "./session-store.js";

/** The session's writer lease is held elsewhere (another process, or this one). */
export class SessionLockedError extends Error {
  override readonly name = "SessionLockedError";
  readonly sessionId: string;
  /** `undefined` when the holder could not be read (being written, or damaged). */
  readonly owner: LeaseHolder | undefined;
  /**
   * Where the lease is kept, for the user to clear by hand (the file store: the lock file; the
   * PostgreSQL store: the database, password redacted).
   */
  readonly lockPath: string;

  /**
   * @param hint what to do when the holder is gone; default (the file store's, session-lock.ts'
   * stale rule): nothing for a holder on this machine (it is running: a dead one's lock is taken
   * over), remove `lockPath` for one on another machine, try again for an unreadable lock.
   */
  constructor(
    sessionId: string,
    owner: LeaseHolder | undefined,
    lockPath: string,
    hint = lockHint(owner, lockPath),
  ) {
    super(
      `Session ${sessionId} is open in another process (${describeHolder(owner)}); close it ` +
        `there first.${hint === "" ? "" : ` ${hint}`}`,
    );
    this.sessionId = sessionId;
    this.owner = owner;
    this.lockPath = lockPath;
  }
}

/**
 * `pid 42, running: turnloop acp, since <time>` (a holder on this machine, alive: a dead one's
 * lease is taken over), `pid 42 on host: …`, or `this process: …`.
 */
export function describeHolder(owner: LeaseHolder | undefined): string {
  if (owner === undefined) {
    return "its lock file is being written or is damaged";
  }
  const here = owner.hostname === hostname();
  const who =
    owner.pid === process.pid && here
      ? "this process"
      : `pid ${owner.pid}${here ? ", running" : ` on ${owner.hostname}`}`;
  return `${who}: ${owner.command}, since ${owner.acquiredAt}`;
}

function lockHint(owner: LeaseHolder | undefined, lockPath: string): string {
  if (owner === undefined) {
    return "Try again in a moment.";
  }
  return owner.hostname === hostname()
    ? ""
    : `If that process is gone, remove ${lockPath} (another machine's process cannot be checked from here).`;
}

/**
 * A prompt sent to a session whose holder takes no inbox messages (`LeaseHolder.takesInbox`
 * unset: `-p`, the interactive face or `turnloop acp` holds it; `false`: an SDK server whose
 * start of reading its inbox failed): refused at once, since it would never be taken (README,
 * "Running many workers").
 */
export class InboxRefusedError extends Error {
  override readonly name = "InboxRefusedError";
  readonly sessionId: string;
  readonly owner: LeaseHolder | undefined;

  constructor(sessionId: string, owner: LeaseHolder | undefined) {
    super(
      owner?.takesInbox === false
        ? `Session ${sessionId} is open in an SDK server (${describeHolder(owner)}) that could ` +
            "not start reading prompts from other processes (its log says why), so it runs only " +
            "its own clients' prompts until it reads them: send this prompt to that server, or " +
            "again once it has opened another session (it tries again then)."
        : `Session ${sessionId} is open in another process (${describeHolder(owner)}), which ` +
            "runs only its own prompts: only a session held by the SDK server (turnloop " +
            "--headless) takes prompts from other processes. Send this prompt there, or here " +
            "once that process has closed the session.",
    );
    this.sessionId = sessionId;
    this.owner = owner;
  }
}

/**
 * The writer lease was lost: another process claimed the session (this one froze or was cut off
 * past its lease; the PostgreSQL store's heartbeat or a refused append finds it). The log is the
 * new holder's from then on: what this process could not append is not said to its clients
 * either (session-journal.ts), since the log may hold another version of it.
 */
export class LeaseLostError extends Error {
  override readonly name = "LeaseLostError";
  constructor(sessionId: string) {
    super(
      `the writer lease of session ${sessionId} was lost: another worker took the session over (this worker was stopped or cut off past its lease); its later events were refused`,
    );
  }
}
