import { describe, expect, it } from "vitest";
import { FileSessionStore } from "../../src/session/file-store.js";
import { SessionWriter } from "../../src/session/session-writer.js";
import { makeTemporaryDirectory, sessionStart, userMessage } from "./support.js";

describe("SessionWriter", () => {
  it("chains persisted events and points ephemeral ones at the last persisted event", async () => {
    const store = new FileSessionStore(await makeTemporaryDirectory());
    const appender = await store.create("s1");
    const writer = new SessionWriter(appender, null);

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
    await appender.close();

    expect(start.parentId).toBeNull();
    expect(prompt.parentId).toBe(start.id);
    expect(delta).toMatchObject({ parentId: prompt.id, ephemeral: true });
    expect(message.parentId).toBe(prompt.id);
    expect(idle).toMatchObject({ parentId: message.id, ephemeral: true });
    expect(writer.lastPersistedId).toBe(message.id);
    expect((await store.read("s1")).events).toEqual([start, prompt, message]);
  });

  it("continues the chain after a reopen", async () => {
    const store = new FileSessionStore(await makeTemporaryDirectory());
    const first = await store.create("s1");
    const start = new SessionWriter(first, null).write(sessionStart("s1"));
    await first.close();

    const second = await store.open("s1");
    const writer = new SessionWriter(second.appender, second.log.events.at(-1)?.id ?? null);
    const resume = writer.write({
      type: "session.resume",
      data: {
        resumeTime: "2026-03-01T11:00:00.000Z",
        eventCount: 1,
        repaired: second.log.repaired,
      },
    });
    await second.appender.close();

    expect(resume.parentId).toBe(start.id);
    expect((await store.read("s1")).events).toEqual([start, resume]);
  });

  it("does not move the chain when the append fails", async () => {
    const store = new FileSessionStore(await makeTemporaryDirectory());
    const appender = await store.create("s1");
    const writer = new SessionWriter(appender, null);
    const start = writer.write(sessionStart("s1"));
    await appender.close();
    expect(() => writer.write(userMessage("late"))).toThrow(/closed/);
    expect(writer.lastPersistedId).toBe(start.id);
  });
});
