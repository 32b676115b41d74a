import { mkdir, readdir, readFile, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { EventInput } from "../../src/events/events.js";
import { FileSessionStore } from "../../src/session/file-store.js";
import { eventsPath, InvalidSessionIdError, sessionsRoot } from "../../src/session/paths.js";
import { logBytes, makeTemporaryDirectory, sessionStart, userMessage } from "./support.js";

const FIRST = "11111111-1111-4111-8111-111111111111";
const SECOND = "22222222-2222-4222-8222-222222222222";
const THIRD = "33333333-3333-4333-8333-333333333333";

const turnStart = (turnId: string): EventInput => ({
  type: "assistant.turn_start",
  data: { turnId },
});
const turnEnd = (turnId: string): EventInput => ({
  type: "assistant.turn_end",
  data: { turnId, status: "completed", finishReason: "stop" },
});

async function writeSession(home: string, sessionId: string, bytes: Buffer): Promise<string> {
  const path = eventsPath(home, sessionId);
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, bytes);
  return path;
}

/** Three sessions in two folders; the second is the newest, the first the oldest. */
async function writeThreeSessions(home: string): Promise<void> {
  const at = (time: string) => new Date(`2026-03-01T${time}.000Z`);
  await writeSession(
    home,
    FIRST,
    logBytes(
      [
        sessionStart(FIRST, "/work/a", "2026-03-01T10:00:00.000Z"),
        userMessage("first prompt in a"),
        turnStart("0"),
        turnEnd("0"),
        turnStart("1"),
        turnEnd("1"),
      ],
      at("10:00:00"),
    ),
  );
  const longPrompt = `Please refactor\n\n  the parser ${"and its tests ".repeat(10)}`;
  await writeSession(
    home,
    SECOND,
    logBytes(
      [
        sessionStart(SECOND, "/work/b", "2026-03-01T12:00:00.000Z"),
        { type: "user.message", data: { content: "from a hook", source: "hook" } },
        userMessage(longPrompt),
        turnStart("0"),
        // A tool argument that looks like an event must not count as a turn.
        {
          type: "tool.execution_start",
          data: { toolCallId: "c1", toolName: "x", arguments: { type: "assistant.turn_start" } },
        },
        turnEnd("0"),
      ],
      at("12:00:00"),
    ),
  );
  const third = logBytes(
    [sessionStart(THIRD, "/work/a", "2026-03-01T11:00:00.000Z")],
    at("11:00:00"),
  );
  const tornTurn = Buffer.from('{"type":"assistant.turn_start","data":{"tur');
  await writeSession(home, THIRD, Buffer.concat([third, tornTurn]));
}

const listSessions = (home: string) => new FileSessionStore(home).list();
const deleteSession = (home: string, sessionId: string) =>
  new FileSessionStore(home).delete(sessionId);
async function newestSessionInCwd(home: string, cwd: string) {
  const [newest] = await new FileSessionStore(home).list({ cwd });
  return newest;
}

/** Bytes of the complete lines of the session's log. */
async function completeBytes(path: string): Promise<number> {
  const bytes = await readFile(path);
  return bytes.lastIndexOf(0x0a) + 1;
}

