import { watch } from "node:fs";
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { underBreaker } from "../../src/session/lock-file.js";
import { SessionLock, SessionLockedError } from "../../src/session/session-lock.js";
import { deadPid } from "../support/processes.js";
import { threadPoolRequests } from "../support/thread-pool.js";

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "turnloop-lock-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

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

  test("a refusal says who holds the lock: a live process here as running, with nothing to remove; another machine's names the lock file", async () => {
    const path = SessionLock.pathIn(directory);
    const live = {
      pid: process.ppid,
      hostname: hostname(),
      command: "turnloop --headless",
      acquiredAt: "then",
    };
    await writeFile(path, JSON.stringify(live));
    await expect(SessionLock.acquire(directory, "s1")).rejects.toThrow(
      new SessionLockedError("s1", live, path),
    );
    expect(new SessionLockedError("s1", live, path).message).toBe(
      `Session s1 is open in another process (pid ${process.ppid}, running: turnloop --headless, since then); close it there first.`,
    );
    const elsewhere = { ...live, hostname: "elsewhere" };
    await writeFile(path, JSON.stringify(elsewhere));
    await expect(SessionLock.acquire(directory, "s1")).rejects.toThrow(
      `Session s1 is open in another process (pid ${process.ppid} on elsewhere: turnloop --headless, since then); close it there first. If that process is gone, remove ${path} (another machine's process cannot be checked from here).`,
    );
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

describe("a lock held idle (a server that lets the lease go while idle, issue 25)", () => {
  const path = () => SessionLock.pathIn(directory);
  const read = async () => JSON.parse(await readFile(path(), "utf8"));
  /** A server in another live process (this test's parent) that has the session open, idle. */
  const otherServer = {
    pid: process.ppid,
    hostname: hostname(),
    command: "turnloop --headless",
    acquiredAt: "then",
    releasesWhenIdle: true,
  };

  test("is kept marked idle; only another server takes it; the last server to leave removes it", async () => {
    const lock = await SessionLock.acquire(directory, "s1", { releasesWhenIdle: true });
    const me = withoutSharers(await read());
    await lock.markIdle();
    expect(await read()).toEqual({ ...me, idle: true, sharers: [me] });
    // The terminal, -p, ACP and a delete are refused, naming the idle holder.
    const refused = SessionLock.acquire(directory, "s1");
    await expect(refused).rejects.toMatchObject({ owner: { ...me, idle: true } });
    expect(await SessionLock.holder(directory)).toEqual({ ...me, idle: true });

    // Another server opened it too: it is held idle by that one while it is open there.
    await writeFile(
      path(),
      JSON.stringify({ ...otherServer, idle: true, sharers: [me, otherServer] }),
    );
    await lock.release();
    expect(await read()).toEqual({ ...otherServer, idle: true, sharers: [otherServer] });
    const taken = await SessionLock.acquire(directory, "s1", { releasesWhenIdle: true });
    const mine = await read();
    expect(mine).toMatchObject({ pid: process.pid, releasesWhenIdle: true });
    expect(mine.idle).toBeUndefined();
    expect(mine.sharers).toEqual(
      [otherServer, { ...mine, sharers: undefined }].map(withoutSharers),
    );
    await taken.release();
    expect(await read()).toEqual({ ...otherServer, idle: true, sharers: [otherServer] });

    // Once the other server has left as well, nobody holds it.
    await writeFile(path(), JSON.stringify({ ...me, idle: true, sharers: [me] }));
    await lock.release();
    const again = await SessionLock.acquire(directory, "s1", { releasesWhenIdle: true });
    await again.release();
    await expect(readFile(path())).rejects.toMatchObject({ code: "ENOENT" });
  });

  test("a take-back from the lock as this process left it idle, when another server changed it meanwhile, goes by the lock as it is", async () => {
    const lock = await SessionLock.acquire(directory, "s1", { releasesWhenIdle: true });
    const me = withoutSharers(await read());
    const left = await lock.markIdle();
    expect(left?.owner).toEqual({ ...me, idle: true });
    const idle = { releasesWhenIdle: true };

    // Another server took it over and holds it while its prompt runs: refused, naming that one.
    await writeFile(path(), JSON.stringify({ ...otherServer, sharers: [me, otherServer] }));
    const refused = SessionLock.acquire(directory, "s1", idle, left);
    await expect(refused).rejects.toMatchObject({ owner: otherServer });

    // It let the lease go idle again: taken from it, both servers listed as sharers.
    await writeFile(
      path(),
      JSON.stringify({ ...otherServer, idle: true, sharers: [me, otherServer] }),
    );
    const taken = await SessionLock.acquire(directory, "s1", idle, left);
    const mine = await read();
    expect(mine).toMatchObject({ pid: process.pid, releasesWhenIdle: true });
    expect(mine.idle).toBeUndefined();
    expect(mine.sharers).toEqual(
      [otherServer, { ...mine, sharers: undefined }].map(withoutSharers),
    );
    expect((await readdir(directory)).sort()).toEqual(["lock"]);
    await taken.release();
  });

  test("letting the lease go idle and taking it back creates one file a change, the breaker, which becomes the lock (issue 26 7d)", async () => {
    const lock = await SessionLock.acquire(directory, "s1", { releasesWhenIdle: true });
    const me = withoutSharers(await read());
    const names: string[] = [];
    const done = new Promise<void>((resolve) => {
      const watcher = watch(directory, (_kind, name) => {
        names.push(String(name));
        if (name === "done") {
          watcher.close();
          resolve();
        }
      });
    });
    await lock.markIdle();
    expect(await read()).toEqual({ ...me, idle: true, sharers: [me] });
    const taken = await SessionLock.acquire(directory, "s1", { releasesWhenIdle: true }, true);
    const mine = await read();
    expect(mine).toMatchObject({ pid: process.pid, releasesWhenIdle: true });
    expect(mine.idle).toBeUndefined();
    // The gate: the watcher has seen every change made before this file.
    await writeFile(join(directory, "done"), "");
    await done;
    // Each change: `lock.break` made, then renamed onto `lock`; no temporary copy, nothing left.
    expect([...new Set(names)].sort()).toEqual(["done", "lock", "lock.break"]);
    expect((await readdir(directory)).sort()).toEqual(["done", "lock"]);
    await taken.release();
  });

  test("letting the lease go idle and taking it back sends the thread pool only the breaker's create and its rename, each time (issue 26 7d)", async () => {
    let lock = await SessionLock.acquire(directory, "s1", { releasesWhenIdle: true });
    const cycles = 3;
    const requests = await threadPoolRequests(async () => {
      for (let cycle = 0; cycle < cycles; cycle++) {
        await lock.markIdle();
        lock = await SessionLock.acquire(directory, "s1", { releasesWhenIdle: true }, true);
      }
    });
    // The breaker's few hundred bytes are written and closed on the main thread (small-file.ts).
    expect(requests).toBe(cycles * 2 * 2);
    expect(await read()).toMatchObject({ pid: process.pid, releasesWhenIdle: true });
    expect((await readdir(directory)).sort()).toEqual(["lock"]);
    await lock.release();
  });

  test("letting the lease go idle and taking it back never asks whether this process is alive (issue 26 7d)", async () => {
    let lock = await SessionLock.acquire(directory, "s1", { releasesWhenIdle: true });
    // `kill(pid, 0)` is how a holder's life is asked (lock-file.ts `isAlive`); each ask of a pid
    // that exists reads `/proc/<pid>/stat` too.
    const asked: number[] = [];
    const kill = process.kill;
    process.kill = (pid: number, signal?: string | number) => {
      asked.push(pid);
      return kill.call(process, pid, signal);
    };
    try {
      for (let cycle = 0; cycle < 3; cycle++) {
        await lock.markIdle();
        lock = await SessionLock.acquire(directory, "s1", { releasesWhenIdle: true }, true);
      }
    } finally {
      process.kill = kill;
    }
    expect(asked).toEqual([]);
    expect(await read()).toMatchObject({ pid: process.pid, releasesWhenIdle: true });
    await lock.release();
    expect((await readdir(directory)).sort()).toEqual([]);
  });

  test("a change whose breaker was taken over meanwhile leaves the lock and the other process's breaker as they are", async () => {
    const lock = await SessionLock.acquire(directory, "s1", { releasesWhenIdle: true });
    const before = await readFile(path(), "utf8");
    const breaker = `${path()}.break`;
    const change = underBreaker(path(), async (replace) => {
      // As another process does with a breaker older than the grace: removed, and its own made.
      await rm(breaker);
      await writeFile(breaker, "another process's");
      await replace("this process's\n");
    });
    await expect(change).rejects.toThrow(`${breaker} was taken over while this change waited`);
    expect(await readFile(path(), "utf8")).toBe(before);
    expect(await readFile(breaker, "utf8")).toBe("another process's");
    await rm(breaker);
    await lock.release();
  });

  test("a dead writer's lock falls to a live server that has the session open", async () => {
    const dead = { pid: await deadPid(), hostname: hostname(), command: "x", acquiredAt: "then" };
    const writer = { ...dead, releasesWhenIdle: true };
    await writeFile(path(), JSON.stringify({ ...writer, sharers: [writer, otherServer] }));
    expect(await SessionLock.holder(directory)).toEqual({ ...otherServer, idle: true });
    await expect(SessionLock.acquire(directory, "s1")).rejects.toMatchObject({
      owner: { ...otherServer, idle: true },
    });
    expect(await read()).toEqual({ ...otherServer, idle: true, sharers: [otherServer] });
    await expect(SessionLock.acquire(directory, "s1")).rejects.toBeInstanceOf(SessionLockedError);
  });
});

function withoutSharers(holder: Record<string, unknown>): Record<string, unknown> {
  const { sharers: _sharers, ...rest } = holder;
  return rest;
}
