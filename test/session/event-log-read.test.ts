import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  createEnvelope,
  parseEventLog,
  readEventLog,
  serializeEvent,
} from "../../src/session/event-log.js";
import { BADLY_TYPED_LINES } from "../support/badly-typed-lines.js";
import {
  buildEvents,
  goldenEvents,
  makeTemporaryDirectory,
  sessionStart,
  toJsonl,
  userMessage,
  writeLog,
} from "./support.js";

/**
 * Reading a log back (readEventLog, parseEventLog): clean logs load whole; a torn last line, damaged
 * middle lines and lines of the wrong shape are skipped and reported with their line numbers.
 */
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
