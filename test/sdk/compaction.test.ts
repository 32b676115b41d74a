import { beforeEach, describe, expect, test } from "vitest";
import type { TurnloopClient } from "../../src/sdk/index.js";
import {
  CONTEXT_ERRORS,
  isSummaryRequest,
  limitedModel,
  requestText,
  requestTokens,
  viewEachFile,
  writeSixFiles,
} from "../support/context-limit.js";
import { fixtureForEachTest, recordEvents } from "./support.js";

/**
 * A first answer long enough that its summary is smaller: a compaction that would not shrink the
 * context is discarded (src/agent/compaction.ts).
 */
const LONG_ANSWER =
  "One: the answer of the first prompt, long enough to be worth summarising. ".repeat(20);

const WINDOW = 8_000;
const fixture = fixtureForEachTest();
let client: TurnloopClient;

beforeEach(async () => {
  client = await fixture.startedClient({
    env: { ...fixture.env, TURNLOOP_CONTEXT_WINDOW: String(WINDOW) },
  });
  await writeSixFiles(fixture.cwd);
});

describe("compaction through the SDK", () => {
  test("case 33 A: the compaction events arrive and the prompt finishes", async () => {
    fixture.model.setResponder(limitedModel({ limit: WINDOW, conversation: viewEachFile }));
    const session = await client.createSession();
    const events = recordEvents(session);
    const reply = await session.sendAndWait({ prompt: "read all files and summarize" });
    expect(reply?.data.content).toBe("finished");
    const { requests } = fixture.model;
    expect(requests.every((request) => request.status === 200)).toBe(true);
    expect(requests.every((request) => requestTokens(request.body) <= WINDOW)).toBe(true);
    const start = events.find((event) => event.type === "session.compaction_start");
    const complete = events.find((event) => event.type === "session.compaction_complete");
    expect(start?.data).toMatchObject({ trigger: "threshold", tokenLimit: WINDOW });
    expect(complete?.data).toMatchObject({ success: true, trigger: "threshold" });
    const turns = events.filter((event) => event.type === "assistant.turn_start");
    expect(turns).toHaveLength(requests.length);
    expect(turns.filter((event) => event.data.purpose === "compaction")).toHaveLength(
      requests.filter(isSummaryRequest).length,
    );
  });

  test("case 33 B: sendAndWait rejects saying the context is exhausted", async () => {
    fixture.model.setResponder(
      limitedModel({
        limit: WINDOW,
        conversation: viewEachFile,
        summary: () => CONTEXT_ERRORS.openai(9_000, WINDOW),
      }),
    );
    const session = await client.createSession();
    await expect(session.sendAndWait({ prompt: "read all files and summarize" })).rejects.toThrow(
      /context is exhausted/,
    );
    expect(fixture.model.requests.filter(isSummaryRequest)).toHaveLength(2);
  });

  test("session.history.compact compacts with the app's instructions", async () => {
    fixture.model.enqueue({ text: LONG_ANSWER }, { text: "two" }, { text: "Task: count." });
    const session = await client.createSession();
    await session.sendAndWait({ prompt: "first" });
    await session.sendAndWait({ prompt: "second" });
    const result = await session.compact("keep the numbers");
    expect(result).toEqual({
      success: true,
      tokensRemoved: expect.any(Number),
      messagesRemoved: 3,
      summaryContent: "Task: count.",
    });
    expect(requestText(fixture.model.requests[2])).toContain("keep the numbers");
    const persisted = await session.getMessages();
    const complete = persisted.find((event) => event.type === "session.compaction_complete");
    expect(complete?.data).toMatchObject({
      trigger: "manual",
      customInstructions: "keep the numbers",
    });
  });

  // Round 3, session 20: a compaction with nothing older than the latest turn wrote a failed
  // compaction to the log; it is refused as `sessions compact` refuses, nothing written.
  test("session.history.compact with nothing to compact: success false saying so, nothing written", async () => {
    fixture.model.enqueue({ text: "one" });
    const session = await client.createSession();
    await session.sendAndWait({ prompt: "first" });
    const before = (await session.getMessages()).map((event) => event.type);
    expect(await session.compact("")).toEqual({
      success: false,
      tokensRemoved: 0,
      messagesRemoved: 0,
      error: "nothing to compact: the conversation is only its most recent turn",
    });
    expect((await session.getMessages()).map((event) => event.type)).toEqual(before);
    expect(fixture.model.requests).toHaveLength(1);
  });

  test("session.history.compact before any prompt: says there is no conversation yet, nothing written", async () => {
    const session = await client.createSession();
    const before = (await session.getMessages()).map((event) => event.type);
    expect(await session.compact("")).toEqual({
      success: false,
      tokensRemoved: 0,
      messagesRemoved: 0,
      error: "nothing to compact: there is no conversation yet",
    });
    expect((await session.getMessages()).map((event) => event.type)).toEqual(before);
    expect(fixture.model.requests).toHaveLength(0);
  });
});
