import fs, { existsSync } from "node:fs";
import { readdir, readFile, readlink, writeFile } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { createEnvelope } from "../../src/session/envelope.js";
import { serializeEvent } from "../../src/session/event-log.js";
import { FileSessionStore } from "../../src/session/file-store.js";
import { LOG_POLL_BATCH, LOG_POLL_MS, LogWatches } from "../../src/session/log-watch.js";
import { eventsPath, sessionDirectory } from "../../src/session/paths.js";
import { metadataPath } from "../../src/session/session-metadata.js";
import { threadPoolRequests } from "../support/thread-pool.js";
import { bytesReadDuring, canCountReads } from "./store-contract.js";
import { appendAfter } from "./subscribe-contract.js";
import { buildEvents, makeTemporaryDirectory, sessionStart, userMessage } from "./support.js";

/** Where this process's open files are listed (Linux). CI runs on Linux: never skipped there. */
const OPEN_FILES = "/proc/self/fd";
const canListOpenFiles = existsSync(OPEN_FILES) || process.env.CI === "true";

/** How many of this process's file descriptors are open on `path` (deleted or not). */
async function filesOpenOn(path: string): Promise<number> {
  let count = 0;
  for (const fd of await readdir(OPEN_FILES)) {
    const target = await readlink(`${OPEN_FILES}/${fd}`).catch(() => "");
    if (target === path || target === `${path} (deleted)`) {
      count += 1;
    }
  }
  return count;
}

