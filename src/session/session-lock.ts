/**
 * One writer per session: an exclusive lock file `<session folder>/lock`, created with `O_EXCL`
 * (`open(…, "wx")`, atomic on local file systems) and holding its owner as JSON
 * `{pid, hostname, command, acquiredAt, releasesWhenIdle?, idle?, sharers?}` (lock-file.ts). Whoever
 * opens a session for writing (`-p`, ACP, the server) takes it; reading a log (`sessions show`,
 * replay, `session.getMessages`) does not.
 *
 * Held idle (issue 25): a server that lets the lease go while its session is idle (idle-lease.ts)
 * keeps the lock file, marked `idle`, for as long as it has the session open. Only another opener
 * that lets go when idle (another server) takes such a lease over, and it lists the servers that
 * have the session open as `sharers`, so the last of them to give it up removes the file and the
 * lease falls back to a live one meanwhile. The terminal, `-p`, ACP and a delete are refused as
 * by any holder, naming it.
 *
 * Why a pid file and not a library such as `proper-lockfile`: that library decides staleness by
 * the lock's mtime, refreshed on a timer, so a process paused longer than the stale time (a
 * suspended laptop, a debugger) silently loses its lock while still writing; and its lock holds
 * no owner, so a second opener could not say who has the session.
 *
 * Stale rule: a lock whose owner ran on this host and whose pid no longer exists (`kill(pid, 0)`
 * fails with `ESRCH`) is taken over; so is an unreadable lock older than `UNREADABLE_GRACE_MS` (lock-file.ts)
 * (an owner killed between creating and writing it); so is a lock of this very process that it
 * could not give up (`leftBehind`), by this process. A stale lock that live sharers still have
 * open becomes held idle by one of them. A lock from another host is never taken over. Taking over
 * goes through a second `O_EXCL` file (`lock.break`) so that two openers racing for one stale
 * lock cannot both win. A reused pid keeps a dead owner's lock "held" (rare; the refusal names
 * the pid and its command line, which a user can check); another host's names the lock file.
 */

import { rmdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { errorCode, errorMessage, makeFolders } from "../events/errors.js";
import { redactedArguments } from "../llm/shown-values.js";
import {
  handOver,
  isAlive,
  type LockContents,
  liveSharers,
  lockText,
  ownHostname,
  type ReplaceLock,
  readLock,
  sameProcess,
  shownCommand,
  UNREADABLE_GRACE_MS,
  underBreaker,
} from "./lock-file.js";
import { type LeaseHolder, type LeaseOptions, SessionLockedError } from "./session-store.js";
import { createFile, writeAndClose } from "./small-file.js";
import { rejectAs, storageError } from "./storage-error.js";

/** Who holds a session's lock, as written in the lock file. */
export type LockOwner = LeaseHolder;

export { isAlive, SessionLockedError };

type Held = Exclude<LockContents, { kind: "gone" }>;

/**
 * Paths of the locks this process could not give up ({@link SessionLock.release} failed: a folder
 * made unwritable). Each still names this process, which holds it no more: this process's next
 * opener of that session takes it over at once (a server taking its idle lease back waited for
 * itself forever), as any opener does once this process has ended (Stale rule).
 */
const leftBehind = new Set<string>();

/**
 * A lock as this process left it held idle ({@link SessionLock.markIdle}): what a take-back by this
 * process expects to find, so it reads the file only under the breaker (issue 26 figure 7d).
 */
export type IdleLock = Extract<LockContents, { kind: "owner" }>;

/** A held lock; {@link release} it when the session closes. */
export class SessionLock {
  private released = false;

  private constructor(
    readonly path: string,
    private readonly owner: LockOwner,
  ) {}

  /** `<directory>/lock`. */
  static pathIn(directory: string): string {
    return join(directory, "lock");
  }

  /**
   * Takes the lock of the session in `directory` (which must exist); `options.releasesWhenIdle`
   * is written into it for other openers (idle-lease.ts), and lets this opener take a lock held
   * idle by another such holder. `leftIdleHere`: this process let the lock go idle (file-store.ts
   * knows), so it is taken over rather than created, which would fail; given as the
   * {@link IdleLock} {@link markIdle} wrote, it is not read before the take-over, which reads it
   * under the breaker anyway and, when it changed meanwhile (another server took it), tries again
   * as if from the start.
   * @throws SessionLockedError when a live owner (this process included) holds it, idle or not
   * (idle: unless `releasesWhenIdle`); I/O errors.
   */
  static async acquire(
    directory: string,
    sessionId: string,
    options: LeaseOptions = {},
    leftIdleHere: boolean | IdleLock = false,
  ): Promise<SessionLock> {
    const path = SessionLock.pathIn(directory);
    const sharing = options.releasesWhenIdle === true;
    const owner: LockOwner = {
      pid: process.pid,
      hostname: ownHostname(),
      command: ownCommand(),
      acquiredAt: new Date().toISOString(),
      ...(sharing ? { releasesWhenIdle: true } : {}),
    };
    let last: Held | undefined;
    for (let attempt = 0; attempt < 4; attempt++) {
      if (attempt > 0 || leftIdleHere === false) {
        try {
          await createLock(path, lockText(owner, sharing ? [owner] : []));
          leftBehind.delete(path);
          return new SessionLock(path, owner);
        } catch (error) {
          if (errorCode(error) !== "EEXIST") {
            throw storageError(path, error);
          }
        }
      }
      const holder =
        attempt === 0 && sharing && typeof leftIdleHere === "object"
          ? leftIdleHere
          : readLock(path);
      if (holder.kind === "gone") {
        continue;
      }
      last = holder;
      if (await isStale(holder, path)) {
        await breakStaleLock(path, holder);
      } else if (sharing && holder.kind === "owner" && holder.owner.idle === true) {
        if (await takeIdle(path, holder, owner)) {
          return new SessionLock(path, owner);
        }
      } else {
        throw new SessionLockedError(sessionId, ownerOf(holder), path);
      }
    }
    throw new SessionLockedError(sessionId, last === undefined ? undefined : ownerOf(last), path);
  }

  /**
   * {@link acquire} in `directory`, made first (mode 0700) when missing; when the lock cannot be
   * taken, the folder is removed again if empty (a full disk leaves no session folder behind).
   * @throws as {@link acquire} (a failed write: a `StorageError` naming the lock file, or the
   * folder when it cannot be made).
   */
  static async acquireInNewFolder(
    directory: string,
    sessionId: string,
    options: LeaseOptions = {},
  ): Promise<SessionLock> {
    await makeFolders(directory, 0o700).catch((e) => rejectAs(directory, e));
    try {
      return await SessionLock.acquire(directory, sessionId, options);
    } catch (error) {
      // rmdir refuses a folder with anything in it: only an empty one goes.
      await rmdir(directory).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Runs `open` (what is done first under the lock: opening the log); when it throws, releases
   * the lock and removes `newFolder` if given and empty (rmdir refuses one with anything in it).
   * @throws `open`'s error.
   */
  async whileOpening<T>(open: () => Promise<T>, newFolder?: string): Promise<T> {
    try {
      return await open();
    } catch (error) {
      await this.release();
      await (newFolder === undefined ? undefined : rmdir(newFolder).catch(() => undefined));
      throw error;
    }
  }

  /**
   * Who holds the lock of the session in `directory`, when a live owner does, idle or not
   * (read-only: for a delete that must not pull a log from under its writer or a server that has
   * it open).
   */
  static async holder(directory: string): Promise<LockOwner | "unreadable" | undefined> {
    const path = SessionLock.pathIn(directory);
    const holder = readLock(path);
    if (holder.kind === "gone") {
      return undefined;
    }
    if (await isStale(holder, path)) {
      const [sharer] = holder.kind === "owner" ? liveSharers(holder.sharers) : [];
      return sharer === undefined ? undefined : { ...sharer, idle: true };
    }
    return ownerOf(holder) ?? "unreadable";
  }

  /**
   * Keeps the lock, marked held idle by this process (see the file comment), until
   * {@link release}; another server may take it meanwhile. A lock no longer this process's is
   * left as it is.
   * @returns the lock as written, for a take-back by this process ({@link acquire}); `undefined`
   * when it was left as it was.
   */
  async markIdle(): Promise<IdleLock | undefined> {
    const written = await underBreaker(this.path, async (replace) => {
      const now = readLock(this.path);
      if (now.kind !== "owner" || !sameProcess(now.owner, this.owner)) {
        return undefined;
      }
      const owner = { ...this.owner, idle: true };
      const sharers = liveSharers(now.sharers, { joining: this.owner });
      const text = lockText(owner, sharers);
      await replace(text);
      return { kind: "owner", owner, sharers, text } satisfies IdleLock;
    });
    return written;
  }

  /**
   * Gives the session up: removes the lock file, or, for a lock taken with `releasesWhenIdle`,
   * takes this process off its sharers (the lock falls to a live one; the last removes it).
   * Idempotent; a lock file already gone is fine.
   * @throws when the lock file could not be removed (a folder made unwritable): an error saying
   * `<lock> could not be removed (<cause>)` and that its owner's end lets the next opener take it.
   */
  async release(): Promise<void> {
    if (this.released) {
      return;
    }
    this.released = true;
    await this.#giveUp().catch((error: unknown) => {
      leftBehind.add(this.path);
      throw error;
    });
  }

  async #giveUp(): Promise<void> {
    if (this.owner.releasesWhenIdle === true) {
      await underBreaker(this.path, (replace) => this.#leave(replace));
      return;
    }
    await unlink(this.path).catch((error: unknown) => {
      if (errorCode(error) !== "ENOENT") {
        // Node's message names the path too: it is said once.
        const cause = errorMessage(error).replace(` '${this.path}'`, "");
        throw new Error(
          `${this.path} could not be removed (${cause}): it names this process, so once that has ended the next opener of the session takes it over`,
          { cause: error },
        );
      }
    });
  }

  async #leave(replace: ReplaceLock): Promise<void> {
    const now = readLock(this.path);
    if (now.kind !== "owner") {
      return;
    }
    const sharers = liveSharers(now.sharers, { leaving: this.owner });
    if (sameProcess(now.owner, this.owner)) {
      await handOver(this.path, sharers, replace);
    } else if (sharers.length !== now.sharers.length) {
      await replace(lockText(now.owner, sharers));
    }
  }
}

