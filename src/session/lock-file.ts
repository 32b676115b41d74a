/**
 * The contents of a session's `lock` file (session-lock.ts) and the changes made to it in place.
 *
 * The file is JSON: its owner `{pid, hostname, command, acquiredAt, releasesWhenIdle?, idle?}` and,
 * when servers that let the lease go when idle have the session open (idle-lease.ts), `sharers`,
 * those servers' owners. `idle: true` marks a lock that its owner holds idle: the session is open
 * there but nobody writes, so another server may take the lease (the terminal, `-p` and ACP are
 * refused as by any holder).
 *
 * Every change of an existing lock file (taking an idle lease, marking it idle, a sharer leaving,
 * breaking a stale lock) runs under `lock.break`, created with `O_EXCL`; the new contents are
 * written into that breaker, which is then renamed onto the lock (atomic), so a reader sees the
 * old or the new contents, an `O_EXCL` creator never finds the file missing meanwhile, and the
 * change lets the breaker go in the same step. One file is created a change, not two (a breaker
 * and a temporary copy): a server taking 1,000 sessions' leases back and letting them go made
 * four files a prompt, and on ext4 a create among many recently deleted files costs the I/O
 * threads hundreds of microseconds of CPU (issue 26 figure 7d, bench/notes/headless.md).
 */

import { readFileSync, statSync } from "node:fs";
import { rename, stat, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { errorCode } from "../events/errors.js";
import { redactedText } from "../llm/shown-values.js";
import type { LeaseHolder } from "./session-store.js";
import { closeQuietly, createFile, writeAndCloseWithInode } from "./small-file.js";

/** How long an unreadable (half-written) lock or a left `lock.break` is assumed in progress. */
export const UNREADABLE_GRACE_MS = 5_000;

/** How long a change waits for another process's `lock.break`, in milliseconds. */
const BREAKER_WAIT_MS = 2_000;

/** A lock file as read. */
export type LockContents =
  | { kind: "owner"; owner: LeaseHolder; sharers: LeaseHolder[]; text: string }
  | { kind: "unreadable"; text: string }
  | { kind: "gone" };

/** The text of a lock file held by `owner`, shared by `sharers` (none: no `sharers` field). */
export function lockText(owner: LeaseHolder, sharers: readonly LeaseHolder[] = []): string {
  return `${JSON.stringify(sharers.length === 0 ? owner : { ...owner, sharers })}\n`;
}

/**
 * Reads the lock file at `path`, synchronously: it is a few hundred bytes, and a read through
 * Node's I/O threads (open, stat, read, close: four round trips) costs the main thread more than
 * the read itself; a server taking 1,000 sessions' leases back and letting them go reads it three
 * times a prompt (issue 26 figure 7d, bench/notes/server.md). Its writes stay asynchronous.
 * @throws I/O errors other than ENOENT.
 */
export function readLock(path: string): LockContents {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") {
      return { kind: "gone" };
    }
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as { sharers?: unknown };
    const owner = parseOwner(parsed);
    if (owner !== undefined) {
      const listed = Array.isArray(parsed.sharers) ? parsed.sharers : [];
      const sharers = listed.map(parseOwner).filter((one) => one !== undefined);
      return { kind: "owner", owner, sharers, text };
    }
  } catch {
    // Half-written or damaged: unreadable.
  }
  return { kind: "unreadable", text };
}

/**
 * A holder's command line as written and shown (lock files, `sessions.owner`, refusals), through
 * llm/shown-values.ts `redactedText`, the one redaction: a URL's password and secret query values
 * as `***`, API keys and bearer tokens cut; at most 200 characters. Applied to what is read back
 * too, so that a record written by an older turnloop is shown without its secrets.
 */
export function shownCommand(command: string): string {
  return redactedText(command).slice(0, 200);
}

function parseOwner(value: unknown): LeaseHolder | undefined {
  const parsed = (typeof value === "object" && value !== null ? value : {}) as Partial<LeaseHolder>;
  if (typeof parsed.pid !== "number" || typeof parsed.hostname !== "string") {
    return undefined;
  }
  return {
    pid: parsed.pid,
    hostname: parsed.hostname,
    command: typeof parsed.command === "string" ? shownCommand(parsed.command) : "?",
    acquiredAt: typeof parsed.acquiredAt === "string" ? parsed.acquiredAt : "?",
    ...(parsed.releasesWhenIdle === true ? { releasesWhenIdle: true } : {}),
    ...(parsed.idle === true ? { idle: true } : {}),
  };
}

/**
 * Whether a process `pid` runs on this machine: `kill(pid, 0)` finds it (`EPERM` counts as alive:
 * it exists but belongs to someone else) and it has not ended as a zombie. A process killed while
 * its parent does not wait for it (a container whose first process reaps no orphans) stays in the
 * process table as a zombie (state `Z` in `/proc/<pid>/stat`) until reaped; it holds nothing.
 * This process is alive without asking: a server taking its own idle leases back and letting
 * them go asks about itself three times a prompt, and Linux builds `/proc/<pid>/stat` by walking
 * every thread of the process (issue 26 figure 7d, bench/notes/fleet24.md).
 */
export function isAlive(pid: number): boolean {
  if (pid === process.pid) {
    return true;
  }
  try {
    process.kill(pid, 0);
  } catch (error) {
    return errorCode(error) !== "ESRCH";
  }
  return !hasEnded(pid);
}

