import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EventLog, readEventLog } from "../../src/session/event-log.js";
import { SessionWriter } from "../../src/session/session-writer.js";
import { makeTemporaryDirectory, sessionStart, userMessage } from "./support.js";

describe("SessionWriter", () => {
  it("chains persisted events and points ephemeral ones at the last persisted event", async () => {
    const path = join(await makeTemporaryDirectory(), "s1", "events.jsonl");
    const { log } = await EventLog.open(path, { create: true });
    const writer = new SessionWriter(log, null);

    const start = writer.write(sessionStart("s1"));
    const prompt = writer.write(userMessage("hello"));
    const delta = writer.write({
      type: "assistant.message_delta",
      data: { messageId: "m1", deltaContent: "hi" },
    });
    const message = writer.write({
      type: "assistant.message",
      data: { messageId: "m1", content: "hi", toolRequests: [], finishReason: "stop" },
    });
    const idle = writer.write({ type: "session.idle", data: { stopReason: "end_turn" } });
    await log.close();

    expect(start.parentId).toBeNull();
    expect(prompt.parentId).toBe(start.id);
    expect(delta).toMatchObject({ parentId: prompt.id, ephemeral: true });
    expect(message.parentId).toBe(prompt.id);
    expect(idle).toMatchObject({ parentId: message.id, ephemeral: true });
    expect(writer.lastPersistedId).toBe(message.id);
    expect((await readEventLog(path)).events).toEqual([start, prompt, message]);
  });

  it("continues the chain after a reopen", async () => {
    const path = join(await makeTemporaryDirectory(), "events.jsonl");
    const first = await EventLog.open(path, { create: true });
    const start = new SessionWriter(first.log, null).write(sessionStart("s1"));
    await first.log.close();

    const second = await EventLog.open(path, { create: false });
    const writer = new SessionWriter(second.log, second.events.at(-1)?.id ?? null);
    const resume = writer.write({
      type: "session.resume",
      data: { resumeTime: "2026-03-01T11:00:00.000Z", eventCount: 1, repaired: second.repaired },
    });
    await second.log.close();

    expect(resume.parentId).toBe(start.id);
    expect((await readEventLog(path)).events).toEqual([start, resume]);
  });

  it("does not move the chain when the append fails", async () => {
    const path = join(await makeTemporaryDirectory(), "events.jsonl");
    const { log } = await EventLog.open(path, { create: true });
    const writer = new SessionWriter(log, null);
    const start = writer.write(sessionStart("s1"));
    await log.close();
    expect(() => writer.write(userMessage("late"))).toThrow(/closed/);
    expect(writer.lastPersistedId).toBe(start.id);
  });
});