/** Takes `holder`'s idle lock for `owner`, unless it changed meanwhile. */
async function takeIdle(
  path: string,
  holder: Extract<Held, { kind: "owner" }>,
  owner: LockOwner,
): Promise<boolean> {
  const taken = await underBreaker(path, async (replace) => {
    const now = readLock(path);
    if (now.kind === "gone" || now.text !== holder.text) {
      return false;
    }
    await replace(lockText(owner, liveSharers(holder.sharers, { joining: owner })));
    return true;
  });
  return taken === true;
}

async function isStale(holder: Held, path: string): Promise<boolean> {
  if (holder.kind === "owner") {
    const here = holder.owner.hostname === ownHostname();
    const ownLeftBehind = holder.owner.pid === process.pid && leftBehind.has(path);
    return here && (ownLeftBehind || !isAlive(holder.owner.pid));
  }
  const modified = await stat(path).then(
    (stats) => stats.mtimeMs,
    () => Date.now(),
  );
  return Date.now() - modified > UNREADABLE_GRACE_MS;
}

/**
 * Removes the stale lock at `path` if it still holds what `holder` read, under `lock.break`; its
 * live sharers keep the session open, so it becomes held idle by one of them.
 */
async function breakStaleLock(path: string, holder: Held): Promise<void> {
  await underBreaker(path, async (replace) => {
    const now = readLock(path);
    if (now.kind !== "gone" && now.text === holder.text) {
      const sharers = holder.kind === "owner" ? liveSharers(holder.sharers) : [];
      // This process gave up a lock it left behind: it shares it no more.
      const own = leftBehind.has(path);
      const others = own ? sharers.filter((sharer) => sharer.pid !== process.pid) : sharers;
      await handOver(path, others, replace);
    }
  });
}

function ownerOf(holder: Held): LockOwner | undefined {
  return holder.kind === "owner" ? holder.owner : undefined;
}

/** {@link ownCommand}'s answer, made once: the arguments of a process do not change. */
let thisCommand: string | undefined;

/**
 * `turnloop <arguments>` of this process, for other processes' error messages (and, with
 * PostgreSQL, the `sessions.owner` column) as lock-file.ts {@link shownCommand} shows it: a
 * URL's password and secret query values (`--store`, `--base-url`) as `***`, API keys and bearer
 * tokens cut. Made once per process (every lease taken writes it).
 */
export function ownCommand(): string {
  // Each argument redacted whole: a URL's password may hold a space (trial 42 finding 8).
  thisCommand ??= shownCommand(redactedArguments(["turnloop", ...process.argv.slice(2)]));
  return thisCommand;
}

/**
 * Creates the lock file at `path` with `text` (`O_EXCL`: `EEXIST` when there is one). A lock
 * created but not written (a full disk) would read as held by nobody for a while: it is removed.
 */
async function createLock(path: string, text: string): Promise<void> {
  const fd = await createFile(path, "wx", 0o666);
  try {
    writeAndClose(fd, text);
  } catch (error) {
    await unlink(path).catch(() => undefined);
    throw error;
  }
}
