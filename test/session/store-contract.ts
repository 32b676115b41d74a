/**
 * The SessionStore contract (src/session/session-store.ts), as one suite any implementation runs:
 * `describeSessionStore("file store", createFileStore)` today, the PostgreSQL store of issue 22
 * with its own factory. Everything goes through the port; the factory supplies only what a test
 * cannot do through it (another process holding a lease, bytes a crash leaves behind).
 */

import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { EventInput, SessionEvent } from "../../src/events/events.js";
import { createEnvelope } from "../../src/session/envelope.js";
import { serializeEvent } from "../../src/session/event-log.js";
import {
  type SessionAppender,
  SessionLockedError,
  type SessionStore,
} from "../../src/session/session-store.js";
import { seen } from "./subscribe-contract.js";
import { sessionStart, userMessage } from "./support.js";

/** A store to test, and the few things the port cannot do itself. */
export interface StoreUnderTest {
  store: SessionStore;
  /**
   * Starts another process that takes `sessionId`'s lease and keeps it; resolves once it holds
   * it. `kill` ends that process with SIGKILL (a holder that dies without releasing).
   */
  holdInAnotherProcess(sessionId: string): Promise<{ pid: number; kill(): Promise<void> }>;
  /**
   * Starts another process that opens `sessionId`, appends `events` (already chained after the
   * stored ones) committing after each `commitEvery` of them, and closes it; resolves once it
   * exited.
   */
  appendInAnotherProcess(
    sessionId: string,
    events: readonly SessionEvent[],
    commitEvery: number,
  ): Promise<void>;
  /** Adds `bytes` to the stored log as they are, as a crash or a damaged disk leaves them. */
  appendRaw(sessionId: string, bytes: Buffer): Promise<void>;
  /** Removes everything the store made. */
  cleanup(): Promise<void>;
}

const PROC_IO = "/proc/self/io";
/** Counting bytes read needs Linux's per-process I/O counters; CI runs on Linux. */
export const canCountReads = existsSync(PROC_IO) || process.env.CI === "true";

/** Bytes this process read (`read`/`pread` system calls, any file or socket) while `work` ran. */
export async function bytesReadDuring(work: () => Promise<unknown>): Promise<number> {
  const readSoFar = () => Number(/rchar:\s*(\d+)/.exec(readFileSync(PROC_IO, "utf8"))?.[1]);
  const before = readSoFar();
  await work();
  return readSoFar() - before;
}

/** Appends `inputs` as a session would: chained envelopes, timestamps one second apart. */
function appendAll(
  appender: SessionAppender,
  inputs: readonly EventInput[],
  after: SessionEvent | undefined = undefined,
): SessionEvent[] {
  const events: SessionEvent[] = [];
  let parent = after ?? null;
  const start =
    after === undefined ? Date.parse("2026-03-01T10:00:00.000Z") : Date.parse(after.timestamp);
  for (const [index, input] of inputs.entries()) {
    const event = createEnvelope(input, parent?.id ?? null, new Date(start + (index + 1) * 1000));
    appender.append(event);
    events.push(event);
    parent = event;
  }
  return events;
}

const turn = (turnId: string): EventInput[] => [
  { type: "assistant.turn_start", data: { turnId } },
  { type: "assistant.turn_end", data: { turnId, status: "completed", finishReason: "stop" } },
];

