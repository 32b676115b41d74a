import type * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import {
  CONTEXT_ERRORS,
  isSummaryRequest,
  limitedModel,
  requestText,
  requestTokens,
  viewEachFile,
  writeSixFiles,
} from "../support/context-limit.js";
import { AcpHarness } from "./support.js";

/**
 * A first answer long enough that its summary is smaller: a compaction that would not shrink the
 * context is discarded (src/agent/compaction.ts).
 */
const LONG_ANSWER =
  "One: the answer of the first prompt, long enough to be worth summarising. ".repeat(20);

const WINDOW = 8_000;

function compactionUpdates(updates: acp.SessionUpdate[]) {
  return updates.filter(
    (update) =>
      (update.sessionUpdate === "tool_call" && update.kind === "think") ||
      (update.sessionUpdate === "tool_call_update" &&
        String(update.toolCallId).startsWith("compaction-")),
  );
}

describe("compaction over ACP", () => {
  test("case 33 A: a think tool call with the token counts, and usage drops", async () => {
    const harness = await AcpHarness.start({
      face: { contextWindow: WINDOW, allowAllTools: true },
    });
    await writeSixFiles(harness.cwd);
    harness.server.setResponder(limitedModel({ limit: WINDOW, conversation: viewEachFile }));
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "read all files and summarize")).toEqual({
      stopReason: "end_turn",
    });
    const { requests } = harness.server;
    expect(requests.every((request) => request.status === 200)).toBe(true);
    expect(requests.every((request) => requestTokens(request.body) <= WINDOW)).toBe(true);
    const updates = harness.updates(sessionId);
    const shown = compactionUpdates(updates);
    expect(shown.length).toBeGreaterThanOrEqual(2);
    expect(shown[0]).toMatchObject({
      sessionUpdate: "tool_call",
      title: "Compacting conversation",
      kind: "think",
      status: "in_progress",
      rawInput: { trigger: "threshold", tokenLimit: WINDOW },
    });
    expect(shown[1]).toMatchObject({
      sessionUpdate: "tool_call_update",
      status: "completed",
      content: [
        {
          type: "content",
          content: { type: "text", text: expect.stringMatching(/^Compacted the conversation/) },
        },
      ],
    });
    // Every usage_update's size is the configured window; the one after compaction is smaller.
    const usages = updates.filter((update) => update.sessionUpdate === "usage_update");
    expect(usages.every((update) => update.size === WINDOW)).toBe(true);
    const afterCompaction = updates.indexOf(shown[1] as acp.SessionUpdate) + 1;
    const before = usages.filter((update) => updates.indexOf(update) < afterCompaction).at(-2);
    const dropped = updates[afterCompaction];
    expect(dropped?.sessionUpdate).toBe("usage_update");
    expect(dropped?.sessionUpdate === "usage_update" && dropped.used).toBeLessThan(
      before?.sessionUpdate === "usage_update" ? before.used : 0,
    );
  });

  test("session/load replays the compaction as it was shown, and the next prompt sends the compacted view", async () => {
    let harness = await AcpHarness.start({ face: { contextWindow: WINDOW, allowAllTools: true } });
    await writeSixFiles(harness.cwd);
    harness.server.setResponder(limitedModel({ limit: WINDOW, conversation: viewEachFile }));
    const sessionId = await harness.newSession();
    await harness.prompt(sessionId, "read all files and summarize");
    const live = compactionUpdates(harness.updates(sessionId));
    harness = await harness.restart();
    await harness.loadSession(sessionId);
    const replayed = compactionUpdates(harness.updates(sessionId));
    expect(replayed).toEqual(live);
    harness.server.setResponder(undefined);
    harness.server.enqueue({ text: "still here" });
    await harness.prompt(sessionId, "anything else?");
    const last = requestText(harness.server.requests.at(-1));
    expect(last).toContain("<summary>");
    expect(last).not.toContain("file-1 holds this line");
  });

  test("case 33 B: the prompt fails with a JSON-RPC error saying the context is exhausted", async () => {
    const harness = await AcpHarness.start({
      face: { contextWindow: WINDOW, allowAllTools: true },
    });
    await writeSixFiles(harness.cwd);
    harness.server.setResponder(
      limitedModel({
        limit: WINDOW,
        conversation: viewEachFile,
        summary: () => CONTEXT_ERRORS.openai(9_000, WINDOW),
      }),
    );
    const sessionId = await harness.newSession();
    await expect(harness.prompt(sessionId, "read all files and summarize")).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining("context is exhausted"),
      data: { errorType: "context_length_exceeded" },
    });
    expect(harness.server.requests.filter(isSummaryRequest)).toHaveLength(2);
  });

  // A trial of session 17's build (round 3, session 18, #3): a summary longer than what it
  // replaced was kept and the context grew.
  test("/compact whose summary would not shrink the context: a failed compaction saying so; the conversation is kept", async () => {
    const harness = await AcpHarness.start();
    const long = `Task: ${"count. ".repeat(400)}`;
    harness.server.enqueue({ text: "one" }, { text: "two" }, { text: long });
    const sessionId = await harness.newSession();
    await harness.prompt(sessionId, "first");
    await harness.prompt(sessionId, "second");
    await harness.prompt(sessionId, "/compact");
    const [, end] = compactionUpdates(harness.updates(sessionId));
    expect(end).toMatchObject({
      sessionUpdate: "tool_call_update",
      status: "failed",
      content: [
        {
          type: "content",
          content: {
            type: "text",
            text: expect.stringMatching(
              /^Compaction failed: the summary would not make the context smaller \(about \d+ tokens before, \d+ with it\): the conversation is kept as it was$/,
            ),
          },
        },
      ],
    });
    expect(
      harness
        .updates(sessionId)
        .filter((update) => update.sessionUpdate === "usage_update" && update.used > 1_000),
    ).toEqual([]);
    harness.server.enqueue({ text: "three" });
    await harness.prompt(sessionId, "third");
    const last = requestText(harness.server.requests[3]);
    expect(last).toContain("first");
    expect(last).not.toContain("count. count.");
  });

  test("/compact is announced, passes its instructions and ends the turn", async () => {
    const harness = await AcpHarness.start();
    harness.server.enqueue({ text: LONG_ANSWER }, { text: "two" }, { text: "Task: count." });
    const sessionId = await harness.newSession();
    await harness.prompt(sessionId, "first");
    await harness.prompt(sessionId, "second");
    expect(await harness.prompt(sessionId, "/compact keep the numbers")).toEqual({
      stopReason: "end_turn",
    });
    const commands = harness
      .updates(sessionId)
      .find((update) => update.sessionUpdate === "available_commands_update");
    expect(
      commands?.sessionUpdate === "available_commands_update" &&
        commands.availableCommands.map((command) => command.name),
    ).toContain("compact");
    expect(requestText(harness.server.requests[2])).toContain("keep the numbers");
    const events = await harness.persisted(sessionId);
    expect(
      events
        .filter((event) => event.type === "session.compaction_complete")
        .map((event) => event.type === "session.compaction_complete" && event.data.trigger),
    ).toEqual(["manual"]);
    expect(compactionUpdates(harness.updates(sessionId))).toHaveLength(2);
    // The model's next request sees the summary and the latest turn only.
    harness.server.enqueue({ text: "three" });
    await harness.prompt(sessionId, "third");
    const last = requestText(harness.server.requests[3]);
    expect(last).toContain("Task: count.");
    expect(last).not.toContain("first");
  });

  // Round 3, session 20: a /compact with nothing older than the latest turn wrote a failed
  // compaction (and showed it as a think tool call); it is refused as `sessions compact` refuses.
  test("/compact with nothing to compact: said, no compaction shown or written, the turn ends", async () => {
    const harness = await AcpHarness.start();
    harness.server.enqueue({ text: "one" });
    const sessionId = await harness.newSession();
    await harness.prompt(sessionId, "first");
    const before = (await harness.persisted(sessionId)).map((event) => event.type);
    const shown = harness.updates(sessionId).length;
    expect(await harness.prompt(sessionId, "/compact")).toEqual({ stopReason: "end_turn" });
    expect(harness.updates(sessionId).slice(shown)).toEqual([
      {
        sessionUpdate: "agent_message_chunk",
        content: {
          type: "text",
          text: "Nothing to compact: the conversation is only its most recent turn",
        },
        messageId: expect.any(String),
      },
    ]);
    expect((await harness.persisted(sessionId)).map((event) => event.type)).toEqual(before);
    expect(harness.server.requests).toHaveLength(1);
  });

  // Before any prompt there is no conversation: it was said to be "only its most recent turn".
  test("/compact before any prompt: says there is no conversation yet, nothing written", async () => {
    const harness = await AcpHarness.start();
    const sessionId = await harness.newSession();
    const before = (await harness.persisted(sessionId)).map((event) => event.type);
    const shown = harness.updates(sessionId).length;
    expect(await harness.prompt(sessionId, "/compact")).toEqual({ stopReason: "end_turn" });
    expect(harness.updates(sessionId).slice(shown)).toEqual([
      {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "Nothing to compact: there is no conversation yet" },
        messageId: expect.any(String),
      },
    ]);
    expect((await harness.persisted(sessionId)).map((event) => event.type)).toEqual(before);
    expect(harness.server.requests).toHaveLength(0);
  });
});