describe("the file store with many sessions in one process (issue 26)", () => {
  it.skipIf(!canListOpenFiles)(
    "keep the log open while following, close it when closed, and let a deleted session's log go",
    async () => {
      const home = await makeTemporaryDirectory();
      const store = new FileSessionStore(home);
      const path = eventsPath(home, "s1");
      const appender = await store.create("s1");
      const first = appendAfter(appender, [sessionStart("s1"), userMessage("one")]);
      await appender.commit();
      expect(await filesOpenOn(path)).toBe(1);

      const received: Array<{ seq: number; id: string }> = [];
      const follow = () =>
        store.subscribe("s1", 1, (event, seq) => received.push({ seq, id: event.id }));
      const subscription = await follow();
      // One handle per follower, kept between reads: a wake-up with nothing new opens nothing.
      expect(await filesOpenOn(path)).toBe(2);
      await subscription.readNow();
      await subscription.readNow();
      expect(await filesOpenOn(path)).toBe(2);
      await subscription.close();
      expect(await filesOpenOn(path)).toBe(1);
      expect(received).toEqual(first.map((event, index) => ({ seq: index + 1, id: event.id })));

      received.length = 0;
      const following = await follow();
      await appender.close();
      expect(await store.delete("s1")).toBe(true);
      // The next read finds the log deleted: following ends and its handle is closed.
      await following.readNow();
      expect(await filesOpenOn(path)).toBe(0);
      const again = await store.create("s1");
      appendAfter(again, [sessionStart("s1")]);
      await again.commit();
      await following.readNow();
      expect(received.map((entry) => entry.seq)).toEqual([1, 2]);
      await following.close();
      await again.close();
    },
  );

  it.skipIf(!canListOpenFiles)(
    "follow a log let go idle without opening it until something is appended (a lease let go and taken back opens nothing for its follower)",
    async () => {
      const home = await makeTemporaryDirectory();
      const store = new FileSessionStore(home);
      const path = eventsPath(home, "s1");
      const idle = { releasesWhenIdle: true };
      const first = await store.create("s1", idle);
      const before = appendAfter(first, [sessionStart("s1"), userMessage("one")]);
      await first.commit();
      const giveUp = await first.closeIdle?.();
      expect(await filesOpenOn(path)).toBe(0);

      const received: Array<{ seq: number; id: string }> = [];
      const subscription = await store.subscribe("s1", 3, (event, seq) =>
        received.push({ seq, id: event.id }),
      );
      await subscription.readNow();
      expect(await filesOpenOn(path)).toBe(0);

      // Another process appends (here: the lease taken and a line stored): read with one handle.
      const other = await store.open("s1", { ...idle, fromSeq: 3 });
      const after = appendAfter(other.appender, [userMessage("two")], before[1]);
      await other.appender.commit();
      await subscription.readNow();
      expect(received).toEqual([{ seq: 3, id: after[0]?.id }]);
      expect(await filesOpenOn(path)).toBe(2);
      await subscription.close();
      await other.appender.close();
      await giveUp?.();
      expect(await filesOpenOn(path)).toBe(0);
    },
  );

  it.skipIf(!canCountReads)(
    "take a lease let go idle back, and follow the log meanwhile, reading only what was appended since",
    async () => {
      const home = await makeTemporaryDirectory();
      const store = new FileSessionStore(home);
      const idle = { releasesWhenIdle: true };
      const first = await store.create("s1", idle);
      const big = userMessage(`big ${"z".repeat(4 * 1024 * 1024)}`);
      const before = appendAfter(first, [sessionStart("s1"), big, userMessage("one")]);
      await first.commit();
      const giveUpFirst = await first.closeIdle?.();
      expect(giveUpFirst).toBeDefined();

      const received: Array<{ seq: number; id: string }> = [];
      const follow = () =>
        store.subscribe("s1", 4, (event, seq) => received.push({ seq, id: event.id }));
      let subscription: Awaited<ReturnType<typeof follow>> | undefined;
      expect(await bytesReadDuring(async () => (subscription = await follow()))).toBeLessThan(
        64 * 1024,
      );
      let opened: Awaited<ReturnType<typeof store.open>> | undefined;
      const open = async () => (opened = await store.open("s1", { ...idle, fromSeq: 4 }));
      expect(await bytesReadDuring(open)).toBeLessThan(64 * 1024);
      // The last line read again (to check it is the one appended here), nothing before it.
      expect(opened?.log).toEqual({
        events: [before[2]],
        seqs: [3],
        repaired: [],
        nextSeq: 4,
      });
      const second = opened?.appender;
      if (second === undefined) {
        throw new Error("not opened");
      }
      const after = appendAfter(second, [userMessage("two")], before[2]);
      await second.commit();
      await subscription?.readNow();
      expect(received).toEqual([{ seq: 4, id: after[0]?.id }]);
      await subscription?.close();
      await second.close();

      const whole = await store.read("s1");
      expect(whole.events).toEqual([...before, ...after]);
      expect(whole.seqs).toEqual([1, 2, 3, 4]);
      expect(await store.list()).toMatchObject([{ sessionId: "s1", eventCount: 4, turns: 0 }]);
    },
  );

  it("let a lease go idle and take it back, nothing appended between: the thread pool gets only the lock's two changes (the log is closed, reopened, sized and read on the main thread)", async () => {
    const home = await makeTemporaryDirectory();
    const store = new FileSessionStore(home);
    const idle = { releasesWhenIdle: true };
    const first = await store.create("s1", idle);
    const before = appendAfter(first, [sessionStart("s1"), userMessage("one")]);
    await first.commit();
    let opened: Awaited<ReturnType<typeof store.open>> | undefined;
    const requests = await threadPoolRequests(async () => {
      await first.closeIdle?.();
      opened = await store.open("s1", { ...idle, fromSeq: 3 });
    });
    // Each lock change: lock.break created, then renamed onto the lock (session-lock.test.ts).
    expect(requests).toBe(2 * 2);
    expect(opened?.log).toEqual({ events: [before[1]], seqs: [2], repaired: [], nextSeq: 3 });
    const after = appendAfter(opened?.appender ?? first, [userMessage("two")], before[1]);
    await opened?.appender.commit();
    await opened?.appender.close();
    expect((await store.read("s1")).events).toEqual([...before, ...after]);
  });

  it("take a lease let go idle back reading the whole log when its last line is not the one appended here", async () => {
    const home = await makeTemporaryDirectory();
    const store = new FileSessionStore(home);
    const idle = { releasesWhenIdle: true };
    const first = await store.create("s1", idle);
    appendAfter(first, [sessionStart("s1"), userMessage("one")]);
    await first.commit();
    await first.closeIdle?.();
    // The file replaced behind the store's back (by hand): another log of other events.
    const replaced = buildEvents([sessionStart("s1"), userMessage("other"), userMessage("more")]);
    await writeFile(eventsPath(home, "s1"), replaced.map(serializeEvent).join(""));

    const opened = await store.open("s1", { ...idle, fromSeq: 3 });
    expect(opened.log).toEqual({ events: replaced, seqs: [1, 2, 3], repaired: [], nextSeq: 4 });
    await opened.appender.close();
  });

  it("hold a recorded commit's events without a sync: it settles before a checkpoint's sync under way, and the line is in the file", async () => {
    const home = await makeTemporaryDirectory();
    const appender = await new FileSessionStore(home).create("s1");
    const [start] = appendAfter(appender, [sessionStart("s1")]);
    await appender.commit();
    const [prompt] = appendAfter(appender, [userMessage("one")], start);
    const settled: string[] = [];
    const requests = await threadPoolRequests(async () => {
      // A turn's end: its sync under way, not awaited (session.ts); then a model request's wait.
      const checkpoint = appender
        .commit({ checkpoint: true })
        .then(() => settled.push("checkpoint"));
      await appender
        .commit({ checkpoint: true, recorded: true })
        .then(() => settled.push("recorded"));
      await checkpoint;
    });
    expect(settled).toEqual(["recorded", "checkpoint"]);
    // The checkpoint's fdatasync alone: the recorded commit sent the thread pool nothing.
    expect(requests).toBe(1);
    const lines = (await readFile(eventsPath(home, "s1"), "utf8")).trimEnd().split("\n");
    expect(lines.map((line) => (JSON.parse(line) as { id: string }).id).at(-1)).toBe(prompt?.id);
    await appender.close();
  });

  it("take a lease let go idle back without storing the listing metadata again at the next prompt's checkpoint", async () => {
    const home = await makeTemporaryDirectory();
    const store = new FileSessionStore(home);
    const idle = { releasesWhenIdle: true };
    const metadataEvents = async () => {
      const text = await readFile(metadataPath(sessionDirectory(home, "s1")), "utf8");
      return (JSON.parse(text) as { scan: { eventCount: number } }).scan.eventCount;
    };
    const first = await store.create("s1", idle);
    const before = appendAfter(first, [sessionStart("s1")]);
    await first.commit();
    await first.closeIdle?.();
    expect(await metadataEvents()).toBe(1);

    const opened = await store.open("s1", { ...idle, fromSeq: 2 });
    const ones = appendAfter(opened.appender, [userMessage("one")], before[0]);
    // A checkpoint (a tool's start, a turn's end) after the metadata stored at closeIdle.
    await opened.appender.commit({ checkpoint: true });
    expect(await metadataEvents()).toBe(1);
    // The prompt's end stores it.
    await opened.appender.commit();
    expect(await metadataEvents()).toBe(2);
    await opened.appender.closeIdle?.();

    // Appended behind its back (another process): the next appender's first checkpoint stores it.
    const other = [createEnvelope(userMessage("other"), ones[0]?.id ?? null)];
    await writeFile(eventsPath(home, "s1"), other.map(serializeEvent).join(""), { flag: "a" });
    const again = await store.open("s1", { ...idle, fromSeq: 3 });
    appendAfter(again.appender, [userMessage("two")], other[0]);
    await again.appender.commit({ checkpoint: true });
    expect(await metadataEvents()).toBe(4);
    await again.appender.close();
  });
});

