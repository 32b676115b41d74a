import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { SessionLock, SessionLockedError } from "../../src/session/session-lock.js";

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "turnloop-lock-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""]);
  const pid = child.pid ?? 0;
  await new Promise((resolve) => child.on("exit", resolve));
  return pid;
}

describe("SessionLock", () => {
  test("names its owner, refuses a second holder in this process, and is free after release", async () => {
    const lock = await SessionLock.acquire(directory, "s1");
    const owner = JSON.parse(await readFile(SessionLock.pathIn(directory), "utf8"));
    expect(owner).toMatchObject({ pid: process.pid, hostname: hostname() });
    const second = SessionLock.acquire(directory, "s1");
    await expect(second).rejects.toBeInstanceOf(SessionLockedError);
    await expect(second).rejects.toThrow(/^Session s1 is open in another process \(this process: /);
    expect(await SessionLock.holder(directory)).toMatchObject({ pid: process.pid });
    await lock.release();
    await lock.release();
    expect(await SessionLock.holder(directory)).toBeUndefined();
    await (await SessionLock.acquire(directory, "s1")).release();
  });

  test("two openers racing for a dead owner's lock: exactly one wins", async () => {
    const stale = { pid: await deadPid(), hostname: hostname(), command: "x", acquiredAt: "then" };
    await writeFile(SessionLock.pathIn(directory), JSON.stringify(stale));
    expect(await SessionLock.holder(directory)).toBeUndefined();
    const results = await Promise.allSettled(
      Array.from({ length: 4 }, () => SessionLock.acquire(directory, "s1")),
    );
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    for (const result of results) {
      if (result.status === "rejected") {
        expect(result.reason).toBeInstanceOf(SessionLockedError);
      }
    }
    const owner = JSON.parse(await readFile(SessionLock.pathIn(directory), "utf8"));
    expect(owner.pid).toBe(process.pid);
  });

  test("a half-written lock counts as held until it is old, then is taken over", async () => {
    await writeFile(SessionLock.pathIn(directory), "");
    await expect(SessionLock.acquire(directory, "s1")).rejects.toThrow(
      "its lock file is being written or is damaged",
    );
    expect(await SessionLock.holder(directory)).toBe("unreadable");
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(SessionLock.pathIn(directory), minuteAgo, minuteAgo);
    await (await SessionLock.acquire(directory, "s1")).release();
  });
});