/** Whether Linux's `/proc/<pid>/stat` shows `pid` ended (zombie `Z`, or dead `X`); false elsewhere. */
function hasEnded(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return false;
  }
  // "<pid> (<command, which may hold spaces and parentheses>) <state> …"
  const state = stat.charAt(stat.lastIndexOf(")") + 2);
  return state === "Z" || state === "X";
}

/** This machine's name, asked once (each `os.hostname()` is a system call, and locks ask often). */
let thisHost: string | undefined;

/** This machine's name as lock files record it (`os.hostname()`, asked once per process). */
export function ownHostname(): string {
  thisHost ??= hostname();
  return thisHost;
}

/** Whether `holder` may still run: on another host (never known), or alive here. */
export function mayBeAlive(holder: LeaseHolder): boolean {
  return holder.hostname !== ownHostname() || isAlive(holder.pid);
}

/** Whether `a` and `b` are one process. */
export function sameProcess(a: LeaseHolder, b: LeaseHolder): boolean {
  return a.pid === b.pid && a.hostname === b.hostname;
}

/** `sharers` that may still run, without `leaving`, then `joining` (once). */
export function liveSharers(
  sharers: readonly LeaseHolder[],
  change: { leaving?: LeaseHolder; joining?: LeaseHolder } = {},
): LeaseHolder[] {
  const { leaving, joining } = change;
  const kept = sharers.filter(
    (one) =>
      mayBeAlive(one) &&
      (leaving === undefined || !sameProcess(one, leaving)) &&
      (joining === undefined || !sameProcess(one, joining)),
  );
  return joining === undefined ? kept : [...kept, joining];
}

/**
 * Replaces the lock file with `text` at once (see the file comment). Given by {@link underBreaker}
 * to its change; at most once.
 * @throws I/O errors (the lock is then unchanged).
 */
export type ReplaceLock = (text: string) => Promise<void>;

/**
 * The lock file held idle by the first of `sharers` (the others listed), or none (unlinked) when
 * `sharers` is empty. Call under {@link underBreaker}, with the `replace` it gives.
 */
export async function handOver(
  path: string,
  sharers: readonly LeaseHolder[],
  replace: ReplaceLock,
): Promise<void> {
  const [first] = sharers;
  if (first === undefined) {
    await unlink(path).catch((error: unknown) => {
      if (errorCode(error) !== "ENOENT") {
        throw error;
      }
    });
    return;
  }
  await replace(lockText({ ...first, idle: true }, sharers));
}

/**
 * Runs `change` holding `<path>.break`; waits up to {@link BREAKER_WAIT_MS} while another process
 * holds it (one left by a crash for longer than {@link UNREADABLE_GRACE_MS} is removed). `change`
 * may call the {@link ReplaceLock} it is given: the breaker, written with the new contents,
 * becomes the lock; otherwise the breaker is removed when `change` ends.
 * @returns `undefined` when the breaker stayed busy (nothing was run).
 * @throws what `change` throws; I/O errors.
 */
export async function underBreaker<T>(
  path: string,
  change: (replace: ReplaceLock) => Promise<T>,
): Promise<T | undefined> {
  const breaker = `${path}.break`;
  const fd = await takeBreaker(breaker);
  if (fd === undefined) {
    return undefined;
  }
  // What became of the breaker (set inside `replace`, read after `change`).
  // "gone": renamed onto the lock, or taken over; either way a file of that name is not ours.
  const breakerState: { now: "held" | "closed" | "gone" } = { now: "held" };
  const replace: ReplaceLock = async (text) => {
    if (breakerState.now !== "held") {
      throw new Error(`Programming error: ${path} replaced twice under one breaker.`);
    }
    // Closed by writeAndCloseWithInode whatever happens (small-file.ts: the write of a few hundred
    // bytes and the close are synchronous, the create and the rename go through the thread pool).
    breakerState.now = "closed";
    const ours = writeAndCloseWithInode(fd, text);
    // A change stalled past UNREADABLE_GRACE_MS may have had its breaker removed as left by a
    // crash, and another process's made since: that one is not renamed onto the lock.
    if (statSync(breaker, { throwIfNoEntry: false })?.ino !== ours) {
      breakerState.now = "gone";
      throw new Error(`${breaker} was taken over while this change waited; the lock is unchanged`);
    }
    await rename(breaker, path);
    breakerState.now = "gone";
  };
  try {
    return await change(replace);
  } finally {
    if (breakerState.now === "held") {
      closeQuietly(fd);
    }
    if (breakerState.now !== "gone") {
      await unlink(breaker).catch(() => undefined);
    }
  }
}

/**
 * Creates `breaker` (`O_EXCL`, mode 0600: it becomes the lock), waiting as {@link underBreaker}
 * says. @returns its file descriptor, or `undefined` when it stayed busy.
 */
async function takeBreaker(breaker: string): Promise<number | undefined> {
  const until = Date.now() + BREAKER_WAIT_MS;
  for (let wait = 5; ; wait = Math.min(100, wait * 2)) {
    try {
      return await createFile(breaker, "wx", 0o600);
    } catch (error) {
      if (errorCode(error) !== "EEXIST") {
        throw error;
      }
    }
    const age = await stat(breaker).then(
      (stats) => Date.now() - stats.mtimeMs,
      () => 0,
    );
    if (age > UNREADABLE_GRACE_MS) {
      await unlink(breaker).catch(() => undefined);
    } else if (Date.now() >= until) {
      return undefined;
    } else {
      await sleep(wait);
    }
  }
}