describe("listing sessions (old logs, without metadata)", () => {
  it("lists sessions newest first with what a picker needs", async () => {
    const home = await makeTemporaryDirectory();
    await writeThreeSessions(home);
    const base = { model: "openai:gpt-5" };
    expect(await listSessions(home)).toEqual([
      {
        ...base,
        sessionId: SECOND,
        cwd: "/work/b",
        startTime: "2026-03-01T12:00:00.000Z",
        lastActivity: "2026-03-01T12:00:05.000Z",
        turns: 1,
        eventCount: 6,
        size: await completeBytes(eventsPath(home, SECOND)),
        firstPrompt:
          "Please refactor the parser and its tests and its tests and its tests and its te…",
        eventsPath: eventsPath(home, SECOND),
      },
      {
        ...base,
        sessionId: THIRD,
        cwd: "/work/a",
        startTime: "2026-03-01T11:00:00.000Z",
        lastActivity: "2026-03-01T11:00:00.000Z",
        turns: 0,
        eventCount: 1,
        size: await completeBytes(eventsPath(home, THIRD)),
        firstPrompt: null,
        eventsPath: eventsPath(home, THIRD),
      },
      {
        ...base,
        sessionId: FIRST,
        cwd: "/work/a",
        startTime: "2026-03-01T10:00:00.000Z",
        lastActivity: "2026-03-01T10:00:05.000Z",
        turns: 2,
        eventCount: 6,
        size: await completeBytes(eventsPath(home, FIRST)),
        firstPrompt: "first prompt in a",
        eventsPath: eventsPath(home, FIRST),
      },
    ]);
  });

  it("gives no sessions when session-state does not exist", async () => {
    expect(await listSessions(join(await makeTemporaryDirectory(), "nowhere"))).toEqual([]);
  });

  it("lists damaged and unreadable sessions with a problem and skips what is not a session", async () => {
    const home = await makeTemporaryDirectory();
    await writeThreeSessions(home);
    const headless = "44444444-4444-4444-8444-444444444444";
    const unreadable = "55555555-5555-4555-8555-555555555555";
    const events = logBytes(
      [userMessage("orphan prompt"), turnStart("0")],
      new Date("2026-03-01T13:00:00.000Z"),
    );
    const headlessPath = await writeSession(
      home,
      headless,
      Buffer.concat([Buffer.from('{"type":"session.st\u0000\n'), events]),
    );
    const malformed = "77777777-7777-4777-8777-777777777777";
    const malformedStart = {
      type: "session.start",
      data: { sessionId: malformed, cwd: 42 },
      id: "e1",
      timestamp: "2026-03-01T08:00:00.000Z",
      parentId: null,
    };
    await writeSession(home, malformed, Buffer.from(`${JSON.stringify(malformedStart)}\n`));
    // Its one line's fields are not of their declared types (src/session/log-damage.ts): a damaged
    // line, so the session has no readable event and its activity is its file's time.
    const malformedTime = new Date("2026-03-01T08:00:00.000Z");
    await utimes(eventsPath(home, malformed), malformedTime, malformedTime);
    await utimes(join(sessionsRoot(home), malformed), malformedTime, malformedTime);
    // events.jsonl as a folder: reading it fails (EISDIR) whoever runs the test, root included.
    await mkdir(eventsPath(home, unreadable), { recursive: true });
    const unreadableTime = new Date("2026-03-01T09:00:00.000Z");
    await utimes(join(sessionsRoot(home), unreadable), unreadableTime, unreadableTime);
    await mkdir(join(sessionsRoot(home), "66666666-no-events-yet"));
    await mkdir(join(sessionsRoot(home), ".session-operation-locks"));
    await writeFile(join(sessionsRoot(home), "stray-file"), "not a session");

    const sessions = await listSessions(home);
    expect(sessions.map((session) => session.sessionId)).toEqual([
      headless,
      SECOND,
      THIRD,
      FIRST,
      unreadable,
      malformed,
    ]);
    expect(sessions.at(-1)).toMatchObject({
      cwd: null,
      problem: "events.jsonl has no readable session.start",
    });
    expect(await newestSessionInCwd(home, "/work/b")).toMatchObject({ sessionId: SECOND });
    expect(sessions.find((session) => session.sessionId === headless)).toEqual({
      sessionId: headless,
      cwd: null,
      model: null,
      startTime: null,
      lastActivity: "2026-03-01T13:00:01.000Z",
      turns: 1,
      eventCount: 2,
      size: await completeBytes(headlessPath),
      firstPrompt: "orphan prompt",
      eventsPath: headlessPath,
      problem: "events.jsonl has no readable session.start",
      // Its prompt has no end and nothing holds it: its process ended (round 3 session 45).
      interrupted: true,
    });
    expect(sessions.find((session) => session.sessionId === unreadable)).toEqual({
      sessionId: unreadable,
      cwd: null,
      model: null,
      startTime: null,
      lastActivity: unreadableTime.toISOString(),
      turns: 0,
      eventCount: 0,
      size: 0,
      firstPrompt: null,
      eventsPath: eventsPath(home, unreadable),
      problem: expect.stringMatching(/^cannot read events\.jsonl: .*EISDIR/),
    });
  });
});

describe("newestSessionInCwd", () => {
  it("finds the most recently active session of a folder", async () => {
    const home = await makeTemporaryDirectory();
    await writeThreeSessions(home);
    expect((await newestSessionInCwd(home, "/work/a"))?.sessionId).toBe(THIRD);
    expect((await newestSessionInCwd(home, "/work/a/"))?.sessionId).toBe(THIRD);
    expect((await newestSessionInCwd(home, "/work/b"))?.sessionId).toBe(SECOND);
    expect(await newestSessionInCwd(home, "/work/c")).toBeUndefined();
  });
});

describe("deleteSession", () => {
  it("removes the session folder and says whether there was one", async () => {
    const home = await makeTemporaryDirectory();
    await writeThreeSessions(home);
    expect(await deleteSession(home, FIRST)).toBe(true);
    expect(await deleteSession(home, FIRST)).toBe(false);
    expect((await readdir(sessionsRoot(home))).sort()).toEqual([SECOND, THIRD]);
  });

  it("rejects an id that would leave session-state", async () => {
    const home = await makeTemporaryDirectory();
    await writeThreeSessions(home);
    await expect(deleteSession(home, "../../etc")).rejects.toThrow(InvalidSessionIdError);
    await expect(deleteSession(home, "..")).rejects.toThrow(/Invalid session id/);
    expect((await readdir(sessionsRoot(home))).sort()).toEqual([FIRST, SECOND, THIRD]);
  });
});
