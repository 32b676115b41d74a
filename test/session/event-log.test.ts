import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { EventInput, SessionEvent } from "../../src/events/events.js";
import { eventLinePieces } from "../../src/session/event-line.js";
import {
  createEnvelope,
  EventLog,
  parseEventLog,
  readEventLog,
  serializeEvent,
} from "../../src/session/event-log.js";
import { BADLY_TYPED_LINES } from "../support/badly-typed-lines.js";
import { threadPoolCounter } from "../support/thread-pool.js";
import {
  buildEvents,
  makeTemporaryDirectory,
  sessionStart,
  toJsonl,
  userMessage,
} from "./support.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function goldenEvents(): SessionEvent[] {
  return buildEvents([
    sessionStart("session-1"),
    userMessage("hello"),
    { type: "assistant.turn_start", data: { turnId: "0" } },
    {
      type: "assistant.message",
      data: { messageId: "m1", content: "hi", toolRequests: [], finishReason: "stop" },
    },
    {
      type: "assistant.turn_end",
      data: { turnId: "0", status: "completed", finishReason: "stop" },
    },
  ]);
}

async function writeLog(bytes: Uint8Array): Promise<string> {
  const path = join(await makeTemporaryDirectory(), "events.jsonl");
  await writeFile(path, bytes);
  return path;
}

/** Every line of the file must be a whole JSON object: the check that no two lines fused. */
async function readLines(path: string): Promise<SessionEvent[]> {
  const text = await readFile(path, "utf8");
  expect(text.endsWith("\n")).toBe(true);
  return text
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line) as SessionEvent);
}

