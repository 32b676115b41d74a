/**
 * One writer per session: an exclusive lock file `<session folder>/lock`, created with `O_EXCL`
 * (`open(…, "wx")`, atomic on local file systems) and holding its owner as JSON
 * `{pid, hostname, command, acquiredAt, releasesWhenIdle?}`. Whoever opens a session for writing (`-p`, ACP, the
 * server) takes it; reading a log (`sessions show`, replay, `session.getMessages`) does not.
 *
 * Why a pid file and not a library such as `proper-lockfile`: that library decides staleness by
 * the lock's mtime, refreshed on a timer, so a process paused longer than the stale time (a
 * suspended laptop, a debugger) silently loses its lock while still writing; and its lock holds
 * no owner, so a second opener could not say who has the session.
 *
 * Stale rule: a lock whose owner ran on this host and whose pid no longer exists (`kill(pid, 0)`
 * fails with `ESRCH`) is taken over; so is an unreadable lock older than {@link UNREADABLE_GRACE_MS}
 * (an owner killed between creating and writing it). A lock from another host is never taken
 * over. Taking over goes through a second `O_EXCL` file (`lock.break`) so that two openers
 * racing for one stale lock cannot both win. A reused pid keeps a dead owner's lock "held"; the
 * error names the lock file so that a user can remove it.
 */

import { readFile, stat, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { errorCode } from "../events/errors.js";
import { type LeaseHolder, type LeaseOptions, SessionLockedError } from "./session-store.js";

/** How long an unreadable (half-written) lock is assumed to be in the middle of being written. */
const UNREADABLE_GRACE_MS = 5_000;

/** Who holds a session's lock, as written in the lock file. */
export type LockOwner = LeaseHolder;

export { SessionLockedError };

/** A held lock; {@link release} it when the session closes. */
export class SessionLock {
  private released = false;

  private constructor(readonly path: string) {}

  /** `<directory>/lock`. */
  static pathIn(directory: string): string {
    return join(directory, "lock");
  }

  /**
   * Takes the lock of the session in `directory` (which must exist); `options.releasesWhenIdle`
   * is written into it for other openers (idle-lease.ts).
   * @throws SessionLockedError when a live owner (this process included) holds it; I/O errors.
   */
  static async acquire(
    directory: string,
    sessionId: string,
    options: LeaseOptions = {},
  ): Promise<SessionLock> {
    const path = SessionLock.pathIn(directory);
    const owner: LockOwner = {
      pid: process.pid,
      hostname: hostname(),
      command: ownCommand(),
      acquiredAt: new Date().toISOString(),
      ...(options.releasesWhenIdle === true ? { releasesWhenIdle: true } : {}),
    };
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await writeFile(path, `${JSON.stringify(owner)}\n`, { flag: "wx" });
        return new SessionLock(path);
      } catch (error) {
        if (errorCode(error) !== "EEXIST") {
          throw error;
        }
      }
      const holder = await readOwner(path);
      if (holder.kind === "gone") {
        continue;
      }
      if (!(await isStale(holder, path))) {
        throw new SessionLockedError(sessionId, ownerOf(holder), path);
      }
      if (!(await breakStaleLock(path, holder))) {
        throw new SessionLockedError(sessionId, ownerOf(holder), path);
      }
    }
    throw new SessionLockedError(sessionId, undefined, path);
  }

  /**
   * Who holds the lock of the session in `directory`, when a live owner does (read-only: for a
   * delete that must not pull a log from under its writer).
   */
  static async holder(directory: string): Promise<LockOwner | "unreadable" | undefined> {
    const path = SessionLock.pathIn(directory);
    const holder = await readOwner(path);
    if (holder.kind === "gone" || (await isStale(holder, path))) {
      return undefined;
    }
    return holder.kind === "owner" ? holder.owner : "unreadable";
  }

  /** Removes the lock file. Idempotent; a lock file already gone is fine. */
  async release(): Promise<void> {
    if (this.released) {
      return;
    }
    this.released = true;
    await unlink(this.path).catch((error: unknown) => {
      if (errorCode(error) !== "ENOENT") {
        throw error;
      }
    });
  }
}

type Holder =
  | { kind: "owner"; owner: LockOwner; text: string }
  | { kind: "unreadable"; text: string }
  | { kind: "gone" };

async function readOwner(path: string): Promise<Holder> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") {
      return { kind: "gone" };
    }
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockOwner>;
    if (typeof parsed.pid === "number" && typeof parsed.hostname === "string") {
      const owner: LockOwner = {
        pid: parsed.pid,
        hostname: parsed.hostname,
        command: typeof parsed.command === "string" ? parsed.command : "?",
        acquiredAt: typeof parsed.acquiredAt === "string" ? parsed.acquiredAt : "?",
        ...(parsed.releasesWhenIdle === true ? { releasesWhenIdle: true } : {}),
      };
      return { kind: "owner", owner, text };
    }
  } catch {
    // Half-written or damaged: handled below.
  }
  return { kind: "unreadable", text };
}

async function isStale(holder: Exclude<Holder, { kind: "gone" }>, path: string): Promise<boolean> {
  if (holder.kind === "owner") {
    return holder.owner.hostname === hostname() && !isAlive(holder.owner.pid);
  }
  const modified = await stat(path).then(
    (stats) => stats.mtimeMs,
    () => Date.now(),
  );
  return Date.now() - modified > UNREADABLE_GRACE_MS;
}

/** Whether a process `pid` exists on this machine (`kill(pid, 0)`; `EPERM` counts as alive). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return errorCode(error) !== "ESRCH";
  }
}

/**
 * Removes the stale lock at `path` if it still holds what `holder` read, under `lock.break`.
 * @returns false when another opener is breaking it right now.
 */
async function breakStaleLock(
  path: string,
  holder: Exclude<Holder, { kind: "gone" }>,
): Promise<boolean> {
  const breaker = `${path}.break`;
  try {
    await writeFile(breaker, String(process.pid), { flag: "wx" });
  } catch (error) {
    if (errorCode(error) !== "EEXIST") {
      throw error;
    }
    // A breaker left by a crash between the two steps below: clear it for the next attempt.
    const age = await stat(breaker).then(
      (stats) => Date.now() - stats.mtimeMs,
      () => 0,
    );
    if (age > UNREADABLE_GRACE_MS) {
      await unlink(breaker).catch(() => undefined);
    }
    return false;
  }
  try {
    const now = await readOwner(path);
    if (now.kind !== "gone" && now.text === holder.text) {
      await unlink(path);
    }
    return true;
  } finally {
    await unlink(breaker).catch(() => undefined);
  }
}

function ownerOf(holder: Exclude<Holder, { kind: "gone" }>): LockOwner | undefined {
  return holder.kind === "owner" ? holder.owner : undefined;
}

/** `turnloop <arguments>` of this process, for other processes' error messages. */
export function ownCommand(): string {
  return ["turnloop", ...process.argv.slice(2)].join(" ").slice(0, 200);
}