/** How many times `fs.readFileSync` (Node's, counted) read `path` while `run` ran. */
async function syncReadsOf(path: string, run: () => Promise<void>): Promise<number> {
  let reads = 0;
  const readFileSync = fs.readFileSync;
  fs.readFileSync = ((file: fs.PathOrFileDescriptor, options?: unknown) => {
    reads += file === path ? 1 : 0;
    return readFileSync(file, options as BufferEncoding);
  }) as typeof fs.readFileSync;
  syncBuiltinESMExports();
  try {
    await run();
  } finally {
    fs.readFileSync = readFileSync;
    syncBuiltinESMExports();
  }
  return reads;
}

describe("a lease let go idle and taken back by this process (issue 26 figure 7d)", () => {
  it("reads the lock only under its breaker: once to let it go, once to take it back", async () => {
    const home = await makeTemporaryDirectory();
    const store = new FileSessionStore(home);
    const idle = { releasesWhenIdle: true };
    const created = await store.create("s1", idle);
    let last = appendAfter(created, [sessionStart("s1")]);
    await created.commit();
    let giveUp = await created.closeIdle?.();
    const lock = join(sessionDirectory(home, "s1"), "lock");
    const cycles = 3;
    const reads = await syncReadsOf(lock, async () => {
      for (let cycle = 0; cycle < cycles; cycle++) {
        const { appender } = await store.open("s1", { ...idle, fromSeq: 2 + cycle });
        last = appendAfter(appender, [userMessage(`prompt ${cycle}`)], last.at(-1));
        await appender.commit();
        giveUp = await appender.closeIdle?.();
      }
    });
    expect(reads).toBe(2 * cycles);
    expect(JSON.parse(await readFile(lock, "utf8"))).toMatchObject({
      pid: process.pid,
      idle: true,
      sharers: [{ pid: process.pid }],
    });
    await giveUp?.();
    expect(existsSync(lock)).toBe(false);
  });
});

describe("the poll of watched logs (log-watch.ts)", () => {
  it("wakes at most a batch of logs a tick, each in turn, with one timer for all", () => {
    vi.useFakeTimers();
    try {
      const woken: string[] = [];
      const watches = new LogWatches((path) => woken.push(path));
      const paths = Array.from(
        { length: LOG_POLL_BATCH * 2 + 50 },
        (_, index) => `/missing/${index}`,
      );
      const stops = paths.map((path) => watches.watch(path));
      expect(vi.getTimerCount()).toBe(1);
      vi.advanceTimersByTime(LOG_POLL_MS);
      expect(woken).toEqual(paths.slice(0, LOG_POLL_BATCH));
      vi.advanceTimersByTime(2 * LOG_POLL_MS);
      expect(new Set(woken)).toEqual(new Set(paths));
      expect(woken).toHaveLength(3 * LOG_POLL_BATCH);
      for (const stop of stops) {
        stop();
      }
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
