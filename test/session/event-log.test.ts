import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { EventInput, SessionEvent } from "../../src/events/events.js";
import { eventLinePieces } from "../../src/session/event-line.js";
import {
  createEnvelope,
  EventLog,
  readEventLog,
  serializeEvent,
} from "../../src/session/event-log.js";
import { threadPoolCounter } from "../support/thread-pool.js";
import {
  goldenEvents,
  makeTemporaryDirectory,
  sessionStart,
  toJsonl,
  userMessage,
  writeLog,
} from "./support.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every line of the file must be a whole JSON object: the check that no two lines fused. */
async function readLines(path: string): Promise<SessionEvent[]> {
  const text = await readFile(path, "utf8");
  expect(text.endsWith("\n")).toBe(true);
  return text
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line) as SessionEvent);
}

/** Writing the log (EventLog: appends, syncs, torn tails, huge lines) and the envelope of each line. */
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
