import { spawn } from "node:child_process";
import { once } from "node:events";
import { appendFile, mkdir, readdir, readFile, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FileSessionStore } from "../../src/session/file-store.js";
import { eventsPath, sessionDirectory, sessionsRoot } from "../../src/session/paths.js";
import { removeTree } from "../support/remove-tree.js";
import { appendingScript, runScript } from "./other-process.js";
import {
  bytesReadDuring,
  canCountReads,
  describeSessionStore,
  type StoreUnderTest,
} from "./store-contract.js";
import { describeSubscriptions } from "./subscribe-contract.js";
import {
  buildEvents,
  makeTemporaryDirectory,
  sessionStart,
  toJsonl,
  userMessage,
} from "./support.js";

const FILE_STORE_MODULE = fileURLToPath(
  new URL("../../dist/session/file-store.js", import.meta.url),
);

/** A process that opens the session through the built file store and waits to be killed. */
const HOLDER_SCRIPT = `
const { FileSessionStore } = await import(process.argv[1]);
await new FileSessionStore(process.argv[2]).open(process.argv[3]);
process.stdout.write("held\\n");
setInterval(() => undefined, 1 << 30);
`;

async function createFileStore(): Promise<StoreUnderTest> {
  const home = await makeTemporaryDirectory();
  return {
    store: new FileSessionStore(home),
    async holdInAnotherProcess(sessionId) {
      const child = spawn(
        process.execPath,
        ["--input-type=module", "-e", HOLDER_SCRIPT, FILE_STORE_MODULE, home, sessionId],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      const exited = once(child, "exit");
      const [chunk] = (await Promise.race([once(child.stdout, "data"), exited])) as unknown[];
      if (String(chunk) !== "held\n" || child.pid === undefined) {
        throw new Error("the holder process did not take the lease (is dist/ built?)");
      }
      return {
        pid: child.pid,
        async kill() {
          child.kill("SIGKILL");
          await exited;
        },
      };
    },
    appendInAnotherProcess: (sessionId, events, commitEvery) =>
      runScript(
        appendingScript("new (await import(argv[0])).FileSessionStore(argv[1])"),
        [FILE_STORE_MODULE, home],
        { sessionId, events, commitEvery },
      ),
    appendRaw: (sessionId, bytes) => appendFile(eventsPath(home, sessionId), bytes),
    cleanup: () => removeTree(home),
  };
}

describeSessionStore("file store", createFileStore);
describeSubscriptions("file store", createFileStore);

describe("the file store's listing metadata", () => {
  it.skipIf(!canCountReads)(
    "describes an old log without metadata once, then lists it from its metadata",
    async () => {
      const home = await makeTemporaryDirectory();
      const events = buildEvents([
        sessionStart("old"),
        userMessage(`old ${"z".repeat(4 * 1024 * 1024)}`),
        { type: "assistant.turn_start", data: { turnId: "0" } },
        { type: "assistant.turn_start", data: { turnId: "1" } },
      ]);
      const log = toJsonl(events.slice(0, 3));
      await mkdir(sessionDirectory(home, "old"), { recursive: true });
      await writeFile(eventsPath(home, "old"), log);
      const store = new FileSessionStore(home);

      const listings: unknown[] = [];
      const list = async () => listings.push(await store.list());
      expect(await bytesReadDuring(list)).toBeGreaterThan(4 * 1024 * 1024);
      expect(await bytesReadDuring(list)).toBeLessThan(64 * 1024);
      const [first, second] = listings;
      expect(second).toEqual(first);
      expect(first).toMatchObject([{ sessionId: "old", turns: 1, eventCount: 3 }]);

      // A writer killed between commits leaves lines past the metadata: only those are read.
      const more = toJsonl(events.slice(3));
      await appendFile(eventsPath(home, "old"), more);
      expect(await bytesReadDuring(list)).toBeLessThan(64 * 1024);
      expect(listings[2]).toMatchObject([{ sessionId: "old", turns: 2, eventCount: 4 }]);
    },
  );

  it("removes a folder that holds only the lock of a dead process, and keeps a live one's", async () => {
    const home = await makeTemporaryDirectory();
    const store = new FileSessionStore(home);
    const dead = spawn(process.execPath, ["-e", ""]);
    await once(dead, "exit");
    const lockOf = (pid: number | undefined) =>
      JSON.stringify({ pid, hostname: hostname(), command: "turnloop", acquiredAt: "x" });
    // A folder dated long ago: the store treats it as left behind, not as one being created now.
    const old = new Date("2026-01-01T00:00:00.000Z");
    for (const [sessionId, pid] of [
      ["killed-early", dead.pid],
      ["killed-before-first-event", dead.pid],
      ["being-created", process.pid],
    ] as const) {
      await mkdir(sessionDirectory(home, sessionId), { recursive: true });
      await writeFile(join(sessionDirectory(home, sessionId), "lock"), lockOf(pid));
      if (sessionId !== "killed-early") {
        await writeFile(eventsPath(home, sessionId), "");
      }
      await utimes(sessionDirectory(home, sessionId), old, old);
    }
    expect(await store.list()).toEqual([]);
    expect(await readdir(sessionsRoot(home))).toEqual(["being-created"]);
  });
});

describe("the file store's listing metadata of an earlier version", () => {
  it("lists a name an earlier version's metadata (5, without names) left out, read from the log once", async () => {
    const home = await makeTemporaryDirectory();
    const events = buildEvents([
      sessionStart("named"),
      userMessage("fix the build"),
      { type: "assistant.turn_start", data: { turnId: "t1" } },
      {
        type: "assistant.turn_end",
        data: { turnId: "t1", status: "completed", stopReason: "end_turn" },
      },
      { type: "session.title_changed", data: { title: "build fix" } },
    ]);
    const log = toJsonl(events);
    await mkdir(sessionDirectory(home, "named"), { recursive: true });
    await writeFile(eventsPath(home, "named"), log);
    // What turnloop wrote before names were listed: the same log, described in full.
    const scan = {
      size: Buffer.byteLength(log),
      eventCount: 5,
      turns: 1,
      failedTurn: null,
      start: { cwd: "/work/project", model: "openai:gpt-5", startTime: "2026-03-01T10:00:00.000Z" },
      model: null,
      firstPrompt: "fix the build",
      forkedFrom: null,
      lastTimestamp: events.at(-1)?.timestamp,
      lastId: events.at(-1)?.id,
    };
    const metadata = join(sessionDirectory(home, "named"), "metadata.json");
    await writeFile(metadata, `${JSON.stringify({ version: 5, scan })}\n`);
    const store = new FileSessionStore(home);
    const expected = {
      sessionId: "named",
      cwd: "/work/project",
      model: "openai:gpt-5",
      startTime: "2026-03-01T10:00:00.000Z",
      lastActivity: events.at(-1)?.timestamp,
      turns: 1,
      eventCount: 5,
      size: Buffer.byteLength(log),
      firstPrompt: "fix the build",
      name: "build fix",
      eventsPath: eventsPath(home, "named"),
    };
    expect(await store.list()).toEqual([expected]);
    // Described again with the name: the next listing reads it from there.
    expect(JSON.parse(await readFile(metadata, "utf8"))).toMatchObject({
      scan: { name: "build fix" },
    });
    expect(await store.list()).toEqual([expected]);
  });
});