describe("readEventLog", () => {
  it("loads a clean log", async () => {
    const events = goldenEvents();
    const bytes = toJsonl(events);
    const contents = await readEventLog(await writeLog(bytes));
    expect(contents).toEqual({
      events,
      seqs: events.map((_, index) => index + 1),
      repaired: [],
      validLength: bytes.length,
      nextSeq: events.length + 1,
      eventCount: events.length,
      lastId: events.at(-1)?.id,
      undecided: false,
    });
    expect(contents.events.map((event) => event.parentId)).toEqual([
      null,
      ...events.slice(0, -1).map((event) => event.id),
    ]);
  });

  it("skips and reports a torn last line", async () => {
    const events = goldenEvents();
    const complete = toJsonl(events);
    const torn = Buffer.from('{"type":"user.mes');
    const contents = await readEventLog(await writeLog(Buffer.concat([complete, torn])));
    expect(contents).toEqual({
      events,
      seqs: [1, 2, 3, 4, 5],
      repaired: [{ line: 6, offset: complete.length, length: torn.length, reason: "torn_tail" }],
      validLength: complete.length,
      nextSeq: 6,
      eventCount: 5,
      lastId: events.at(-1)?.id,
      undecided: false,
    });
  });

  it.each([
    ["é", 1],
    ["😀", 1],
    ["😀", 2],
    ["😀", 3],
  ])(
    "treats a last line cut inside %s (after %i bytes) as a torn tail",
    async (character, kept) => {
      const events = goldenEvents();
      const complete = toJsonl(events);
      const last = createEnvelope(userMessage(`café ${character} done`), events.at(-1)?.id ?? null);
      const line = Buffer.from(serializeEvent(last));
      const cut = line.indexOf(Buffer.from(` ${character} `)) + 1 + kept;
      const contents = await readEventLog(
        await writeLog(Buffer.concat([complete, line.subarray(0, cut)])),
      );
      expect(contents.events).toEqual(events);
      expect(contents.repaired).toEqual([
        { line: 6, offset: complete.length, length: cut, reason: "torn_tail" },
      ]);
      expect(contents.validLength).toBe(complete.length);
    },
  );

  it("skips damaged middle lines with their line numbers and keeps the events around them", async () => {
    const [first, second, third] = goldenEvents();
    if (first === undefined || second === undefined || third === undefined) {
      throw new Error("golden log too short");
    }
    const missingType = JSON.stringify({ data: {}, id: "x", timestamp: "2026-03-01T10:00:00Z" });
    const invalidUtf8 = Buffer.concat([
      Buffer.from('{"type":"user.message","data":{"content":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}}'),
    ]);
    const lines: Buffer[] = [
      Buffer.from(serializeEvent(first)),
      Buffer.from([0x00, 0xff, 0x13, 0x37, 0x0a]),
      Buffer.concat([invalidUtf8, Buffer.from("\n")]),
      Buffer.from(serializeEvent(second)),
      Buffer.from("[1,2,3]\n"),
      Buffer.from(`${missingType}\n`),
      Buffer.from(serializeEvent(third)),
    ];
    const offsets = lines.map((_, index) =>
      lines.slice(0, index).reduce((total, line) => total + line.length, 0),
    );
    const contents = await readEventLog(await writeLog(Buffer.concat(lines)));
    expect(contents.events).toEqual([first, second, third]);
    expect(contents.repaired).toEqual([
      { line: 2, offset: offsets[1], length: 4, reason: "invalid_json" },
      { line: 3, offset: offsets[2], length: invalidUtf8.length, reason: "invalid_json" },
      { line: 5, offset: offsets[4], length: 7, reason: "invalid_event" },
      { line: 6, offset: offsets[5], length: missingType.length, reason: "invalid_event" },
    ]);
    expect(contents.validLength).toBe(Buffer.concat(lines).length);
  });

  it("refuses each line whose data fields are not of their declared types, keeps the rest", () => {
    const good = toJsonl(buildEvents([sessionStart("s1"), userMessage("kept")]));
    for (const line of BADLY_TYPED_LINES) {
      const contents = parseEventLog(Buffer.concat([good, Buffer.from(line)]));
      expect([line, contents.repaired.map((note) => [note.line, note.reason])]).toEqual([
        line,
        [[3, "invalid_event"]],
      ]);
      expect(contents.events.map((event) => event.type)).toEqual(["session.start", "user.message"]);
    }
    // Fields a later version adds, and optional fields left out, still load.
    const later = {
      type: "abort",
      data: { reason: "x", futureField: [1] },
      id: "a",
      timestamp: "t",
    };
    expect(parseEventLog(Buffer.from(`${JSON.stringify(later)}\n`)).repaired).toEqual([]);
  });

  it("refuses unknown types, ephemeral types and malformed envelopes", () => {
    const envelope = { id: "e1", timestamp: "2026-03-01T10:00:00.000Z", parentId: null };
    const lines = [
      { ...envelope, type: "session.future_thing", data: {} },
      { ...envelope, type: "session.idle", data: {} },
      { ...envelope, type: "abort", data: [] },
      { ...envelope, type: "abort", data: { reason: "x" }, parentId: 7 },
      { ...envelope, type: "abort", data: { reason: "x" }, id: 1 },
      { type: "abort", data: { reason: "x" }, id: "e2", timestamp: "2026-03-01T10:00:00.000Z" },
    ];
    const contents = parseEventLog(
      Buffer.from(lines.map((line) => `${JSON.stringify(line)}\n`).join("")),
    );
    expect(contents.repaired.map((note) => [note.line, note.reason])).toEqual([
      [1, "invalid_event"],
      [2, "invalid_event"],
      [3, "invalid_event"],
      [4, "invalid_event"],
      [5, "invalid_event"],
    ]);
    // A missing parentId reads as null: the envelope stays complete for every consumer.
    expect(contents.events).toEqual([
      {
        type: "abort",
        data: { reason: "x" },
        id: "e2",
        timestamp: "2026-03-01T10:00:00.000Z",
        parentId: null,
      },
    ]);
  });

  it("loads an empty file and a file of only a newline as no events", async () => {
    expect(await readEventLog(await writeLog(Buffer.alloc(0)))).toEqual({
      events: [],
      seqs: [],
      repaired: [],
      validLength: 0,
      nextSeq: 1,
      eventCount: 0,
      lastId: undefined,
      undecided: false,
    });
    expect(await readEventLog(await writeLog(Buffer.from("\n")))).toEqual({
      events: [],
      seqs: [],
      repaired: [],
      validLength: 1,
      nextSeq: 2,
      eventCount: 0,
      lastId: undefined,
      undecided: false,
    });
  });

  it("rejects a missing file with ENOENT", async () => {
    const path = join(await makeTemporaryDirectory(), "missing.jsonl");
    await expect(readEventLog(path)).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("EventLog", () => {
  it("cuts a torn tail on open so the next append starts its own line", async () => {
    const events = goldenEvents();
    const complete = toJsonl(events);
    const path = await writeLog(Buffer.concat([complete, Buffer.from('{"type":"user.mes')]));
    const opened = await EventLog.open(path, { create: false });
    const note = { line: 6, offset: complete.length, length: 17, reason: "torn_tail" };
    expect(opened.cutTail).toEqual(note);
    expect(opened.repaired).toEqual([note]);
    expect(opened.events).toEqual(events);
    expect((await stat(path)).size).toBe(complete.length);

    const next = createEnvelope(userMessage("again"), events.at(-1)?.id ?? null);
    opened.log.append(next);
    await opened.log.close();
    expect(await readLines(path)).toEqual([...events, next]);
    expect(await readEventLog(path)).toMatchObject({ repaired: [], events: [...events, next] });
  });

  it("reads from a line's offset to the end whatever the lines' sizes (blocks sized to what is left)", async () => {
    const events = goldenEvents();
    const head = toJsonl(events.slice(0, 2));
    // Lines shorter and longer than the smallest block (4 KiB) and than the largest (1 MiB).
    const tail: SessionEvent[] = [];
    for (const [index, length] of [3, 5_000, 1_500_000, 10].entries()) {
      const parent = (tail.at(-1) ?? events[1])?.id ?? null;
      tail.push(createEnvelope(userMessage(`${index}${"é".repeat(length)}`), parent));
    }
    const path = await writeLog(Buffer.concat([head, toJsonl(tail)]));
    for (const [skipped, offset] of [
      [0, head.length],
      [
        3,
        head.length +
          Buffer.byteLength(
            tail
              .slice(0, 3)
              .map((e) => serializeEvent(e))
              .join(""),
          ),
      ],
    ] as const) {
      const from = { offset, seq: 3 + skipped };
      const opened = await EventLog.open(path, { create: false, from });
      await opened.log.close();
      expect(opened.events).toEqual(tail.slice(skipped));
      expect(opened.seqs).toEqual(tail.slice(skipped).map((_, index) => from.seq + index));
      expect(opened.repaired).toEqual([]);
      expect(opened.validLength).toBe((await stat(path)).size);
    }
  });

  it("syncs at a flush or close only what was appended since the last sync", async () => {
    const path = join(await makeTemporaryDirectory(), "events.jsonl");
    const { log } = await EventLog.open(path, { create: true });
    // Appends, the close and the reads are synchronous: the thread pool gets only the syncs.
    const syncs = threadPoolCounter();
    try {
      const counts: number[] = [];
      await log.flush();
      counts.push(syncs.count());
      await log.flush();
      counts.push(syncs.count());
      const events = goldenEvents().slice(0, 2);
      const [first, second] = events;
      log.append(first as SessionEvent);
      await Promise.all([log.flush(), log.flush()]);
      counts.push(syncs.count());
      await log.flush();
      counts.push(syncs.count());
      log.append(second as SessionEvent);
      await log.flush();
      counts.push(syncs.count());
      await log.close();
      counts.push(syncs.count());
      // The first flush syncs what the file held when opened; two flushes at once each sync.
      expect(counts).toEqual([1, 1, 3, 3, 4, 4]);
      expect(await readLines(path)).toEqual(events);
    } finally {
      syncs.stop();
    }
  });

  it("closes after the syncs under way, a flush not waited for included", async () => {
    const path = join(await makeTemporaryDirectory(), "events.jsonl");
    const { log } = await EventLog.open(path, { create: true });
    const events = goldenEvents().slice(0, 2);
    log.append(events[0] as SessionEvent);
    const flushing = log.flush();
    log.append(events[1] as SessionEvent);
    await log.close();
    await expect(flushing).resolves.toBeUndefined();
    expect(await readLines(path)).toEqual(events);
  });

  it("cuts a tail torn inside a multi-byte character and appends valid UTF-8", async () => {
    const events = goldenEvents();
    const torn = Buffer.from(serializeEvent(createEnvelope(userMessage("😀"), null)));
    const cut = torn.indexOf(Buffer.from("😀")) + 2;
    const path = await writeLog(Buffer.concat([toJsonl(events), torn.subarray(0, cut)]));
    const { log } = await EventLog.open(path, { create: false });
    const next = createEnvelope(userMessage("é 😀"), events.at(-1)?.id ?? null);
    log.append(next);
    await log.close();
    const bytes = await readFile(path);
    expect(new TextDecoder("utf-8", { fatal: true }).decode(bytes)).toContain("é 😀");
    expect(await readLines(path)).toEqual([...events, next]);
  });

  it("appends a line of several MiB whole, with a character of two UTF-16 units at every place", async () => {
    const events = goldenEvents();
    const path = await writeLog(toJsonl(events));
    const { log } = await EventLog.open(path, { create: false });
    // The line is written 1 MiB of text at a time: with "😀" (a surrogate pair) repeated across
    // the cuts, and the repeat shifted by one unit, one of the two lines has a pair at each cut.
    const appended = [0, 1].map((shift) =>
      createEnvelope(userMessage(`${"a".repeat(shift)}${"😀".repeat(1_500_000)}`), null),
    );
    let bytes = 0;
    for (const event of appended) {
      bytes += log.append(event);
    }
    await log.close();
    const text = new TextDecoder("utf-8", { fatal: true }).decode(await readFile(path));
    expect(await readLines(path)).toEqual([...events, ...appended]);
    expect(bytes).toBe(Buffer.byteLength(appended.map((event) => serializeEvent(event)).join("")));
    expect(text.length).toBeGreaterThan(6_000_000);
  });

  it("writes a huge event's line in pieces, byte for byte JSON.stringify of its envelope (issue 27)", async () => {
    const path = join(await makeTemporaryDirectory(), "events.jsonl");
    const { log } = await EventLog.open(path, { create: true });
    // Long strings with everything JSON escapes, a lone surrogate, pairs across the 1 Mi cuts
    // (shifted by one unit in the second string), and a small string beside them.
    const awkward = `"\\\n\t\u0001\ud800x${"😀".repeat(600_000)}`;
    const events = [
      createEnvelope(userMessage(awkward), null),
      createEnvelope(
        {
          type: "tool.execution_complete",
          data: {
            toolCallId: "call-1",
            toolName: "view",
            success: true,
            result: {
              content: `a${awkward}`,
              images: [{ mimeType: "image/png", data: `b${awkward}` }],
            },
          },
        },
        null,
      ),
    ];
    for (const event of events) {
      log.append(event);
    }
    await log.close();
    const envelope = ({ type, data, id, timestamp, parentId }: SessionEvent) =>
      JSON.stringify({ type, data, id, timestamp, parentId });
    expect((await readFile(path)).toString("utf8")).toBe(
      `${events.map((event) => envelope(event)).join("\n")}\n`,
    );
    // No piece is the whole line or a whole long string.
    const pieces = [...eventLinePieces(events[1] as SessionEvent)];
    expect(pieces.join("")).toBe(`${envelope(events[1] as SessionEvent)}\n`);
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThan(awkward.length);
  });

  it("keeps damaged middle lines untouched and appends after them", async () => {
    const events = goldenEvents();
    const original = Buffer.concat([toJsonl(events.slice(0, 2)), Buffer.from("garbage\n")]);
    const path = await writeLog(original);
    const opened = await EventLog.open(path, { create: false });
    expect(opened.cutTail).toBeNull();
    expect(opened.repaired).toEqual([
      { line: 3, offset: original.length - 8, length: 7, reason: "invalid_json" },
    ]);
    const third = events[2];
    if (third === undefined) {
      throw new Error("golden log too short");
    }
    opened.log.append(third);
    await opened.log.close();
    const bytes = await readFile(path);
    expect(bytes.subarray(0, original.length)).toEqual(original);
    expect((await readEventLog(path)).events).toEqual(events.slice(0, 3));
  });

  it("creates the file and its folders when asked, and refuses a missing file otherwise", async () => {
    const directory = await makeTemporaryDirectory();
    const path = join(directory, "session-state", "s1", "events.jsonl");
    await expect(EventLog.open(path, { create: false })).rejects.toMatchObject({ code: "ENOENT" });
    const opened = await EventLog.open(path, { create: true });
    expect(opened).toMatchObject({ events: [], repaired: [], validLength: 0, cutTail: null });
    expect(opened.log.size).toBe(0);
    const events = goldenEvents();
    for (const event of events) {
      opened.log.append(event);
    }
    await opened.log.flush();
    expect(opened.log.size).toBe(toJsonl(events).length);
    await opened.log.close();
    expect(await readFile(path)).toEqual(toJsonl(events));
  });

  it("appends to a file of only a newline", async () => {
    const path = await writeLog(Buffer.from("\n"));
    const { log } = await EventLog.open(path, { create: false });
    const event = createEnvelope(sessionStart("s1"), null);
    log.append(event);
    await log.close();
    expect(await readEventLog(path)).toEqual({
      events: [event],
      seqs: [2],
      repaired: [],
      validLength: 1 + serializeEvent(event).length,
      nextSeq: 3,
      eventCount: 1,
      lastId: event.id,
      undecided: false,
    });
  });

  it("refuses ephemeral events and leaves the file unchanged", async () => {
    const path = await writeLog(Buffer.alloc(0));
    const { log } = await EventLog.open(path, { create: false });
    const inputs: EventInput[] = [
      { type: "session.idle", data: { stopReason: "end_turn" } },
      { type: "assistant.message_delta", data: { messageId: "m1", deltaContent: "hi" } },
      { type: "tool.execution_partial_result", data: { toolCallId: "c1", partialOutput: "." } },
    ];
    for (const input of inputs) {
      expect(() => log.append(createEnvelope(input, null))).toThrow(/ephemeral/);
    }
    await log.close();
    expect((await stat(path)).size).toBe(0);
  });

  it("refuses appends and flushes after close; closing twice is harmless", async () => {
    const path = await writeLog(Buffer.alloc(0));
    const { log } = await EventLog.open(path, { create: false });
    await log.close();
    await log.close();
    expect(() => log.append(createEnvelope(sessionStart("s1"), null))).toThrow(/closed/);
    await expect(log.flush()).rejects.toThrow(/closed/);
  });
});

describe("createEnvelope and serializeEvent", () => {
  it("gives an id, a millisecond ISO timestamp and the parent", () => {
    const now = new Date("2026-03-01T10:00:00.123Z");
    const event = createEnvelope(userMessage("hi"), "parent-1", now);
    expect(event).toEqual({
      type: "user.message",
      data: { content: "hi", source: "user" },
      id: expect.stringMatching(UUID),
      timestamp: "2026-03-01T10:00:00.123Z",
      parentId: "parent-1",
    });
    expect(createEnvelope(userMessage("hi"), null).id).not.toBe(event.id);
  });

  it("stamps the current time as toISOString writes it, across millisecond, second and day ends", () => {
    // The current time's string is built from a cached second (envelope.ts): every part must
    // still be the clock's, whatever changed since the last event.
    const times = [
      "2026-12-31T23:59:59.998Z",
      "2026-12-31T23:59:59.999Z",
      "2027-01-01T00:00:00.000Z",
      "2027-01-01T00:00:00.007Z",
      "2027-01-01T00:00:00.042Z",
      "2027-01-01T00:00:00.420Z",
      "2027-01-01T00:00:01.000Z",
      "2027-01-01T00:00:00.500Z",
      "1999-02-28T12:34:56.789Z",
    ];
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const stamped = times.map((time) => {
        vi.setSystemTime(new Date(time));
        return [
          createEnvelope(userMessage("hi"), null).timestamp,
          createEnvelope(
            { type: "assistant.message_delta", data: { messageId: "m1", deltaContent: "h" } },
            null,
          ).timestamp,
        ];
      });
      expect(stamped).toEqual(times.map((time) => [time, time]));
    } finally {
      vi.useRealTimers();
    }
  });

  it("marks ephemeral events", () => {
    const delta = createEnvelope(
      { type: "assistant.message_delta", data: { messageId: "m1", deltaContent: "h" } },
      "parent-1",
    );
    expect(delta.ephemeral).toBe(true);
    expect(createEnvelope(userMessage("hi"), null)).not.toHaveProperty("ephemeral");
  });

  it("writes the keys in a fixed order, type first, without ephemeral", () => {
    const event: SessionEvent = {
      parentId: null,
      timestamp: "2026-03-01T10:00:00.000Z",
      id: "e1",
      data: { reason: "user" },
      type: "abort",
    };
    expect(serializeEvent(event)).toBe(
      '{"type":"abort","data":{"reason":"user"},"id":"e1","timestamp":"2026-03-01T10:00:00.000Z","parentId":null}\n',
    );
  });
});
