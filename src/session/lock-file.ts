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
 * breaking a stale lock) runs under `lock.break`, created with `O_EXCL`, and replaces the file
 * with `rename` (atomic), so a reader sees the old or the new contents and an `O_EXCL` creator
 * never finds the file missing meanwhile.
 */

import { readFileSync } from "node:fs";
import { rename, stat, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { errorCode } from "../events/errors.js";
import type { LeaseHolder } from "./session-store.js";

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

function parseOwner(value: unknown): LeaseHolder | undefined {
  const parsed = (typeof value === "object" && value !== null ? value : {}) as Partial<LeaseHolder>;
  if (typeof parsed.pid !== "number" || typeof parsed.hostname !== "string") {
    return undefined;
  }
  return {
    pid: parsed.pid,
    hostname: parsed.hostname,
    command: typeof parsed.command === "string" ? parsed.command : "?",
    acquiredAt: typeof parsed.acquiredAt === "string" ? parsed.acquiredAt : "?",
    ...(parsed.releasesWhenIdle === true ? { releasesWhenIdle: true } : {}),
    ...(parsed.idle === true ? { idle: true } : {}),
  };
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
 * The lock file held idle by the first of `sharers` (the others listed), or none (unlinked) when
 * `sharers` is empty. Call under {@link underBreaker}.
 */
export async function handOver(path: string, sharers: readonly LeaseHolder[]): Promise<void> {
  const [first] = sharers;
  if (first === undefined) {
    await unlink(path).catch((error: unknown) => {
      if (errorCode(error) !== "ENOENT") {
        throw error;
      }
    });
    return;
  }
  await replaceLock(path, lockText({ ...first, idle: true }, sharers));
}

/** Replaces the lock file at `path` with `text` at once (`rename`). Call under the breaker. */
export async function replaceLock(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.new`;
  await writeFile(temporary, text, { mode: 0o600 });
  await rename(temporary, path);
}

/**
 * Runs `change` holding `<path>.break`; waits up to {@link BREAKER_WAIT_MS} while another process
 * holds it (one left by a crash for longer than {@link UNREADABLE_GRACE_MS} is removed).
 * @returns `undefined` when the breaker stayed busy (nothing was run).
 * @throws what `change` throws; I/O errors.
 */
export async function underBreaker<T>(
  path: string,
  change: () => Promise<T>,
): Promise<T | undefined> {
  const breaker = `${path}.break`;
  const until = Date.now() + BREAKER_WAIT_MS;
  for (let wait = 5; ; wait = Math.min(100, wait * 2)) {
    try {
      await writeFile(breaker, String(process.pid), { flag: "wx" });
      break;
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
  try {
    return await change();
  } finally {
    await unlink(breaker).catch(() => undefined);
  }
}