/** Runs the SessionStore contract against the stores `createStore` makes (one per test). */
export function describeSessionStore(name: string, createStore: () => Promise<StoreUnderTest>) {
  describe(`SessionStore contract: ${name}`, () => {
    let current: StoreUnderTest | undefined;
    const open: SessionAppender[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((appender) => appender.close()));
      await current?.cleanup();
      current = undefined;
    });
    async function setUp(): Promise<StoreUnderTest> {
      current = await createStore();
      return current;
    }
    /** A new session `sessionId` holding `inputs` after its `session.start`, committed and closed. */
    async function stored(store: SessionStore, sessionId: string, inputs: EventInput[] = []) {
      const appender = await store.create(sessionId);
      const events = appendAll(appender, [sessionStart(sessionId, "/work/a"), ...inputs]);
      await appender.close();
      return events;
    }
    const leased = (appender: SessionAppender) => {
      open.push(appender);
      return appender;
    };

    it("reads back what was appended and committed, whole or from a sequence number", async () => {
      const { store } = await setUp();
      const appender = leased(await store.create("s1"));
      const events = appendAll(appender, [sessionStart("s1"), userMessage("hi"), ...turn("t1")]);
      await appender.commit();
      const log = await store.read("s1");
      expect(log.events).toEqual(events);
      expect(log.repaired).toEqual([]);
      expect(log.seqs).toEqual([...log.seqs].sort((left, right) => left - right));
      expect(new Set(log.seqs).size).toBe(events.length);
      const third = log.seqs[2] ?? Number.NaN;
      expect(await store.read("s1", { fromSeq: third })).toEqual({
        events: events.slice(2),
        seqs: log.seqs.slice(2),
        repaired: [],
        nextSeq: log.nextSeq,
      });
      expect(log.nextSeq).toBeGreaterThan(log.seqs.at(-1) ?? Number.POSITIVE_INFINITY);
    });

    it("refuses to create a session that exists, and to open or read one that does not", async () => {
      const { store } = await setUp();
      await stored(store, "s1");
      await expect(store.create("s1")).rejects.toThrow(/already exists/);
      await expect(store.open("missing")).rejects.toMatchObject({ code: "ENOENT" });
      await expect(store.read("missing")).rejects.toMatchObject({ code: "ENOENT" });
      await expect(store.read("../../etc")).rejects.toThrow(/Invalid session id/);
    });

    it("gives one writer the lease: a second opener is refused, naming the holder", async () => {
      const { store } = await setUp();
      const events = await stored(store, "s1");
      const first = await store.open("s1");
      expect(first.log.events).toEqual(events);
      const refusal = await store.open("s1").catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(SessionLockedError);
      expect((refusal as SessionLockedError).owner?.pid).toBe(process.pid);
      expect(await store.holder("s1")).toMatchObject({ pid: process.pid });
      await first.appender.close();
      expect(await store.holder("s1")).toBeUndefined();
      leased((await store.open("s1")).appender);
    });

    it("refuses while another process holds the lease, and takes it over once that one died", async () => {
      const underTest = await setUp();
      const { store } = underTest;
      const events = await stored(store, "s1", [userMessage("kept")]);
      const holder = await underTest.holdInAnotherProcess("s1");
      const refusal = await store.open("s1").catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(SessionLockedError);
      expect((refusal as SessionLockedError).owner?.pid).toBe(holder.pid);
      expect(await store.holder("s1")).toMatchObject({ pid: holder.pid });
      await expect(store.delete("s1")).rejects.toBeInstanceOf(SessionLockedError);
      await holder.kill();
      const taken = await store.open("s1");
      leased(taken.appender);
      expect(taken.log.events).toEqual(events);
    });

    it("repairs a torn tail and skips damaged middle lines on open, listing both", async () => {
      const underTest = await setUp();
      const { store } = underTest;
      const before = await stored(store, "s1", [userMessage("one")]);
      await underTest.appendRaw("s1", Buffer.from("not an event\n"));
      const reopened = await store.open("s1");
      const middle = appendAll(reopened.appender, [userMessage("two")], before.at(-1));
      await reopened.appender.close();
      await underTest.appendRaw("s1", Buffer.from('{"type":"user.message","data":{"con'));

      const damaged = await store.open("s1");
      expect(damaged.log.events).toEqual([...before, ...middle]);
      expect(damaged.log.repaired.map((note) => note.reason)).toEqual([
        "invalid_json",
        "torn_tail",
      ]);
      const after = appendAll(damaged.appender, [userMessage("three")], middle.at(-1));
      await damaged.appender.close();
      const read = await store.read("s1");
      expect(read.events).toEqual([...before, ...middle, ...after]);
      expect(read.repaired.map((note) => note.reason)).toEqual(["invalid_json"]);
    });

    it("judges a read or a follower from a sequence number by the chain as a whole read does", async () => {
      // Lines past where a reader starts: another log's event, one with a null parent past the
      // first event, then the session's own next event. Each reader keeps only the last.
      const underTest = await setUp();
      const { store } = underTest;
      const before = await stored(store, "s1", [userMessage("one")]);
      const following = seen();
      const subscription = await store.subscribe("s1", before.length + 1, following.onEvent);
      const foreign = createEnvelope(userMessage("of another log"), "an-id-of-another-log");
      const orphan = createEnvelope(userMessage("no parent"), null);
      const own = createEnvelope(userMessage("two"), before.at(-1)?.id ?? null);
      const lines = [foreign, orphan, own].map((event) => serializeEvent(event)).join("");
      await underTest.appendRaw("s1", Buffer.from(lines));
      await subscription.readNow();
      await subscription.close();

      const seq = before.length + 3;
      expect(following.events).toEqual([{ seq, event: own }]);
      const tail = await store.read("s1", { fromSeq: before.length + 1 });
      expect(tail.events).toEqual([own]);
      const whole = await store.read("s1");
      expect(whole.events).toEqual([...before, own]);
      expect(whole.repaired.map((note) => [note.line, note.reason])).toEqual([
        [before.length + 1, "unknown_parent"],
        [before.length + 2, "unknown_parent"],
      ]);
      expect(tail.repaired).toEqual(whole.repaired);
    });

    it("lists each session's metadata, newest first, filtered by folder", async () => {
      const { store } = await setUp();
      // The title is the first paragraph: a file attached below the request is not in it.
      const attached = "\n\nAttached file notes.md:\n```\n# Notes\n```";
      const older = await stored(store, "older", [
        userMessage(`first\n  prompt${attached}`),
        ...turn("t1"),
      ]);
      const appender = leased(await store.create("newer"));
      const newer = appendAll(appender, [
        sessionStart("newer", "/work/b", "2026-03-02T10:00:00.000Z"),
        userMessage("x".repeat(200)),
        ...turn("t1"),
        ...turn("t2"),
      ]);
      await appender.commit();
      const size = (events: SessionEvent[]) =>
        events.reduce((total, event) => total + Buffer.byteLength(serializeEvent(event)), 0);
      const summaries = await store.list();
      expect(summaries.map(({ eventsPath: _, ...summary }) => summary)).toEqual([
        {
          sessionId: "newer",
          cwd: "/work/b",
          model: "openai:gpt-5",
          startTime: "2026-03-02T10:00:00.000Z",
          // Its events are stamped before its start (as a fork's copied ones are): last activity
          // is never before the start (trial 43 F4); the older session's is its last event's.
          lastActivity: "2026-03-02T10:00:00.000Z",
          turns: 2,
          eventCount: 6,
          size: size(newer),
          firstPrompt: `${"x".repeat(79)}…`,
        },
        {
          sessionId: "older",
          cwd: "/work/a",
          model: "openai:gpt-5",
          startTime: "2026-03-01T10:00:00.000Z",
          lastActivity: older.at(-1)?.timestamp,
          turns: 1,
          eventCount: 4,
          size: size(older),
          firstPrompt: "first prompt",
        },
      ]);
      expect((await store.list({ cwd: "/work/a/" })).map((summary) => summary.sessionId)).toEqual([
        "older",
      ]);
      // One session's summary, as listed, from its metadata alone; none for a session not stored.
      expect(await store.summary("older")).toEqual(summaries[1]);
      expect(await store.summary("newer")).toEqual(summaries[0]);
      expect(await store.summary("absent")).toBeUndefined();
      expect(await store.summary("../older")).toBeUndefined();
    });

    it("lists the name a session was given last (session.title_changed), none before one", async () => {
      const { store } = await setUp();
      const named = await stored(store, "named", [
        userMessage("fix the build"),
        ...turn("t1"),
        { type: "session.title_changed", data: { title: "build fix" } },
      ]);
      const appender = leased((await store.open("named")).appender);
      appendAll(
        appender,
        [{ type: "session.title_changed", data: { title: "release" } }],
        named.at(-1),
      );
      await appender.commit();
      await stored(store, "unnamed", [userMessage("say hello"), ...turn("t1")]);
      const listed = (await store.list()).map(({ sessionId, firstPrompt, name }) => ({
        sessionId,
        firstPrompt,
        name,
      }));
      expect(listed).toEqual([
        { sessionId: "named", firstPrompt: "fix the build", name: "release" },
        { sessionId: "unnamed", firstPrompt: "say hello", name: undefined },
      ]);
    });

    it("lists a prompt left without an end as interrupted while no live process holds the session", async () => {
      const { store } = await setUp();
      const killed = [
        userMessage("count"),
        { type: "assistant.turn_start", data: { turnId: "t1" } },
      ];
      await stored(store, "killed", killed as EventInput[]);
      await stored(store, "held", killed as EventInput[]);
      await stored(store, "answered", [
        userMessage("count"),
        { type: "assistant.turn_start", data: { turnId: "t1" } },
        {
          type: "assistant.turn_end",
          data: { turnId: "t1", status: "completed", stopReason: "end_turn" },
        },
      ]);
      await stored(store, "cancelled", [
        userMessage("count"),
        { type: "abort", data: { reason: "user" } },
      ]);
      const holder = await current?.holdInAnotherProcess("held");
      try {
        const listed = (await store.list()).map(({ sessionId, interrupted }) => ({
          sessionId,
          interrupted,
        }));
        expect(listed.sort((left, right) => left.sessionId.localeCompare(right.sessionId))).toEqual(
          [
            { sessionId: "answered", interrupted: undefined },
            { sessionId: "cancelled", interrupted: undefined },
            { sessionId: "held", interrupted: undefined },
            { sessionId: "killed", interrupted: true },
          ],
        );
      } finally {
        await holder?.kill();
      }
    });

    it.skipIf(!canCountReads)(
      "lists without reading whole logs: a session with an 8 MB prompt costs little to list",
      async () => {
        const { store } = await setUp();
        const prompt = `big ${"y".repeat(8 * 1024 * 1024)}`;
        await stored(store, "big", [userMessage(prompt), ...turn("t1")]);
        await stored(store, "small", [userMessage("small")]);
        const summaries: Awaited<ReturnType<SessionStore["list"]>> = [];
        const read = await bytesReadDuring(async () => summaries.push(...(await store.list())));
        expect(read).toBeLessThan(256 * 1024);
        expect(summaries.map((summary) => [summary.sessionId, summary.firstPrompt])).toEqual([
          ["big", `big ${"y".repeat(75)}…`],
          ["small", "small"],
        ]);
      },
    );

    it("deletes a session only once nobody holds it", async () => {
      const { store } = await setUp();
      await stored(store, "s1");
      const opened = await store.open("s1");
      await expect(store.delete("s1")).rejects.toBeInstanceOf(SessionLockedError);
      await opened.appender.close();
      expect(await store.delete("s1")).toBe(true);
      expect(await store.delete("s1")).toBe(false);
      expect(await store.list()).toEqual([]);
      await expect(store.read("s1")).rejects.toMatchObject({ code: "ENOENT" });
    });

    it("keeps the order of appends made around concurrent commits", async () => {
      const { store } = await setUp();
      const appender = leased(await store.create("s1"));
      const appended = appendAll(appender, [sessionStart("s1")]);
      const producer = async (label: string) => {
        for (let index = 0; index < 50; index++) {
          appended.push(...appendAll(appender, [userMessage(`${label}${index}`)], appended.at(-1)));
          await (index % 5 === 0 ? appender.commit() : Promise.resolve());
        }
      };
      await Promise.all([producer("a"), producer("b"), appender.commit()]);
      await appender.commit();
      expect((await store.read("s1")).events).toEqual(appended);
      expect((await store.list())[0]).toMatchObject({ sessionId: "s1", eventCount: 101 });
    });
  });
}
